import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an auditor is usually handed: a copy of a store they may only read. Every reading command works
/// on it and leaves no file behind (no LMDB lock file in a directory they may not change); every writing
/// command stops with exit 77 and one sentence. As root, the commands run as `nobody` (root may write
/// anything); as another user, the copy's modes alone make it read-only.
@Suite struct ReadOnlyStoreTests {
    static let s = OutputFixture.session

    /// The fixture store copied to `ro.store` and made read-only, with an anchor made before, and the
    /// command prefix that runs the CLI as a user who cannot write it.
    private static func readOnlyCopy(in cli: CLIRunner) throws -> (store: String, key: String, run: ([String]) throws -> ChildProcess.Outcome) {
        try OutputFixture.copy(into: cli)
        #expect(try cli.run(["anchor", "--out", "cp.txt"]).status == 0)
        let store = cli.directory.appendingPathComponent("ro.store")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cli.storePath + "/data.mdb", toPath: store.path + "/data.mdb")
        let key = cli.directory.appendingPathComponent("ro.key").path
        try FileManager.default.copyItem(atPath: cli.keyPath, toPath: key)
        chmod(store.path + "/data.mdb", 0o444)
        chmod(store.path, 0o555)
        chmod(cli.directory.appendingPathComponent("cp.txt").path, 0o644)
        var prefix: [String] = []
        if geteuid() == 0, let nobody = getpwnam("nobody") {
            chown(key, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
            prefix = ["/usr/sbin/runuser", "-u", "nobody", "--"]
        }
        chmod(key, 0o600)
        let run = { (arguments: [String]) throws -> ChildProcess.Outcome in
            let full = prefix + [CLIRunner.binary().path] + arguments + ["--store", store.path, "--key-file", key]
            let child = try ChildProcess(URL(fileURLWithPath: full[0]), Array(full.dropFirst()), directory: cli.directory)
            return child.wait(limit: .seconds(300))
        }
        return (store.path, key, run)
    }

    static let readingCommands: [[String]] = [
        ["verify"], ["sessions"], ["transcript", String(s.prefix(8))], ["events", s], ["export", "--all"],
        ["audit", "check"], ["audit", "consent", "--subject", OutputFixture.subject], ["prove", s, "--anchor", "cp.txt"],
        ["stats"], ["replay", s, "--quiet", "--digest"], ["verify", "--anchor", "cp.txt"],
    ]

    @Test(.timeLimit(.minutes(10)))
    func readingCommandsWorkOnAStoreThisUserMayOnlyReadAndLeaveNoFileThere() async throws {
        try await withCLI { cli in
            let copy = try Self.readOnlyCopy(in: cli)
            defer { chmod(copy.store, 0o755) }  // so that the scratch directory can be removed
            for command in Self.readingCommands {
                let outcome = try copy.run(command)
                #expect(outcome.status == 0 || (command == ["audit", "check"] && outcome.status == 3),
                        "\(command.joined(separator: " ")): exit \(outcome.status): \(outcome.stderr)")
                #expect(!outcome.stdoutText.isEmpty, "\(command.joined(separator: " ")) printed nothing")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: copy.store) == ["data.mdb"], "a reader left a file in the store")
            let export = try copy.run(["export", "--all", "--format", "csv"])
            #expect(export.stderr.contains("not recorded in its access log"))
            let transcript = try copy.run(["transcript", String(Self.s.prefix(8)), "--actor", "auditor"])
            #expect(transcript.status == 0 && transcript.stderr.contains("not recorded in its access log"), "\(transcript.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func writingCommandsOnAReadOnlyStoreStopWithExit77AndOneSentence() async throws {
        try await withCLI { cli in
            let copy = try Self.readOnlyCopy(in: cli)
            defer { chmod(copy.store, 0o755) }
            let input = cli.directory.appendingPathComponent("one.ndjson")
            try #"{"type":"session.started","session":"12345678-1234-4234-8234-123456789abc","at":"2026-11-21T10:00:00.000Z","subject":"u","locale":"en"}"#
                .write(to: input, atomically: true, encoding: .utf8)
            chmod(input.path, 0o644)
            let before = try Data(contentsOf: URL(fileURLWithPath: copy.store + "/data.mdb"))
            for command in [["ingest", input.path], ["projections", "rebuild"], ["retention", "set", "--max-age", "30d"]] {
                let outcome = try copy.run(command)
                #expect(outcome.status == 77, "\(command.joined(separator: " ")): exit \(outcome.status): \(outcome.stderr)")
                let lines = outcome.stderr.split(separator: "\n")
                #expect(lines.count == 1 && outcome.stderr.contains("read-only"), "\(outcome.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy.store + "/data.mdb")) == before)
        }
    }
}
