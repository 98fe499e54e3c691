import Foundation
import TestSupport
import Testing

/// The main journey: ingest → sessions → transcript → events, through the built binary.
@Suite struct QueryCommandsTests {
    static let session = "3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f"
    static let file = """
    {"type":"session.started","session":"\(session)","at":"2026-11-21T10:00:00.000Z","subject":"user-1","locale":"en-GB"}
    {"type":"consent.granted","session":"\(session)","at":"2026-11-21T10:00:00.100Z","subject":"user-1","consent_type":"transcription","method":"in_app_prompt"}
    {"type":"transcript.partial","session":"\(session)","at":"2026-11-21T10:00:01.000Z","segment":"1","revision":0,"text":"hello","start_ms":0,"end_ms":500}
    {"type":"transcript.committed","session":"\(session)","at":"2026-11-21T10:00:02.000Z","segment":"1","text":"Hello, \\"world\\" — مرحبا 👋","start_ms":0,"end_ms":1200}
    {"type":"transcript.partial","session":"\(session)","at":"2026-11-21T10:00:03.000Z","segment":"2","revision":0,"text":"and then","start_ms":1300,"end_ms":1800}
    {"type":"session.ended","session":"\(session)","at":"2026-11-21T10:00:04.000Z"}
    """

    @Test func ingestThenSessionsTranscriptAndEvents() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(Self.file.utf8)).status == 0)

            let csv = try await cli.runInProcess(["sessions", "--format", "csv"])
            #expect(csv.status == 0)
            let lines = csv.stdout.components(separatedBy: "\r\n")
            try #require(lines.count >= 2, "\(csv.stdout) \(csv.stderr)")
            #expect(lines[0].hasPrefix("session,status,started_at,ended_at,duration_ms,segments,words"))
            #expect(lines[1].hasPrefix("\(Self.session),ended,2026-11-21T10:00:00.000Z,2026-11-21T10:00:04.000Z,4000,1,3,"))  // Hello, world, مرحبا
            #expect(lines[1].contains("+transcription"))

            let sessionsJSON = try await cli.runInProcess(["sessions", "--format", "json"])
            let list = try #require(try JSONSerialization.jsonObject(with: Data(sessionsJSON.stdout.utf8)) as? [[String: Any]])
            #expect(list.count == 1)
            #expect(list.first?["session"] as? String == Self.session)
            #expect(list.first?["status"] as? String == "ended")
            #expect(list.first?["started_at"] as? String == "2026-11-21T10:00:00.000Z")
            #expect(list.first?["started_at"] as? String == "2026-11-21T10:00:00.000Z")
            #expect(list.first?["started"] == nil, "one name per field: the old alias is gone")
            #expect(list.first?["words"] as? Int == 3)
            #expect((list.first?["consent"] as? [String: Bool]) == ["transcription": true])
            let table = try await cli.runInProcess(["sessions"])
            #expect(table.stdout.split(separator: "\n").count == 2)
            #expect(table.stdout.contains("\(Self.session)  ended"))

            let transcript = try await cli.runInProcess(["transcript", Self.session])
            #expect(transcript.stdout == "Hello, \"world\" — مرحبا 👋\n")
            let withPartials = try await cli.runInProcess(["transcript", Self.session, "--partials"])
            #expect(withPartials.stdout == "Hello, \"world\" — مرحبا 👋\n… and then\n")
            let json = try await cli.runInProcess(["transcript", Self.session, "--format", "json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect((object["segments"] as? [[String: Any]])?.first?["text"] as? String == "Hello, \"world\" — مرحبا 👋")

            let events = try await cli.runInProcess(["events", Self.session])
            let decoded = try events.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(decoded.map { $0["type"] as? String } == ["session.started", "consent.granted", "transcript.partial",
                                                              "transcript.committed", "transcript.partial", "session.ended"])
            #expect(decoded.map { $0["stream_number"] as? Int } == [0, 1, 2, 3, 4, 5])
            try #require(!decoded.isEmpty, "\(events.stderr)")
            #expect(decoded[0]["subject_hash"] as? String != nil)
            #expect(decoded[0]["subject"] == nil)
            #expect(!events.stdout.contains("user-1"))

            let consent = try await cli.runInProcess(["consent", "user-1"])
            #expect(consent.status == 0, "\(consent.stderr)")
            let consentLines = consent.stdout.split(separator: "\n")
            #expect(consentLines.count == 2)
            #expect(consentLines.first?.hasPrefix("subject_hash ") == true)
            #expect(consentLines.last?.contains("  \(Self.session)  transcription  granted  in_app_prompt  ") == true)
            #expect(consentLines.last?.contains("  2026-11-21T10:00:00.100Z  ") == true)
            #expect(try await cli.runInProcess(["consent", "nobody"]).status == 65)
        }
    }

    @Test func anUnknownSessionIsAClearErrorAndABadIdAUsageError() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            let unknown = try await cli.runInProcess(["transcript", "00000000-0000-4000-8000-000000000000"])
            #expect(unknown.status == 65)
            #expect(unknown.stderr == "sessionstore: error: the store has no session 00000000-0000-4000-8000-000000000000\n")
            let bad = try await cli.runInProcess(["events", "not-a-session"])
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("not-a-session is not a session id"))
        }
    }
}
