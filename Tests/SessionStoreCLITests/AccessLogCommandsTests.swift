import Foundation
import Testing
import TestSupport

/// Every command that decrypts session content leaves one access.read record before its output, which
/// `audit access` lists; a policy that requires a purpose refuses a read without one, printing nothing.
@Suite struct AccessLogCommandsTests {
    static func json(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func eachReadingCommandRecordsWhoWhyAndWhatAndAuditAccessListsThem() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["demo"]).status == 0)
            let list = try await cli.runInProcess(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline)
            let session = String(try #require(list.dropFirst().first?.split(separator: ",").first))
            // The demo prints a transcript and replays a session: those reads are the log's first entries.
            let demoReads = try Self.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout)
            #expect(demoReads.map { $0["command"] as? String } == ["transcript", "replay"])

            let reads: [[String]] = [
                ["transcript", session],
                ["events", session],
                ["audio", session, "--out", cli.directory.appendingPathComponent("a.wav").path],
                ["report", session, "--out", cli.directory.appendingPathComponent("r.html").path],
                ["replay", session],
                ["export", session, "--format", "json", "--out", cli.directory.appendingPathComponent("e.json").path],
            ]
            for read in reads {
                let outcome = try await cli.runInProcess(read + ["--actor", "qa-bot", "--purpose", "release check 7"])
                #expect(outcome.status == 0, "\(read[0]): \(outcome.stderr)")
            }
            let unwritable = try await cli.runInProcess(["export", session, "--format", "json", "--out", "/nonexistent-dir/e.json"])
            #expect(unwritable.status != 0 && unwritable.stdout.isEmpty)
            #expect(try Self.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout).count == demoReads.count + reads.count,
                    "an export refused for its destination is not recorded")
            let drive = try await cli.runInProcess(["replay", session, "--drive", "python3 \(RepositoryFixtures.root.deletingLastPathComponent().path)/tools/replay/echo_target.py",
                                     "--with-transcript", "--actor", "ci"])
            #expect(drive.status == 0, "\(drive.stderr)")
            let run = drive.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await cli.runInProcess(["compare", session, run, "--actor", "ci"]).status != 64)

            let entries = try Self.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout).dropFirst(demoReads.count)
            #expect(entries.map { $0["command"] as? String } == ["transcript", "events", "audio", "report", "replay", "export json", "replay", "compare"])
            #expect(entries.prefix(6).allSatisfy { $0["actor"] as? String == "qa-bot" && $0["purpose"] as? String == "release check 7" })
            #expect(entries.allSatisfy { ($0["sessions"] as? [String])?.first == session && $0["position"] is Int && $0["at"] is String })
            #expect((entries.last?["sessions"] as? [String]) == [session, run])
            #expect(try Self.json(await cli.runInProcess(["audit", "access", "--actor", "ci", "--format", "json"]).stdout).count == 2)
            #expect(try Self.json(await cli.runInProcess(["audit", "access", "--session", run, "--format", "json"]).stdout).count == 1)
            #expect(try Self.json(await cli.runInProcess(["audit", "access", "--subject", "demo-clinician", "--format", "json"]).stdout).count >= 1)
        }
    }

    @Test func aStoreRequiringAPurposeRefusesAReadWithoutOneBeforePrintingAnything() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["demo"]).status == 0)
            let list = try await cli.runInProcess(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline)
            let session = String(try #require(list.dropFirst().first?.split(separator: ",").first))
            let policy = try await cli.runInProcess(["audit", "access", "--require-purpose", "yes", "--format", "json"])
            #expect(policy.status == 0 && policy.stdout.contains("\"purpose_required\":true"))
            #expect(try await cli.runInProcess(["audit", "access", "--require-purpose", "maybe"]).status == 64)

            for read in [["transcript", session], ["events", session], ["export", session, "--format", "json"]] {
                let refused = try await cli.runInProcess(read)
                #expect(refused.status == 64 && refused.stdout.isEmpty && refused.stderr.contains("--purpose"), "\(read[0]): \(refused.stderr)")
            }
            let demoReads = try Self.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout).count
            #expect(demoReads == 2, "the demo's transcript and replay")
            let allowed = try await cli.runInProcess(["transcript", session, "--purpose", "ticket 42"])
            #expect(allowed.status == 0 && !allowed.stdout.isEmpty)
            #expect(try Self.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout).dropFirst(demoReads).map { $0["purpose"] as? String }
                    == ["ticket 42"])
        }
    }
}
