import Foundation
import SessionServer
import Testing
import TestSupport

/// `sessionstore serve` on the built binary, driven by a client in another language (Python's
/// `requests` and raw sockets, tools/serve/client_check.py), and stopped with SIGTERM.
@Suite struct ServeCommandTests {
    /// Starts `serve` on a free loopback port and waits until it listens; the process is killed when released.
    static func serve(_ cli: CLIRunner) throws -> (process: ChildProcess, url: String) {
        let process = try cli.start(["serve", "--listen", "127.0.0.1:0", "--idle-timeout", "2", "--header-timeout", "3"])
        return (process, try listening(process))
    }

    /// The URL `process` (a starting `serve`) prints once it listens.
    static func listening(_ process: ChildProcess) throws -> String {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if let line = process.outputSoFar.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return String(line.dropFirst("listening on ".count))
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

    @Test(.enabled(if: pythonTestEnabled("jwt, cryptography, requests")))
    func jwtsOfAnIdentityProviderAreCheckedForSignatureTimeIssuerAudienceAndScope() async throws {
        try requirePython("jwt, cryptography, requests")
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            let script = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/serve/jwt_check.py").path
            let keys = cli.directory.appendingPathComponent("idp").path
            let made = try runPython([script, "keys", keys])
            #expect(made.status == 0, "\(made.stderr)")
            let process = try cli.start(["serve", "--listen", "127.0.0.1:0", "--jwks", "idp/jwks.json", "--jwt-issuer", "https://idp.test",
                                         "--jwt-audience", "sessionstore"])
            let url = try Self.listening(process)
            let checked = try runPython([script, "check", url, keys], limit: .seconds(120))
            #expect(checked.status == 0, "\(String(decoding: checked.stdout, as: UTF8.self)) \(checked.stderr)")
            #expect(String(decoding: checked.stdout, as: UTF8.self).contains("all checks passed"))
            process.send(SIGTERM)
            #expect(process.wait(limit: .seconds(60)).status == 0)
            let empty = try cli.run(["serve", "--listen", "127.0.0.1:0", "--jwks", "idp/none.json"])
            #expect(empty.status == 64, "an unreadable key set stops the server before it listens: \(empty.stderr)")
        }
    }

    /// A client that trusts the test's certificate reads over HTTPS and records live over WSS; plain
    /// HTTP to the TLS port gets no answer, and the server keeps serving.
    static let tlsClient = """
        import json, socket, ssl, sys, uuid
        import requests
        from websockets.sync.client import connect
        url, certificate, token, ingest = sys.argv[1:5]
        assert requests.get(url + "/healthz", verify=certificate, timeout=10).json() == {"status": "ok"}
        assert requests.get(url + "/v1/sessions", headers={"Authorization": "Bearer " + token}, verify=certificate, timeout=10).status_code == 200
        try:
            requests.get(url + "/healthz", timeout=10)
            raise SystemExit("a client that does not trust the certificate got an answer")
        except requests.exceptions.SSLError:
            pass
        host, port = url.split("//")[1].split(":")
        with socket.create_connection((host, int(port)), timeout=10) as plain:
            plain.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            assert not plain.recv(4096).startswith(b"HTTP/1.1 200"), "plain HTTP on the TLS port"
        context = ssl.create_default_context(cafile=certificate)
        session = str(uuid.uuid4())
        with connect(url.replace("https", "wss") + "/v1/sessions/" + session + "/live", ssl=context,
                     additional_headers={"Authorization": "Bearer " + ingest}) as live:
            assert json.loads(live.recv(timeout=10))["stored"] == 0
            live.send(json.dumps({"type": "session.started", "session": session, "at": "2026-11-26T10:00:00.000Z", "subject": "x", "locale": "en"}))
            assert "position" in json.loads(live.recv(timeout=10))
        assert requests.get(url + "/healthz", verify=certificate, timeout=10).status_code == 200
        print("all checks passed")
        """

