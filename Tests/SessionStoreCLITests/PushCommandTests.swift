import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// `sessionstore push`: a device's store sent to a server (`serve` on the built binary, on a free loopback port)
/// through the client library, resumably, with subjects both stores agree on.
@Suite struct PushCommandTests {
    /// A server store and a device store hashing subjects with the server's key (or its own: `sharedSubjectKey`
    /// false), the demo's sessions on the device, `serve` over the server's store and an ingest token for it.
    struct Stores {
        let device: CLIRunner
        let server: CLIRunner
        let url: String
        let token: String
        let serving: ChildProcess

        /// The server's count of events sent to it again (`/metrics`).
        func duplicatesSent() async throws -> Int {
            let (body, _) = try await URLSession.shared.data(from: URL(string: url + "/metrics")!)
            let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("sessionstore_duplicate_events_total ") }
            return Int(try #require(line).split(separator: " ").last ?? "") ?? -1
        }

        func push(_ arguments: [String]) async throws -> CLIRunner.Outcome {
            let outcome = try await device.runInProcess(["push", "--to", url] + arguments, environment: ["SESSIONSTORE_TOKEN": token])
            return CLIRunner.Outcome(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
        }

        /// Stops `serve` (SIGTERM), so that the server's store can be read and changed by the CLI.
        func stopServing() async throws {
            serving.send(SIGTERM)
            let stopped = try await offThePool { serving.wait(limit: .seconds(60)) }
            #expect(!stopped.timedOut, "serve stops on SIGTERM")
        }
    }

    static func withStores<R>(sharedSubjectKey: Bool = true, _ body: (Stores) async throws -> R) async throws -> R {
        try await withCLI { server in
            try await withCLI { device in
                #expect(try await server.runInProcess(["init"]).status == 0)
                let subjectKey = device.path("server-subject.key")
                let exported = try await server.runInProcess(["keys", "export-subject-key", "--out", subjectKey])
                #expect(exported.status == 0, "\(exported.stderr)")
                let initialised = try await device.runInProcess(["init"] + (sharedSubjectKey ? ["--subject-key", subjectKey] : []))
                #expect(initialised.status == 0, "\(initialised.stderr)")
                #expect(try await device.runInProcess(["demo"]).status == 0)
                let made = try await server.runInProcess(["tokens", "create", "--scope", "ingest", "--name", "field recorder"])
                let token = made.stdout.split(separator: "\n").first.map(String.init) ?? ""
                let (serving, url) = try await offThePool { try ServeCommandTests.serve(server) }
                defer { serving.send(SIGKILL) }
                return try await body(Stores(device: device, server: server, url: url, token: token, serving: serving))
            }
        }
    }

    /// Each session's events as `events --with-audio` prints them, less what each store assigns itself.
    static func events(in cli: CLIRunner) async throws -> [String: [String]] {
        let list = try await cli.runInProcess(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline).dropFirst()
        var sessions: [String: [String]] = [:]
        for row in list {
            let session = String(row.prefix { $0 != "," })
            let printed = try await cli.runInProcess(["events", session, "--with-audio"])
            #expect(printed.status == 0, "\(printed.stderr)")
            sessions[session] = try printed.stdout.split(whereSeparator: \.isNewline).map { line in
                var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                object["position"] = nil
                object["recorded_at"] = nil
                return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            }
        }
        return sessions
    }

