import Foundation
import TestSupport
import Testing

@Suite struct DemoCommandTests {
    @Test func theDemoRunsTwiceOnAFreshDirectoryAndTheSecondRunAddsNothing() async throws {
        try await withCLI { cli in
            let first = try cli.run(["demo"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(FileManager.default.fileExists(atPath: cli.keyPath))
            #expect(first.stdout.contains("Recorded 6 fixture sessions"))
            #expect(first.stdout.contains("How did you sleep last night?"))
            #expect(first.stdout.contains("audio_recording  granted  fixture_script  fixture-1       2026-01-05T09:00:00.000Z"))
            let digest = String(first.stdout.split(separator: "\n").last ?? "")
            #expect(digest.range(of: "^[0-9a-f]{64}$", options: .regularExpression) != nil)

            let second = try cli.run(["demo"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.contains("0 events appended (all were stored already)"))
            #expect(String(second.stdout.split(separator: "\n").last ?? "") == digest)
            let sessions = try cli.run(["sessions", "--format", "csv"])
            #expect(sessions.stdout.split(separator: "\r\n").count == 7)  // header + six sessions
            #expect(try cli.run(["verify"]).status == 0)
        }
    }
}
