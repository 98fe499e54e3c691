import Foundation
import TestSupport
import Testing

@Suite struct MigrateCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/stores")

    @Test func anOldStoreIsRefusedThenMigratedThenListed() async throws {
        try await withCLI { cli in
            try FileManager.default.createDirectory(atPath: cli.storePath, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("format0/data.mdb"),
                                             to: URL(fileURLWithPath: cli.storePath + "/data.mdb"))
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("format0.key"), to: URL(fileURLWithPath: cli.keyPath))
            chmod(cli.keyPath, 0o600)

            let before = try await cli.runInProcess(["sessions"])
            #expect(before.status == 65)
            #expect(before.stderr.contains("run `sessionstore migrate`"))
            let migrated = try await cli.runInProcess(["migrate"])
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(migrated.stdout.hasPrefix("format 0 → 1"))
            #expect(try await cli.runInProcess(["migrate"]).stdout.contains("already at the current format"))
            let transcript = try await cli.runInProcess(["transcript", "5e55e55e-0000-4000-8000-000000000001"])
            #expect(transcript.stdout == "An old sentence.\nWithout a confidence.\n")
            #expect(try await cli.runInProcess(["verify"]).status == 0)
        }
    }
}
