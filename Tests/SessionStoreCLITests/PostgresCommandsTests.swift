import Foundation
import TestSupport
import Testing

/// The main journeys with `--store postgresql://…`: the same commands, the same answers as on LMDB.
@Suite(PostgresServer.suite) struct PostgresCommandsTests {
    @Test func theDemoOnAPostgreSQLStoreReplaysToTheSameDigestAsOnLMDBAndVerifies() async throws {
        let server = try #require(PostgresServer.current)
        try await withCLI { cli in
            let url = try server.freshDatabase()
            let onPostgres = try cli.run(["demo"], environment: ["SESSIONSTORE_STORE": url])
            #expect(onPostgres.status == 0, "\(onPostgres.stderr)")
            #expect(onPostgres.stdout.contains("Recorded 6 fixture sessions"))
            let onLMDB = try cli.run(["demo", "--store", cli.directory.appendingPathComponent("lmdb.store").path,
                                      "--key-file", cli.directory.appendingPathComponent("lmdb.key").path])
            #expect(onLMDB.status == 0, "\(onLMDB.stderr)")
            let digest = { (output: String) in String(output.split(separator: "\n").last ?? "") }
            #expect(digest(onPostgres.stdout) == digest(onLMDB.stdout), "a replay digest depends on the events, not on where they are kept")

            let again = try cli.run(["demo", "--store", url])
            #expect(again.stdout.contains("0 events appended (all were stored already)"))
            let sessions = try cli.run(["sessions", "--store", url, "--format", "csv"])
            #expect(sessions.stdout.split(separator: "\r\n").count == 7)
            let verify = try cli.run(["verify", "--store", url])
            #expect(verify.status == 0, "\(verify.stderr)")
            // 1,343 records of the fixtures, and each of the two demo runs' access log: the transcript it
            // printed and the session it replayed (access.read).
            #expect(verify.stdout.contains("intact: 1347 records checked"))
            let stats = try cli.run(["stats", "--store", url])
            #expect(stats.stdout.contains("1,347"))
        }
    }