    @Test func aPushedStoreEndsUpOnTheServerEventForEventWithItsAudioAndASecondPushSendsNothing() async throws {
        try await Self.withStores { stores in
            let pushed = try await stores.push(["--all", "--actor", "field-tech", "--purpose", "move fixtures"])
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(pushed.stdout.contains("pushed 6 sessions to \(stores.url)"), "\(pushed.stdout)")
            let again = try await stores.push(["--all"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains(": 0 events sent; the server holds them all"), "\(again.stdout)")
            #expect(!again.stdout.split(separator: "\n").dropLast().contains { !$0.contains(": 0 events sent,") }, "\(again.stdout)")
            #expect(try await stores.duplicatesSent() == 0, "no event reached the server twice")
            try await stores.stopServing()

            let local = try await Self.events(in: stores.device)
            let remote = try await Self.events(in: stores.server)
            #expect(local.count == 6)
            #expect(local.values.reduce(0) { $0 + $1.count } > 1000)
            #expect(remote == local, "the server holds the same sessions, events and audio")

            // The push is an export in the device's access log: one record per push, naming actor and purpose.
            let access = try AccessLogCommandsTests.json(await stores.device.runInProcess(["audit", "access", "--format", "json"]).stdout)
            let pushes = access.filter { $0["command"] as? String == "export push" }
            #expect(pushes.count == 2)
            #expect(pushes.first?["actor"] as? String == "field-tech")
            #expect(pushes.first?["purpose"] as? String == "move fixtures")
            #expect((pushes.first?["sessions"] as? [String])?.count == 6)
        }
    }

    @Test func erasingThePersonOnTheServerReachesTheSessionsPushedToIt() async throws {
        try await Self.withStores { stores in
            #expect(try await stores.push(["--all"]).status == 0)
            try await stores.stopServing()
            let erased = try await stores.server.runInProcess(["erase", "--subject", "demo-clinician", "--yes", "--format", "json"])
            #expect(erased.status == 0, "\(erased.stderr)")
            let sessions = try await stores.server.runInProcess(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline).dropFirst()
            #expect(sessions.count == 6)
            #expect(sessions.allSatisfy { $0.split(separator: ",")[1] == "erased" }, "\(sessions)")
        }
    }

    @Test func aPushFromAStoreThatHashesSubjectsWithAnotherKeyIsRefusedWithOneSentenceAndStoresNothing() async throws {
        try await Self.withStores(sharedSubjectKey: false) { stores in
            let pushed = try await stores.push(["--all"])
            #expect(pushed.status == 65, "\(pushed.stdout) \(pushed.stderr)")
            #expect(pushed.stderr.contains("did not take 6 of 6 sessions"), "\(pushed.stderr)")
            #expect(pushed.stderr.contains("field \"subject_key\": is "), "\(pushed.stderr)")
            #expect(pushed.stderr.contains("sessionstore init --subject-key"), "\(pushed.stderr)")
            #expect(!pushed.stderr.contains("{\""), "the server's problem as its sentence, not its JSON: \(pushed.stderr)")
            let again = try await stores.push(["--all"])
            #expect(again.status == 65)
            #expect(again.stderr.contains("on an earlier push"), "\(again.stderr)")
            try await stores.stopServing()
            let sessions = try await stores.server.runInProcess(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline)
            #expect(sessions.count == 1, "nothing stored: \(sessions)")
        }
    }

    @Test func pushRefusesBadInputWithOneSentenceEach() async throws {
        try await Self.withStores { stores in
            let notURL = try await stores.push(["--all"].map { $0 } + ["--to", "ftp://example.com"])
            #expect(notURL.status == 64)
            let noToken = try await stores.device.runInProcess(["push", "--to", stores.url, "--all"], environment: ["SESSIONSTORE_TOKEN": ""])
            #expect(noToken.status == 64)
            #expect(noToken.stderr.contains("SESSIONSTORE_TOKEN (--token-env)"), "\(noToken.stderr)")
            let unknown = try await stores.push(["0badc0de-0000-4000-8000-000000000000"])
            #expect(unknown.status == 65, "\(unknown.stderr)")
            #expect(unknown.stderr.contains("no session 0badc0de"), "\(unknown.stderr)")
            let both = try await stores.push(["--all", "0badc0de"])
            #expect(both.status == 64)
            let badToken = try await stores.device.runInProcess(["push", "--to", stores.url, "--all", "--timeout", "60"],
                                                                environment: ["SESSIONSTORE_TOKEN": "sst_not-a-token"])
            #expect(badToken.status == 77, "\(badToken.stderr)")
            #expect(badToken.stderr.contains("refused the token"), "\(badToken.stderr)")
            // A session the server holds with other events under the same id is not the same session: not sent.
            let other = "7d1a3c2e-0000-4000-8000-00000000abcd"
            let line = { (at: String, id: String) in
                "{\"type\":\"session.started\",\"session\":\"\(other)\",\"id\":\"\(id)\",\"at\":\"\(at)\",\"subject\":\"u\",\"locale\":\"en\"}\n"
            }
            #expect(try await stores.server.runInProcess(["ingest", "-"], input: Data(line("2026-01-01T00:00:00Z", "11111111-0000-4000-8000-000000000001").utf8)).status == 0)
            #expect(try await stores.device.runInProcess(["ingest", "-"], input: Data(line("2026-01-01T00:00:01Z", "11111111-0000-4000-8000-000000000002").utf8)).status == 0)
            let clash = try await stores.push([other])
            #expect(clash.status == 65, "\(clash.stderr)")
            #expect(clash.stderr.contains("which this store's session does not hold: they are not the same session"), "\(clash.stderr)")
            let away = try await stores.device.runInProcess(["push", "--to", "http://127.0.0.1:9", "--all", "--timeout", "2"],
                                                            environment: ["SESSIONSTORE_TOKEN": stores.token])
            #expect(away.status == 69, "\(away.stderr)")
            #expect(away.stderr.contains("could not say what it holds in time"), "\(away.stderr)")
        }
    }

    /// The journey on the built binary: a push SIGKILLed while the server is storing, then run again.
    @Test func aPushKilledMidwayGoesOnWhereItStoppedAndTheServerHoldsEveryEventOnce() async throws {
        try await Self.withStores { stores in
            let local = try await Self.events(in: stores.device)
            let total = local.values.reduce(0) { $0 + $1.count }
            let pushing = try stores.device.start(["push", "--to", stores.url, "--all"], environment: ["SESSIONSTORE_TOKEN": stores.token])
            // Kill it once the server holds part of the store: its live sessions show in the session list.
            let killedAt = try await offThePool { () -> Int in
                let deadline = ContinuousClock.now + .seconds(240)
                while ContinuousClock.now < deadline, pushing.isRunning {
                    let listed = try stores.server.run(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline).count - 1
                    if listed >= 2 { break }
                    usleep(20_000)
                }
                pushing.send(SIGKILL)
                _ = pushing.wait(limit: .seconds(30))
                return try stores.server.run(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline).count - 1
            }
            let resumed = try await offThePool {
                try stores.device.run(["push", "--to", stores.url, "--all"], environment: ["SESSIONSTORE_TOKEN": stores.token])
            }
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let lines = resumed.stdout.split(separator: "\n").dropLast()
            let counts = lines.map { line -> (sent: Int, before: Int) in
                let numbers = line.split(separator: " ").compactMap { Int($0) }
                return (numbers.first ?? 0, numbers.dropFirst().first ?? 0)
            }
            #expect(counts.count == 6, "\(resumed.stdout)")
            #expect(counts.reduce(0) { $0 + $1.sent + $1.before } == total, "each event sent by one push or the other: \(resumed.stdout)")
            // Only what was in flight when the push was killed (a window of 64 per session) may be sent again.
            let duplicates = try await stores.duplicatesSent()
            #expect((0...(6 * 64)).contains(duplicates), "\(duplicates) events sent twice")
            if killedAt < 6 {
                #expect(counts.contains { $0.before > 0 }, "the second push went on after the first: \(resumed.stdout)")
            }
            try await stores.stopServing()
            #expect(try await Self.events(in: stores.server) == local, "the server holds every event once, in order, with its audio")
        }
    }
}
