import Foundation
import HexCoding
import Output
@testable import Projections
import SessionModel
import Testing
import TestSupport

/// docs/views.proto is the schema of the persisted view rows: Google's protobuf library must read every
/// row we write with it alone, with no unknown field, re-serialising to the same bytes.
@Suite struct ViewRowProtobufTests {
    @Test(.enabled(if: ProtobufDecoder.isAvailable, "needs python3 with protobuf and grpcio-tools"))
    func everyViewRowDecodesWithGooglesProtobufAndTheProtoFile() throws {
        var session = EventBuilder()
        session.start()
        session.add(.consentGranted(ConsentChange(subject: session.subject, consentType: "transcription", method: "in_app_prompt",
                                                  policyVersion: "v2")))
        session.add(.recordingStarted(RecordingStarted(recording: "mic", sampleRate: 16000, channels: 2)))
        session.add(.transcriptCommitted(TranscriptCommitted(
            segment: "s1", text: "Hello, \"world\"", startMilliseconds: 10, endMilliseconds: 900, confidence: 0.75,
            speaker: "Dr. A", words: [TranscriptWord(word: "Hello,", startMilliseconds: 10, endMilliseconds: 400, confidence: 0.5)])))
        session.add(.transcriptCorrected(TranscriptCorrected(segment: "s1", text: "Hello, world")))
        session.partial("s2", 3, "and th", after: 50)
        session.add(.sessionEnded(SessionEnded(reason: nil)))

        var summary = SessionSummary(session: session.session)
        for event in session.events { summary.apply(event) }
        let transcript = TranscriptView.fold(session: session.session, session.events)
        let entry = ConsentTrail.Entry(granted: true, session: session.session, consentType: "transcription",
                                       method: "in_app_prompt", policyVersion: "v2", occurredAt: -5, recordedAt: 1_795_255_200_000)
        let rows = [("view:sessions", summary.rowBytes), ("view:transcripts", transcript.rowBytes),
                    ("view:consent-trail", entry.rowBytes), ("view:transcript-parts", transcript.segmentsRowBytes(0..<1)),
                    ("view:transcript-parts", transcript.partialsRowBytes), ("view:runs", []),
                    ("view:rule-events", [0x08, 0x03])]  // RuleEventsRow { audit_events: 3 }
        let lines = try ProtobufDecoder.decode(rows.map { $0.0 + "\t" + Hex.string($0.1) + "\n" }.joined())
        try #require(lines.count == 7)
        var messages: [[String: Any]] = []
        for (line, row) in zip(lines, rows) {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["canonical"] as? Bool == true, "\(row.0) is not canonical protobuf: \(line)")
            messages.append(try #require(json["message"] as? [String: Any]))
        }
        try #require(messages.count >= 7)
        #expect(messages[6]["auditEvents"] as? String == "3" || messages[6]["audit_events"] as? String == "3" || messages[6]["auditEvents"] as? Int == 3,
                "RuleEventsRow's count: \(messages[6])")
        #expect(messages[0]["locale"] as? String == "en-GB")
        #expect(messages[0]["status"] as? Int == 2)
        #expect((messages[0]["recordings"] as? [[String: Any]])?.first?["channels"] as? Int == 2)
        #expect((messages[0]["consent"] as? [[String: Any]])?.first?["consent_type"] as? String == "transcription")
        let segment = try #require((messages[1]["segments"] as? [[String: Any]])?.first)
        #expect(segment["text"] as? String == "Hello, \"world\"")
        #expect(segment["correction"] as? String == "Hello, world")
        #expect(segment["confidence"] as? Double == 0.75)
        #expect((segment["words"] as? [[String: Any]])?.first?["confidence"] as? Double == 0.5)
        #expect((messages[1]["partials"] as? [[String: Any]])?.first?["revision"] as? Int == 3)
        #expect(messages[2]["granted"] as? Bool == true)
        #expect(messages[2]["occurred_at_ms"] as? String == "-5")  // 64-bit integers are strings in protobuf's JSON
        #expect(messages[2]["policy_version"] as? String == "v2")
        // The transcript's parts, each a row of its own: a segment alone, the partials alone, together the whole row.
        #expect((messages[3]["segments"] as? [[String: Any]])?.first?["correction"] as? String == "Hello, world")
        #expect(messages[3]["partials"] == nil)
        #expect((messages[4]["partials"] as? [[String: Any]])?.first?["text"] as? String == "and th")
        #expect(messages[4]["segments"] == nil)
        #expect(transcript.segmentsRowBytes(0..<1) + transcript.partialsRowBytes == transcript.rowBytes)
    }
}