    @Test func aBuildWithoutTLSSaysHowToGetItInOneSentence() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            let refused = try cli.run(["serve", "--listen", "127.0.0.1:0", "--tls-certificate", "cert.pem", "--tls-key", "key.pem"])
            if SessionServer.supportsTLS {
                #expect(refused.status == 64, "the certificate file does not exist: \(refused.stderr)")
                #expect(refused.stderr.contains("cert.pem"))
            } else {
                #expect(refused.status == 64)
                #expect(refused.stderr.contains("built without TLS: build it with `swift build --traits TLS`"), "\(refused.stderr)")
            }
        }
    }

    @Test(.enabled(if: SessionServer.supportsTLS && pythonTestEnabled("requests, websockets")))
    func theServerSpeaksHTTPSAndWSSWithACertificateAndKey() async throws {
        try requirePython("requests, websockets")
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            let made = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", "key.pem", "-out", "cert.pem",
            ], directory: cli.directory, limit: .seconds(60))
            #expect(made.status == 0, "\(made.stderr)")
            let read = try cli.run(["tokens", "create", "--scope", "read", "--name", "tls"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let ingest = try cli.run(["tokens", "create", "--scope", "ingest", "--name", "tls"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let process = try cli.start(["serve", "--listen", "127.0.0.1:0", "--tls-certificate", "cert.pem", "--tls-key", "key.pem"])
            let url = try Self.listening(process)
            #expect(url.hasPrefix("https://"))
            let checked = try runPython(["-c", Self.tlsClient, url, cli.directory.appendingPathComponent("cert.pem").path, read, ingest],
                                        limit: .seconds(120))
            #expect(checked.status == 0, "\(String(decoding: checked.stdout, as: UTF8.self)) \(checked.stderr)")
            #expect(String(decoding: checked.stdout, as: UTF8.self).contains("all checks passed"))
            process.send(SIGTERM)
            #expect(process.wait(limit: .seconds(60)).status == 0)
            #expect(try cli.run(["serve", "--tls-certificate", "key.pem", "--tls-key", "key.pem"]).status == 64, "a key is not a certificate")
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

/// Many writers and readers at once, and a server killed in the middle of them: checked with a Go
/// client (tools/serve/load, Go's standard library only) against the log's tail.
@Suite struct ServeLoadTests {
    /// init, an ingest and a read token, and a server listening.
    static func prepared(_ cli: CLIRunner) throws -> (ingest: String, read: String) {
        #expect(try cli.run(["init"]).status == 0)
        let ingest = try cli.run(["tokens", "create", "--scope", "ingest", "--name", "load"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let read = try cli.run(["tokens", "create", "--scope", "read", "--name", "check"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (ingest, read)
    }

    @Test(.enabled(if: GoProgram.testEnabled))
    func sixtyFourWritersAndSixteenReadersLoseNothingAndStoreNothingTwice() async throws {
        let load = try GoProgram.build("tools/serve/load")
        try await withCLI { cli in
            let (ingest, read) = try Self.prepared(cli)
            let (server, url) = try ServeCommandTests.serve(cli)
            let acked = cli.directory.appendingPathComponent("acked.txt").path
            let run = try ChildProcess.run(load, ["run", "-url", url, "-token", ingest, "-read-token", read, "-writers", "64", "-readers", "16",
                                                  "-duration", "8s", "-acked", acked], limit: .seconds(300))
            #expect(run.status == 0, "\(run.stderr)")
            let report = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any] ?? [:]
            #expect((report["events"] as? Int ?? 0) >= 64, "every writer was acknowledged at least once: \(report)")
            #expect((report["reads"] as? Int ?? 0) > 0)
            let verified = try ChildProcess.run(load, ["verify", "-url", url, "-read-token", read, "-acked", acked], limit: .seconds(300))
            #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderr)")
            #expect(verified.stdoutText.contains("\"verified\":true"))
            server.send(SIGTERM)
            #expect(server.wait(limit: .seconds(60)).status == 0)
        }
    }

    /// Through `POST /v1/events`, and through each session's live WebSocket (`live`).
    @Test(.enabled(if: GoProgram.testEnabled), arguments: [false, true])
    func everyEventAcknowledgedBeforeTheServerIsKilledIsStoredAfterItRestarts(live: Bool) async throws {
        let load = try GoProgram.build("tools/serve/load")
        try await withCLI { cli in
            let (ingest, read) = try Self.prepared(cli)
            let (server, url) = try ServeCommandTests.serve(cli)
            let acked = cli.directory.appendingPathComponent("acked.txt")
            let writers = try ChildProcess(load, ["run", "-url", url, "-token", ingest, "-read-token", read, "-writers", "16", "-readers", "2",
                                                  "-duration", "6s", "-give-up", "2s", "-acked", acked.path] + (live ? ["-live"] : []))
            // Kill the server (SIGKILL: no shutdown at all) once a few hundred events are acknowledged.
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline, ((try? String(contentsOf: acked, encoding: .utf8))?.split(separator: "\n").count ?? 0) < 300 {
                try await Task.sleep(for: .milliseconds(20))
            }
            server.kill()
            _ = server.wait(limit: .seconds(30))
            let ran = writers.wait(limit: .seconds(120))
            #expect(ran.status == 0, "\(ran.stderr)")
            let acknowledged = try String(contentsOf: acked, encoding: .utf8).split(separator: "\n").count
            #expect(acknowledged >= 300)

            let (restarted, newURL) = try ServeCommandTests.serve(cli)
            let verified = try ChildProcess.run(load, ["verify", "-url", newURL, "-read-token", read, "-acked", acked.path], limit: .seconds(300))
            #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderr)")
            #expect(verified.stdoutText.contains("\"acknowledged\":\(acknowledged)"), "\(verified.stdoutText)")
            restarted.send(SIGTERM)
            #expect(restarted.wait(limit: .seconds(60)).status == 0)
            #expect(try cli.run(["verify"]).status == 0, "the store verifies after the kill")
        }
    }
}
