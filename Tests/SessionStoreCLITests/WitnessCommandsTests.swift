import Foundation
import Testing
import TestSupport

/// A store anchored with a witness over HTTP (C2SP tlog-witness, on loopback): the auditor checks the
/// cosignature with the witness's key; a witness restarted remembers what it cosigned; a fork of the
/// store cannot get its cosignature.
@Suite struct WitnessCommandsTests {
    /// Starts `witness serve` on a free loopback port and waits until it listens; the process is
    /// killed when released.
    static func serve(_ cli: CLIRunner, logKey: String) throws -> (process: ChildProcess, url: String) {
        let process = try cli.start(["witness", "serve", "--key-file", "w.key", "--state", "w.state", "--log", logKey, "--listen", "127.0.0.1:0"])
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if let line = process.outputSoFar.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return (process, String(line.dropFirst("listening on ".count)))
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        let outcome = process.wait(limit: .seconds(1))
        throw CLIRunnerFailure("the witness did not start listening: \(outcome.stderr)")
    }

    struct CLIRunnerFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func more(_ id: String, _ text: String) -> Data {
        Data("""
            {"type":"session.started","session":"\(id)","at":"2026-03-01T10:00:00.000Z","subject":"dana","locale":"en"}
            {"type":"transcript.committed","session":"\(id)","at":"2026-03-01T10:00:02.000Z","segment":"a","text":"\(text)","start_ms":0,"end_ms":900}
            """.utf8)
    }

