import Compliance
import EventLog
import Foundation
import Hummingbird
@testable import SessionServer
import Testing

/// Exports, audio with byte ranges, the HTML report and `audit check` over HTTP.
@Suite struct ContentRouteTests {
    /// A session with a recording of 0.2 s (16 kHz mono) whose samples count up, and a committed segment.
    static func recordedSession() -> (session: UUID, body: String) {
        let session = UUID()
        let id = session.uuidString.lowercased()
        let samples = (0..<3200).flatMap { value -> [UInt8] in let v = Int16(value % 2000); return [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        let pcm = Data(samples).base64EncodedString()
        let body = """
            {"type":"session.started","session":"\(id)","at":"2026-11-21T10:00:00.000Z","subject":"dana","locale":"en-US"}
            {"type":"consent.granted","session":"\(id)","at":"2026-11-21T10:00:00.100Z","subject":"dana","consent_type":"audio_recording","method":"in_app_prompt"}
            {"type":"recording.started","session":"\(id)","at":"2026-11-21T10:00:00.200Z","recording":"mic","sample_rate":16000,"channels":1}
            {"type":"recording.chunk","session":"\(id)","at":"2026-11-21T10:00:00.300Z","recording":"mic","index":0,"pcm":"\(pcm)"}
            {"type":"recording.stopped","session":"\(id)","at":"2026-11-21T10:00:00.500Z","recording":"mic"}
            {"type":"transcript.committed","session":"\(id)","at":"2026-11-21T10:00:01.000Z","segment":"1","text":"Hello world","start_ms":0,"end_ms":200}

            """
        return (session, body)
    }

    @Test func aSessionExportsInEveryFormatAndEachExportIsRecorded() async throws {
        try await withServer { fixture in
            let (session, body) = Self.recordedSession()
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body)).status == .ok)
                let expected = ["json": "application/json", "csv": "text/csv; charset=utf-8", "vtt": "text/vtt; charset=utf-8",
                                "srt": "application/x-subrip; charset=utf-8"]
                for (format, type) in expected {
                    let answer = try await client.execute(uri: "/v1/sessions/\(session)/export?format=\(format)", method: .get, headers: fixture.bearer(.read))
                    #expect(answer.status == .ok, "\(format): \(answer.text)")
                    #expect(answer.headers[.contentType] == type)
                    #expect(answer.text.contains("Hello world"), "\(format)")
                }
                #expect(try await client.execute(uri: "/v1/sessions/\(session)/export?format=vtt", method: .get, headers: fixture.bearer(.read))
                    .text.hasPrefix("WEBVTT"))
                #expect(try await client.execute(uri: "/v1/sessions/\(session)/export?format=pdf", method: .get, headers: fixture.bearer(.read))
                    .status == .badRequest)
                #expect(try await client.execute(uri: "/v1/sessions/\(session)/export", method: .get, headers: fixture.bearer(.audit))
                    .status == .forbidden)
            }
            let exports = try AccessLog(log: fixture.log).entries(session: session).filter { $0.command.hasPrefix("export") }
            #expect(exports.count == 5, "\(exports)")
            #expect(exports.allSatisfy { $0.actor.hasPrefix("token read (") })
        }
    }

    @Test func audioIsServedWholeOrByTheByteRangeAsked() async throws {
        try await withServer { fixture in
            let (session, body) = Self.recordedSession()
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body)).status == .ok)
                let whole = try await client.execute(uri: "/v1/sessions/\(session)/audio", method: .get, headers: fixture.bearer(.read))
                #expect(whole.status == .ok)
                #expect(whole.headers[.contentType] == "audio/wav")
                #expect(whole.headers[.acceptRanges] == "bytes")
                let bytes = Array(whole.body.readableBytesView)
                #expect(bytes.count == 44 + 6400, "a WAV header and 3,200 16-bit samples")
                #expect(Array(bytes.prefix(4)) == Array("RIFF".utf8))
                let head = try await client.execute(uri: "/v1/sessions/\(session)/audio", method: .head, headers: fixture.bearer(.read))
                #expect(head.status == .ok && head.headers[.contentType] == "audio/wav", "HEAD answers as GET does, without the body: \(head.text)")
                #expect(head.body.readableBytes == 0)

                var ranged = fixture.bearer(.read)
                ranged[.range] = "bytes=100-199"
                let part = try await client.execute(uri: "/v1/sessions/\(session)/audio", method: .get, headers: ranged)
                #expect(part.status == .partialContent)
                #expect(part.headers[.contentRange] == "bytes 100-199/\(bytes.count)")
                #expect(Array(part.body.readableBytesView) == Array(bytes[100..<200]))
                ranged[.range] = "bytes=-10"
                #expect(Array(try await client.execute(uri: "/v1/sessions/\(session)/audio", method: .get, headers: ranged).body.readableBytesView)
                        == Array(bytes.suffix(10)))
                ranged[.range] = "bytes=999999-"
                let past = try await client.execute(uri: "/v1/sessions/\(session)/audio", method: .get, headers: ranged)
                #expect(past.status == .rangeNotSatisfiable)
                #expect(past.headers[.contentRange] == "bytes */\(bytes.count)")

                let flac = try await client.execute(uri: "/v1/sessions/\(session)/audio?format=flac", method: .get, headers: fixture.bearer(.read))
                #expect(flac.headers[.contentType] == "audio/flac")
                #expect(Array(flac.body.readableBytesView.prefix(4)) == Array("fLaC".utf8))
                #expect(try await client.execute(uri: "/v1/sessions/\(session)/audio?recording=other", method: .get, headers: fixture.bearer(.read))
                    .status == .notFound)
            }
            let reads = try AccessLog(log: fixture.log).entries(session: session).filter { $0.command == "audio" }
            #expect(reads.count == 2, "a read is recorded for each request from byte 0 (the WAV and the FLAC), not for each seek: \(reads.count)")
        }
    }

    @Test func theReportIsHTMLAndAuditCheckListsViolationsForAnAuditor() async throws {
        try await withServer { fixture in
            let (session, body) = Self.recordedSession()
            // A transcript with no transcription consent: a violation `audit check` reports.
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body)).status == .ok)
                let report = try await client.execute(uri: "/v1/sessions/\(session)/report?audio=false", method: .get, headers: fixture.bearer(.read))
                #expect(report.status == .ok)
                #expect(report.headers[.contentType] == "text/html; charset=utf-8")
                #expect(report.text.contains("<html") && report.text.contains("Hello world"))
                let check = try await client.execute(uri: "/v1/audit/check", method: .get, headers: fixture.bearer(.audit))
                #expect(check.status == .ok)
                let violations = try JSONSerialization.jsonObject(with: Data(buffer: check.body)) as? [[String: Any]]
                #expect(violations?.contains { $0["session"] as? String == session.uuidString.lowercased() } == true, "\(check.text)")
                #expect(try await client.execute(uri: "/v1/audit/check", method: .get, headers: fixture.bearer(.read)).status == .forbidden)
            }
        }
    }
}

