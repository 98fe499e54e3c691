import Foundation
import Testing
import TestSupport

/// `sessionstore serve` on the built binary, driven by a client in another language (Python's
/// `requests` and raw sockets, tools/serve/client_check.py), and stopped with SIGTERM.
@Suite struct ServeCommandTests {
    /// Starts `serve` on a free loopback port and waits until it listens; the process is killed when released.
    static func serve(_ cli: CLIRunner) throws -> (process: ChildProcess, url: String) {
        let process = try cli.start(["serve", "--listen", "127.0.0.1:0", "--idle-timeout", "2"])
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if let line = process.outputSoFar.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return (process, String(line.dropFirst("listening on ".count)))
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        let outcome = process.wait(limit: .seconds(1))
        Issue.record("serve did not start listening: \(outcome.stderr)")
        throw CancellationError()
    }

    @Test(.enabled(if: pythonTestEnabled("requests, websockets")))
    func aPythonClientAppendsReadsTailsRecordsLiveAndResumesAndTheServerStopsCleanlyOnSIGTERM() async throws {
        try requirePython("requests, websockets")
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            var tokens: [String: String] = [:]
            for scope in ["ingest", "read", "audit"] {
                let made = try cli.run(["tokens", "create", "--scope", scope, "--name", "python-\(scope)"])
                #expect(made.status == 0, "\(made.stderr)")
                tokens[scope] = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let (server, url) = try Self.serve(cli)
            let client = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/serve/client_check.py").path
            let checked = try runPython([client, url, tokens["ingest"]!, tokens["read"]!, tokens["audit"]!], limit: .seconds(300))
            #expect(checked.status == 0, "\(String(decoding: checked.stdout, as: UTF8.self)) \(checked.stderr)")
            #expect(String(decoding: checked.stdout, as: UTF8.self).contains("all checks passed"))
            let live = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/serve/live_check.py").path
            let recorded = try runPython([live, url, tokens["ingest"]!, tokens["read"]!], limit: .seconds(300))
            #expect(recorded.status == 0, "\(String(decoding: recorded.stdout, as: UTF8.self)) \(recorded.stderr)")
            #expect(String(decoding: recorded.stdout, as: UTF8.self).contains("all checks passed"))

            server.send(SIGTERM)
            let stopped = server.wait(limit: .seconds(60))
            #expect(!stopped.timedOut && !stopped.signalled && stopped.status == 0, "SIGTERM stops the server cleanly: \(stopped.stderr)")
            // The store is closed and whole: the CLI opens it and finds the session and its reads.
            let sessions = try cli.run(["sessions", "--format", "json"])
            #expect(sessions.status == 0)
            #expect(sessions.stdout.contains("\"segments\":2"), "\(sessions.stdout)")
            #expect(sessions.stdout.contains("\"audio_ms\":600"), "the live session's audio: \(sessions.stdout)")
            let reads = try cli.run(["audit", "access", "--format", "json"])
            #expect(reads.stdout.contains("token python-read"), "\(reads.stdout)")
        }
    }

    @Test func tokensAreMadeListedAndRevokedAndARevokedOneIsNotListed() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            let made = try cli.run(["tokens", "create", "--scope", "read", "--name", "crm", "--format", "json"])
            #expect(made.status == 0, "\(made.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
            let token = try #require(object["token"] as? String)
            #expect(token.hasPrefix("sst_"))
            #expect(try cli.run(["tokens", "list"]).stdout.contains("crm"))
            #expect(try cli.run(["tokens", "create", "--scope", "root", "--name", "x"]).status == 64)
            #expect(try cli.run(["tokens", "create", "--scope", "ingest", "--name", "x", "--subject", "dana"]).status == 64,
                    "only a read token is limited to subjects")
            #expect(try cli.run(["tokens", "revoke", token]).status == 0)
            #expect(!(try cli.run(["tokens", "list"]).stdout.contains("crm")))
            #expect(try cli.run(["tokens", "list", "--all"]).stdout.contains("revoked"))
            #expect(try cli.run(["tokens", "revoke", token]).status == 64, "revoked already")
            #expect(try cli.run(["tokens", "revoke", "00000000-0000-4000-8000-000000000000"]).status == 65)
        }
    }
}