    @Test func aCheckpointCosignedOverHTTPVerifiesWithTheWitnessKeyAndAForkIsRefusedByAWitnessThatRestarted() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Self.more("44444444-4444-4444-8444-444444444444", "first words")).status == 0)
            let logKey = try await cli.runInProcess(["anchor", "--public-key"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let initialised = try await cli.runInProcess(["witness", "init", "--key-file", cli.path("w.key"), "--name", "witness.test/w1"])
            #expect(initialised.status == 0, "\(initialised.stderr)")
            let witnessKey = initialised.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await cli.runInProcess(["witness", "key", "--key-file", cli.path("w.key")]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == witnessKey)
            #expect(try await cli.runInProcess(["witness", "init", "--key-file", cli.path("w.key"), "--name", "again"]).status == 64, "a key file is never overwritten")
            let otherKey = try await cli.runInProcess(["witness", "init", "--key-file", cli.path("other.key"), "--name", "witness.test/w2"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)

            var (witness, url) = try Self.serve(cli, logKey: logKey)
            let first = try await cli.runInProcess(["anchor", "--out", cli.path("cp1.txt"), "--witness", url, "--witness-key", witnessKey])
            #expect(first.status == 0, "\(first.stderr)")
            let checkpoint = try String(contentsOf: cli.directory.appendingPathComponent("cp1.txt"), encoding: .utf8)
            #expect(checkpoint.contains("\n— witness.test/w1 "))
            // The store keeps a record of the checkpoint given out, with the witness that cosigned it.
            let evidence = try await cli.runInProcess(["audit", "integrity", "--format", "json"])
            let records = try #require(try JSONSerialization.jsonObject(with: Data(evidence.stdout.utf8)) as? [[String: Any]], "\(evidence.stderr)")
            #expect(records.first?["kind"] as? String == "checkpoint")
            #expect(records.first?["witnesses"] as? [String] == ["witness.test/w1"])
            #expect(checkpoint.contains("\n\(records.first?["tree_size"] as? Int ?? -1)\n"), "the record names the checkpoint's size")
            #expect(try await cli.runInProcess(["verify", "--anchor", cli.path("cp1.txt"), "--witness-key", witnessKey]).status == 0)
            // The independent reader, from docs/COMPLIANCE.md alone (PyNaCl for Ed25519).
            let reader = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/format-reader/verify_proof.py").path
            let cp1 = cli.directory.appendingPathComponent("cp1.txt").path
            let independent = try runPython([reader, "--cosignature", cp1, witnessKey])
            #expect(independent.status == 0, "\(String(decoding: independent.stdout, as: UTF8.self)) \(independent.stderr)")
            #expect(try runPython([reader, "--cosignature", cp1, otherKey]).status == 1)
            let unwitnessed = try await cli.runInProcess(["verify", "--anchor", cli.path("cp1.txt"), "--witness-key", otherKey])
            #expect(unwitnessed.status == 2 && unwitnessed.stderr.contains("cosignatures"))
            #expect(try await cli.runInProcess(["verify", "--without-key", "--anchor", cli.path("cp1.txt"), "--verifier-key", logKey, "--witness-key", witnessKey]).status == 0)
            #expect(try await cli.runInProcess(["copy", "--to", cli.path("fork.store")]).status == 0, "a copy now: later a fork of the store")

            // The witness stops on SIGTERM and starts again from its state directory.
            witness.send(SIGTERM)
            #expect(witness.wait(limit: .seconds(60)).status == 0)
            (witness, url) = try Self.serve(cli, logKey: logKey)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Self.more("55555555-5555-4555-8555-555555555555", "more words")).status == 0)
            let second = try await cli.runInProcess(["anchor", "--out", cli.path("cp2.txt"), "--witness", url, "--witness-key", witnessKey])
            #expect(second.status == 0, "\(second.stderr)")

            // The fork: the copy, given other events, and more of them than the store has now.
            let rewritten = Self.more("66666666-6666-4666-8666-666666666666", "rewritten") + Data("\n".utf8)
                + Self.more("77777777-7777-4777-8777-777777777777", "rewritten again")
            let forkIngest = try await cli.runInProcess(["ingest", "--store", cli.path("fork.store"), "-"], input: rewritten)
            #expect(forkIngest.status == 0, "\(forkIngest.stderr)")
            let refused = try await cli.runInProcess(["anchor", "--store", cli.path("fork.store"), "--out", cli.path("forged.txt"), "--witness", url])
            #expect(refused.status == 2, "\(refused.stderr)")
            #expect(refused.stderr.contains("HTTP 422") && !FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("forged.txt").path))

            // Another language's HTTP client, hostile requests: the status C2SP tlog-witness gives each.
            let client = """
                import sys, urllib.request, urllib.error
                def post(body):
                    try:
                        return urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/add-checkpoint", data=body.encode(), method="POST")).status
                    except urllib.error.HTTPError as e:
                        return e.code
                checkpoint = open(sys.argv[2]).read()
                print(post("old zero\\n\\n" + checkpoint), post("old 0\\n\\nexample.com/other\\n1\\n" + "A" * 43 + "=\\n\\n"),
                      post("old 1\\n\\n" + checkpoint), post("old 1\\n\\n" + checkpoint.replace("\\n2\\n", "\\n3\\n", 1)))
                """
            let statuses = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                ["python3", "-c", client, url, cli.directory.appendingPathComponent("cp1.txt").path])
            #expect(statuses.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "400 404 409 403", "\(statuses.stderr)")

            let unreachable = try await cli.runInProcess(["anchor", "--out", cli.path("cp3.txt"), "--witness", "http://127.0.0.1:9/"])
            #expect(unreachable.status == 69 && unreachable.stderr.contains("cannot reach"))
            witness.kill()
        }
    }

    @Test func theOfflineWitnessAnswersARequestFileAndRefusesAMalformedOne() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Self.more("44444444-4444-4444-8444-444444444444", "words")).status == 0)
            let logKey = try await cli.runInProcess(["anchor", "--public-key"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await cli.runInProcess(["witness", "init", "--key-file", cli.path("w.key"), "--name", "witness.test/offline"]).status == 0)
            let checkpoint = try await cli.runInProcess(["anchor"]).stdout
            let request = "old 0\n\n" + checkpoint
            let arguments = ["witness", "add-checkpoint", "--key-file", cli.path("w.key"), "--state", cli.path("w.state"), "--log", logKey, "-"]
            let answer = try await cli.runInProcess(arguments, input: Data(request.utf8))
            #expect(answer.status == 0 && answer.stdout.hasPrefix("— witness.test/offline "), "\(answer.stderr)")
            let again = try await cli.runInProcess(arguments, input: Data(request.utf8))
            #expect(again.status == 2 && again.stderr.contains("409"))
            let malformed = try await cli.runInProcess(arguments, input: Data("old zero\n\n".utf8))
            #expect(malformed.status == 65 && malformed.stderr.contains("400"))
            #expect(try await cli.runInProcess(["witness", "add-checkpoint", "--key-file", cli.path("w.key"), "--state", cli.path("w.state"), "-"]).status == 64, "no --log")
        }
    }
}