    @Test(.enabled(if: GoProgram.testEnabled))
    func twoServersOverOnePostgreSQLStoreTakeAppendsTogetherWithoutLossOrDuplicates() async throws {
        let server = try #require(PostgresServer.current)
        let load = try GoProgram.build("tools/serve/load")
        try await withCLI { cli in
            let store = ["SESSIONSTORE_STORE": try server.freshDatabase()]
            #expect(try cli.run(["init"], environment: store).status == 0)
            let token = { (scope: String) in
                try cli.run(["tokens", "create", "--scope", scope, "--name", "shared"], environment: store).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let (ingest, read) = (try token("ingest"), try token("read"))
            let servers = try (0..<2).map { _ in try cli.start(["serve", "--listen", "127.0.0.1:0"], environment: store) }
            let urls = try servers.map(ServeCommandTests.listening)
            let acked = urls.indices.map { cli.directory.appendingPathComponent("acked-\($0).txt").path }
            let writers = try zip(urls, acked).map { url, file in
                try ChildProcess(load, ["run", "-url", url, "-token", ingest, "-read-token", read, "-writers", "16", "-readers", "2",
                                        "-duration", "5s", "-acked", file])
            }
            for writer in writers {
                let ran = writer.wait(limit: .seconds(180))
                #expect(ran.status == 0, "\(ran.stderr)")
                let report = try JSONSerialization.jsonObject(with: ran.stdout) as? [String: Any] ?? [:]
                #expect((report["events"] as? Int ?? 0) >= 16, "\(report)")
            }
            let all = cli.directory.appendingPathComponent("acked.txt")
            try Data(try acked.map { try String(contentsOfFile: $0, encoding: .utf8) }.joined().utf8).write(to: all)
            // Either server's tail holds what both acknowledged, each event once, where it was acknowledged.
            for url in urls {
                let verified = try ChildProcess.run(load, ["verify", "-url", url, "-read-token", read, "-acked", all.path], limit: .seconds(300))
                #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderr)")
            }
            for server in servers {
                server.send(SIGTERM)
                let stopped = server.wait(limit: .seconds(60))
                // A server that died under the load says why on its standard error (Swift's crash report).
                #expect(stopped.status == 0, "the server ended with status \(stopped.status): \(stopped.stderr.suffix(6000))")
            }
        }
    }

    @Test func aHotStandbyAnswersSessionsTranscriptsAndConsentIncludingWhatThePrimaryHasNotFoldedYet() async throws {
        let primary = try PostgresServer.start()
        var servers = [primary]
        defer { for server in servers { server.stop() } }
        let standby = try primary.standby()
        servers.append(standby)
        try await withCLI { cli in
            let demo = try cli.run(["demo", "--store", primary.url])  // the primary's views are caught up with the demo
            #expect(demo.status == 0, "\(demo.stderr)")
            // A session the primary's views have not folded: on the standby it is only in the log.
            let session = UUID().uuidString.lowercased()
            let file = cli.directory.appendingPathComponent("replicated.ndjson")
            try Data("""
                {"type":"session.started","session":"\(session)","at":"2026-11-21T10:00:00.000Z","subject":"replica-user","locale":"en"}
                {"type":"consent.granted","session":"\(session)","at":"2026-11-21T10:00:00.100Z","subject":"replica-user","consent_type":"transcription","method":"in_app_prompt"}
                {"type":"transcript.committed","session":"\(session)","at":"2026-11-21T10:00:01.000Z","segment":"1","text":"replicated words","start_ms":0,"end_ms":900}
                """.utf8).write(to: file)
            let ingested = try cli.run(["ingest", "--store", primary.url, file.path])
            #expect(ingested.status == 0, "\(ingested.stderr)")
            let events = try PostgresServer.sql("SELECT count(*) FROM events", on: primary.url)
            let deadline = ContinuousClock.now + .seconds(60)
            while try PostgresServer.sql("SELECT count(*) FROM events", on: standby.url) != events {
                guard ContinuousClock.now < deadline else { Issue.record("the standby never caught up"); return }
                try await Task.sleep(for: .milliseconds(100))
            }

            let sessions = try cli.run(["sessions", "--store", standby.url, "--format", "csv"])
            #expect(sessions.status == 0, "\(sessions.stderr)")
            #expect(sessions.stdout.contains(session))
            let transcript = try cli.run(["transcript", session, "--store", standby.url])
            #expect(transcript.status == 0, "\(transcript.stderr)")
            #expect(transcript.stdout.contains("replicated words"))
            let consent = try cli.run(["audit", "consent", "--session", session, "--store", standby.url, "--format", "csv"])
            #expect(consent.status == 0, "\(consent.stderr)")
            #expect(consent.stdout.contains("transcription"))
            let another = cli.directory.appendingPathComponent("another.ndjson")
            try Data(#"{"type":"session.started","session":"\#(UUID().uuidString.lowercased())","at":"2026-11-21T11:00:00.000Z","subject":"replica-user","locale":"en"}"#.utf8)
                .write(to: another)
            let ingestThere = try cli.run(["ingest", "--store", standby.url, another.path])
            #expect(ingestThere.status == 77)
            #expect(ingestThere.stderr.contains("refuses writes"), "\(ingestThere.stderr)")

            // The primary, once it has folded them, answers the same.
            for (arguments, onStandby) in [(["sessions", "--format", "csv"], sessions), (["transcript", session], transcript),
                                           (["audit", "consent", "--session", session, "--format", "csv"], consent)] {
                let onPrimary = try cli.run(arguments + ["--store", primary.url])
                #expect(onPrimary.stdout == onStandby.stdout, "\(arguments)")
            }
        }
    }

    @Test func anUnreachableServerAWrongKeyAndAnEmptyDatabaseEachExitWithTheirCode() async throws {
        let server = try #require(PostgresServer.current)
        try await withCLI { cli in
            let url = try server.freshDatabase()
            let empty = try cli.run(["sessions", "--store", url])
            #expect(empty.status == 65)
            #expect(empty.stderr.contains("there is no store in the PostgreSQL database") && empty.stderr.contains("sessionstore init"))

            #expect(try cli.run(["init", "--store", url]).status == 0)
            let otherKey = cli.directory.appendingPathComponent("other.key").path
            #expect(try cli.run(["init", "--store", cli.directory.appendingPathComponent("other.store").path, "--key-file", otherKey]).status == 0)
            let wrongKey = try cli.run(["sessions", "--store", url, "--key-file", otherKey])
            #expect(wrongKey.status == 77, "\(wrongKey.stderr)")

            let port = try PostgresServer.closedLoopbackPort()
            let unreachable = try cli.run(["sessions", "--store", "postgresql://postgres:pw@127.0.0.1:\(port)/x?connect_timeout=5"])
            #expect(unreachable.status == 69)
            #expect(unreachable.stderr.contains("cannot reach the PostgreSQL server of postgresql://postgres:***@127.0.0.1"))
            #expect(!unreachable.stderr.contains(":pw@"))
        }
    }
}
