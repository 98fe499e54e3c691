import Foundation
import TestSupport
import Testing

@Suite struct IngestCommandTests {
    static let session = "3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f"
    static let file = """
    {"type":"session.started","session":"\(session)","at":"2026-11-21T10:00:00.000Z","subject":"user-1","locale":"en-GB"}
    {"type":"consent.granted","session":"\(session)","at":"2026-11-21T10:00:00.100Z","subject":"user-1","consent_type":"transcription","method":"in_app_prompt"}
    {"type":"transcript.committed","session":"\(session)","at":"2026-11-21T10:00:02.000Z","segment":"1","text":"Hello, world.","start_ms":0,"end_ms":1200}
    {"type":"session.ended","session":"\(session)","at":"2026-11-21T10:00:03.000Z"}

    """

    @Test func ingestingAFileTwiceStoresItOnce() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            try Data(Self.file.utf8).write(to: cli.directory.appendingPathComponent("day1.ndjson"))
            let first = try await cli.runInProcess(["ingest", cli.path("day1.ndjson")])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout == "ingested 4 events into 1 session\n")
            let again = try await cli.runInProcess(["ingest", cli.path("day1.ndjson")])
            #expect(again.status == 0)
            #expect(again.stdout == "ingested 0 events into 1 session (4 already stored, skipped)\n")
            let stats = try await cli.runInProcess(["stats", "--format", "json"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
            #expect(json["events"] as? Int == 5)  // four in the session, one consent copy in the subject's trail
            #expect(try await cli.runInProcess(["verify"]).status == 0)
        }
    }

    @Test func aBadFileExitsSixtyFiveListsEveryProblemAndAppendsNothing() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let bad = Self.file + """
            {"type":"transcript.partial","session":"\(Self.session)","at":"2026-11-21T10:00:01Z","segment":"2","revision":-1,"text":"x","start_ms":0,"end_ms":1}
            {"type":"session.paused","session":"\(Self.session)","at":"2026-11-21T10:00:01Z","mood":"tired"}
            """
            try Data(bad.utf8).write(to: cli.directory.appendingPathComponent("bad.ndjson"))
            let outcome = try await cli.runInProcess(["ingest", cli.path("bad.ndjson")])
            #expect(outcome.status == 65)
            #expect(outcome.stderr.contains("bad.ndjson: line 5, field \"revision\": must be between 0 and"))
            #expect(outcome.stderr.contains("bad.ndjson: line 6, field \"mood\": is not a field of this event type"))
            #expect(outcome.stderr.hasSuffix("sessionstore: error: \(cli.path("bad.ndjson")) has 2 problems; nothing was appended\n"))
            let stats = try await cli.runInProcess(["stats", "--format", "json"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
            #expect(json["events"] as? Int == 0)
        }
    }

    @Test func ingestReadsStandardInputAndReportsAMissingFile() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let missing = try await cli.runInProcess(["ingest", cli.path("nowhere.ndjson")])
            #expect(missing.status == 65)
            #expect(missing.stderr.contains("cannot read \(cli.path("nowhere.ndjson"))"))
            // Standard input is read as it comes, not copied first: a temporary directory that cannot
            // be written does not matter.
            let piped = try await cli.runInProcess(["ingest", "-"], environment: ["TMPDIR": "/nonexistent-tmp"], input: Data(Self.file.utf8))
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(piped.stdout.hasPrefix("ingested 4 events"))
            let bad = try await cli.runInProcess(["ingest", "-"], input: Data((Self.file + "{\"type\":").utf8))
            #expect(bad.status == 65)
            #expect(bad.stderr.contains("stdin: line 5"), "\(bad.stderr)")
        }
    }
}
