import Foundation
import SessionModel
import Testing
import TestSupport

/// Each release has its version, its CHANGELOG section and its upgrade note: `--version` says the newest section's.
@Suite struct ReleaseTests {
    @Test func theVersionIsTheNewestChangelogSectionsAndThatSectionSaysHowToUpgrade() async throws {
        let changelog = try String(contentsOf: RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("CHANGELOG.md"),
                                   encoding: .utf8)
        let sections = changelog.components(separatedBy: "\n## ").dropFirst()
        let newest = try #require(sections.first, "CHANGELOG.md has no release section")
        #expect(newest.hasPrefix(SessionStoreRelease.version + " "), "the newest section is \(newest.prefix(40)), the version \(SessionStoreRelease.version)")
        #expect(newest.contains("\n### Upgrading\n"), "the newest release says how to upgrade to it")
        #expect(!changelog.contains("### Unreleased"), "every change belongs to a release")
        try await withCLI { cli in
            let version = try cli.run(["--version"])
            #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == SessionStoreRelease.version)
        }
    }
}
