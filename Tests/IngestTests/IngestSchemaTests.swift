import Foundation
import TestSupport
import Testing

/// docs/ingest.schema.json must accept what ingest accepts and reject the structural errors ingest
/// rejects: checked with Python's jsonschema, an independent validator.
@Suite struct IngestSchemaTests {
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/ingest.schema.json").path

    static let jsonschemaAvailable = pythonTestEnabled("jsonschema")

    /// Validates each line; returns, per line, whether the schema accepts it.
    func validate(_ lines: [String]) throws -> [Bool] {
        let script = """
        import json, sys, jsonschema
        validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
        for line in sys.stdin:
            print("ok" if validator.is_valid(json.loads(line)) else "bad")
        """
        let input = Scratch.url("schema-\(UUID().uuidString).ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, Self.schema], input: input)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let text = outcome.stdoutText
        return text.split(separator: "\n").map { $0 == "ok" }
    }

    @Test(.enabled(if: jsonschemaAvailable, "needs python3 with jsonschema"))
    func theSchemaAcceptsEveryLineOfAValidFile() throws {
        let lines = SessionIngestTests.validFile().split(separator: "\n").map(String.init)
        #expect(try validate(lines) == Array(repeating: true, count: lines.count))
    }

    @Test(.enabled(if: jsonschemaAvailable, "needs python3 with jsonschema"))
    func theSchemaAcceptsASessionsLabels() throws {
        let line = #"{"type":"session.started","session":"\#(SessionIngestTests.session)","at":"2026-11-21T10:00:00Z","subject":"u","locale":"en","labels":{"suite":"nightly","condition":"noise:white:10"}}"#
        #expect(try validate([line]) == [true])
    }

    @Test(.enabled(if: jsonschemaAvailable, "needs python3 with jsonschema"))
    func theSchemaRejectsStructuralErrors() throws {
        let session = SessionIngestTests.session
        let bad = [
            #"{"type":"session.started","session":"\#(session)","at":"2026-11-21T10:00:00Z","locale":"en"}"#,  // no subject
            #"{"type":"session.paused","session":"\#(session)","at":"2026-11-21T10:00:00Z","mood":"x"}"#,  // unknown field
            #"{"type":"teleported","session":"\#(session)","at":"2026-11-21T10:00:00Z"}"#,  // unknown type
            #"{"type":"session.resumed","session":"nope","at":"2026-11-21T10:00:00Z"}"#,  // bad uuid
            #"{"type":"session.resumed","session":"\#(session)","at":"2026-11-21T10:00:00+02:00"}"#,  // not UTC
            #"{"type":"transcript.partial","session":"\#(session)","at":"2026-11-21T10:00:00Z","segment":1,"revision":true,"text":"","start_ms":0,"end_ms":1}"#,
            #"{"type":"subject.erased","session":"\#(session)","at":"2026-11-21T10:00:00Z"}"#,  // store-written
            #"{"type":"session.started","session":"\#(session)","at":"2026-11-21T10:00:00Z","subject":"u","locale":"en","labels":{"Team":"x"}}"#,
            #"{"type":"session.started","session":"\#(session)","at":"2026-11-21T10:00:00Z","subject":"u","locale":"en","labels":{"team":7}}"#,
        ]
        #expect(try validate(bad) == Array(repeating: false, count: bad.count))
    }
}