extension ContentRouteTests {
    @Test(arguments: [
        ("bytes=0-9", 0..<10), ("bytes=95-", 95..<100), ("bytes=-5", 95..<100), ("bytes=90-500", 90..<100),
        ("bytes=0-9223372036854775807", 0..<100), ("bytes=-1000", 0..<100),
    ])
    func aRangeIsClampedToTheBody(header: String, expected: Range<Int>) {
        #expect(RangeRequest(header, length: 100)?.range == expected)
    }

    @Test(arguments: ["bytes=100-", "bytes=200-300", "bytes=9223372036854775807-"])
    func aRangeStartingPastTheEndIsUnsatisfiable(header: String) {
        #expect(RangeRequest(header, length: 100) != nil)
        #expect(RangeRequest(header, length: 100)?.range == nil)
    }

    @Test(arguments: ["bytes=5-2", "bytes=0-1,5-6", "items=0-5", "bytes=abc", "bytes=--5", "bytes=-0", "bytes=99999999999999999999-"])
    func aRangeThisServerCannotReadIsAnsweredWhole(header: String) {
        #expect(RangeRequest(header, length: 100) == nil)
    }
}

extension ContentRouteTests {
    @Test func anAuditorGetsTheSignedCheckpointAndATlogProofOfARecordThatVerifiesAgainstIt() async throws {
        try await withServer { fixture in
            let (session, body) = Self.recordedSession()
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body)).status == .ok)
                let key = try await client.execute(uri: "/v1/checkpoint/verifier-key", method: .get, headers: fixture.bearer(.audit)).text
                #expect(key == fixture.log.checkpointVerifierKey + "\n")
                let note = try await client.execute(uri: "/v1/checkpoint", method: .get, headers: fixture.bearer(.audit))
                #expect(note.status == .ok)
                let checkpoint = try Checkpoint.verified(note.text, verifierKey: fixture.log.checkpointVerifierKey)
                // The checkpoint given out is recorded after it (checkpoint.issued), with the token it was given to.
                #expect(checkpoint.size == (try fixture.log.eventCount()) - 1)
                let issued = try #require(try IntegrityEvidence(log: fixture.log).latest().checkpoints.first)
                #expect(issued.payload.treeSize == checkpoint.size && issued.payload.rootHash == checkpoint.rootHash)
                #expect(issued.payload.actor.hasPrefix("token audit ("))
                #expect(issued.position == checkpoint.size)
                let proof = try await client.execute(uri: "/v1/sessions/\(session)/proofs/3", method: .get, headers: fixture.bearer(.audit))
                #expect(proof.status == .ok)
                #expect(proof.text.hasPrefix("c2sp.org/tlog-proof@v1\nextra "))
                let now = try fixture.log.signedCheckpoint()
                #expect(proof.text.hasSuffix(now.text), "the proof carries the checkpoint it is against")
                #expect(try await client.execute(uri: "/v1/sessions/\(session)/proofs/99", method: .get, headers: fixture.bearer(.audit)).status == .notFound)
                #expect(try await client.execute(uri: "/v1/checkpoint", method: .get, headers: fixture.bearer(.read)).status == .forbidden)

                // The auditor kept that checkpoint; the log grows; the server proves it extends it.
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: Self.recordedSession().body)).status == .ok)
                let consistency = try await client.execute(uri: "/v1/checkpoint/consistency", method: .post, headers: fixture.bearer(.audit),
                                                           body: ByteBuffer(string: note.text))
                #expect(consistency.status == .ok, "\(consistency.text)")
                #expect(consistency.object["old_size"] as? Int == Int(checkpoint.size))
                #expect(consistency.object["new_size"] as? Int == Int(try fixture.log.eventCount()))
                #expect((consistency.object["consistency_path"] as? [String])?.isEmpty == false)
                let forged = note.text.replacingOccurrences(of: "\n\(checkpoint.size)\n", with: "\n\(checkpoint.size + 1)\n")
                let refused = try await client.execute(uri: "/v1/checkpoint/consistency", method: .post, headers: fixture.bearer(.audit),
                                                       body: ByteBuffer(string: forged))
                #expect(refused.status == .conflict && refused.object["type"] as? String == "urn:sessionstore:problem:inconsistent",
                        "a checkpoint whose signature fails, by its error's kind: \(refused.text)")
                let malformed = try await client.execute(uri: "/v1/checkpoint/consistency", method: .post, headers: fixture.bearer(.audit),
                                                         body: ByteBuffer(string: "not a checkpoint"))
                #expect(malformed.status == .unprocessableContent, "\(malformed.text)")
            }
        }
    }
}
