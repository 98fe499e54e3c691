import EventLog
import Foundation
import SessionStoreTesting
import Testing
import TestSupport

/// `sessionstore pack`: sessions as a folder an app's test target bundles (issue 66).
@Suite struct PackCommandTests {
    @Test func aPackOfTheDemoSessionsRoundTripsItsWAVsAreTheAudioCommandsAndItsExpectationsTheStoredTranscripts() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["demo"]).status == 0)
            let packed = try await cli.runInProcess(["pack", "--all", "--out", cli.path("pack"), "--actor", "qa", "--purpose", "ui tests"])
            #expect(packed.status == 0, "\(packed.stderr)")
            let directory = URL(fileURLWithPath: cli.path("pack"))
            let manifest = try FixturePackManifest.load(from: directory)
            #expect(manifest.sessions.count == 6)
            #expect(manifest.sessions.map(\.session.uuidString) == manifest.sessions.map(\.session.uuidString).sorted())
            for file in manifest.files {
                let data = try Data(contentsOf: directory.appendingPathComponent(file.path))
                #expect(data.count == file.bytes)
                #expect(sha256Hex(data) == file.sha256, "\(file.path)")
            }
            for entry in manifest.sessions {
                let id = entry.session.uuidString.lowercased()
                let audio = try await cli.runInProcess(["audio", id, "--out", cli.path("\(id).wav")])
                #expect(audio.status == 0, "\(audio.stderr)")
                #expect(try Data(contentsOf: directory.appendingPathComponent(entry.recording)) == Data(contentsOf: URL(fileURLWithPath: cli.path("\(id).wav"))),
                        "the pack's WAV is the audio command's, bit for bit")
                let expectation = try FixtureExpectation.load(from: directory.appendingPathComponent(entry.expectation))
                let printed = try await cli.runInProcess(["transcript", id, "--format", "json"])
                let stored = try #require(try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any])
                let segments = try #require(stored["segments"] as? [[String: Any]])
                #expect(expectation.segments.map(\.text) == segments.map { $0["text"] as? String ?? "" })
                #expect(expectation.segments.map(\.startMilliseconds) == segments.map { ($0["start_ms"] as? Int) ?? -1 })
                #expect(expectation.segments.map(\.endMilliseconds) == segments.map { ($0["end_ms"] as? Int) ?? -1 })
                #expect(expectation.recording.file == entry.recording)
                // The store's transcript passes its own expectation, said another way; a transcript that drops a segment does not.
                #expect(expectation.check(expectation.transcript.uppercased().replacingOccurrences(of: ".", with: "")).passed)
                #expect(!expectation.check(expectation.segments.dropFirst().map(\.text).joined(separator: " ")).passed)
            }
            // The same sessions give the same bytes.
            #expect(try await cli.runInProcess(["pack", "--all", "--out", cli.path("again")]).status == 0)
            for file in manifest.files + [.init(path: "manifest.json", bytes: 0, sha256: "")] {
                #expect(try Data(contentsOf: directory.appendingPathComponent(file.path))
                        == Data(contentsOf: URL(fileURLWithPath: cli.path("again")).appendingPathComponent(file.path)), "\(file.path)")
            }
            // One export record naming the actor, the purpose and the six sessions.
            let access = try AccessLogCommandsTests.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout)
            let packs = access.filter { $0["command"] as? String == "export pack" }
            #expect(packs.count == 2)
            #expect(packs.first?["actor"] as? String == "qa" && packs.first?["purpose"] as? String == "ui tests")
            #expect((packs.first?["sessions"] as? [String])?.count == 6)
        }
    }

    @Test(.enabled(if: pythonTestEnabled("jsonschema")))
    func everyExpectationIsValidAgainstItsPublishedSchema() async throws {
        try requirePython("jsonschema")
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["demo"]).status == 0)
            #expect(try await cli.runInProcess(["derive", "--all", "--suite", "ui", "--condition", "gain:-6"]).status == 0)
            let packed = try await cli.runInProcess(["pack", "--suite", "ui", "--out", cli.path("pack"), "--max-word-edits", "3"])
            #expect(packed.status == 0, "\(packed.stderr)")
            let directory = URL(fileURLWithPath: cli.path("pack"))
            let manifest = try FixturePackManifest.load(from: directory)
            #expect(manifest.sessions.count == 6, "the derived sessions of the suite")
            let first = try FixtureExpectation.load(from: directory.appendingPathComponent(try #require(manifest.sessions.first).expectation))
            #expect(first.labels["suite"] == "ui" && first.labels["condition"] == "gain:-6", "\(first.labels)")
            #expect(first.tolerance.maxWordEdits == 3)
            let schema = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("docs/fixture-expectation.schema.json").path
            let script = """
                import json, sys, glob, jsonschema
                schema = json.load(open(sys.argv[1]))
                jsonschema.Draft202012Validator.check_schema(schema)
                files = sorted(glob.glob(sys.argv[2] + "/*.expectation.json"))
                for f in files: jsonschema.validate(json.load(open(f)), schema)
                print(len(files), "valid")
                """
            let checked = try runPython(["-c", script, schema, directory.path])
            #expect(checked.status == 0, "\(checked.stderr)")
            #expect(String(decoding: checked.stdout, as: UTF8.self).contains("6 valid"))
        }
    }

    @Test func badInputIsRefusedWithOneSentenceAndLeavesNothing() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["demo"]).status == 0)
            let taken = cli.path("taken")
            try FileManager.default.createDirectory(atPath: taken, withIntermediateDirectories: true)
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: taken).appendingPathComponent("notes.txt"))
            let full = try await cli.runInProcess(["pack", "--all", "--out", taken])
            #expect(full.status == 65, "\(full.stderr)")
            #expect(full.stderr.contains("exists and is not empty"), "\(full.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: taken) == ["notes.txt"])
            // A session without a recording: refused, and no directory made.
            let session = "7d1a3c2e-0000-4000-8000-00000000abcd"
            let line = "{\"type\":\"session.started\",\"session\":\"\(session)\",\"at\":\"2026-01-01T00:00:00Z\",\"subject\":\"u\",\"locale\":\"en\"}\n"
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(line.utf8)).status == 0)
            let silent = try await cli.runInProcess(["pack", session, "--out", cli.path("silent")])
            #expect(silent.status == 65, "\(silent.stderr)")
            #expect(silent.stderr.contains("has no recording"), "\(silent.stderr)")
            #expect(!FileManager.default.fileExists(atPath: cli.path("silent")))
            #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).allSatisfy { !$0.contains(".partial-") })
            let none = try await cli.runInProcess(["pack", "--out", cli.path("none")])
            #expect(none.status == 64)
            let nobody = try await cli.runInProcess(["pack", "--suite", "nonexistent", "--out", cli.path("nobody")])
            #expect(nobody.status == 65)
            #expect(nobody.stderr.contains("suite=nonexistent"), "\(nobody.stderr)")
        }
    }
}

private func sha256Hex(_ data: Data) -> String {
    SHA256.hash(Array(data)).map { String(format: "%02x", $0) }.joined()
}
