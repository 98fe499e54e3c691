import Audio
import EventLog
import Foundation
import HexCoding
import Ingest
import Migrations
import Output
import SessionAudio
import SessionLog
@testable import SessionModel
import Testing
import TestSupport

/// tools/format-reader/decode_payloads.py decodes payloads with Google's protobuf library and
/// docs/session-events.proto alone: every payload must parse with no unknown field and re-serialise
/// to the same bytes, and its values must be the ones written.
@Suite struct ProtobufCompatibilityTests {
    static let protobufAvailable = ProtobufDecoder.isAvailable

    @Test(.enabled(if: protobufAvailable, "needs python3 with protobuf and grpcio-tools"))
    func everyPayloadDecodesWithGooglesProtobufAndTheProtoFile() throws {
        let codecTests = SessionEventCodecTests()
        let texts = ["plain", "", "عربى مرحبا", "emoji 👩🏽‍⚕️ e\u{301}", "quote \" comma , newline \n tab \t", String(repeating: "x", count: 2000)]
        var input = ""
        var expected: [(type: String, text: String)] = []
        for text in texts {
            let payloads = codecTests.everyPayload(text: text, other: "other", number: 1_234_567, confidence: 0.25)
            for payload in payloads {
                let event = SessionEvent(session: UUID(), occurredAt: -17, correlationID: UUID(), payload: payload)
                let proposed = SessionMigrations.codec.encode(event, storedOutsideSession: true)
                input += proposed.type + "\t" + proposed.data.map { String(format: "%02x", $0) }.joined() + "\n"
                expected.append((proposed.type, text))
            }
        }
        let lines = try ProtobufDecoder.decode(input)
        #expect(lines.count == expected.count)
        for (line, want) in zip(lines, expected) {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["canonical"] as? Bool == true, "\(want.type) is not canonical protobuf: \(line)")
            let message = try #require(json["message"] as? [String: Any])
            #expect(message["schema_version"] as? Int == Int(EventType(rawValue: want.type)!.currentSchemaVersion))
            #expect(message["occurred_at_ms"] as? String == "-17")  // 64-bit integers are strings in protobuf's JSON
            if want.type == "transcript.partial" {
                #expect(message["text"] as? String ?? "" == want.text)
            }
            if want.type == "transcript.committed" {
                #expect(message["text"] as? String == "other" + want.text)
                #expect((message["words"] as? [[String: Any]])?.count == 2)
                #expect(message["confidence"] as? Double == 0.25)
            }
        }
    }

    static let soundfileAvailable = pythonTestEnabled("google.protobuf, grpc_tools, soundfile")

    @Test(.enabled(if: soundfileAvailable, "needs python3 with protobuf, grpcio-tools and soundfile"))
    func storedAudioChunksDecodeWithAnotherFLACDecoderToTheSamplesRecorded() throws {
        try requirePython("google.protobuf, grpc_tools, soundfile")
        var input = ""
        var digests: [String] = []
        for (frames, channels, rate) in [(1600, 1, 16_000), (4410, 2, 44_100), (777, 1, 8000)] {
            var pcm: [UInt8] = []
            for index in 0..<(frames * channels) {
                let sample = Int16(clamping: Int(7000 * sin(Double(index) / 5)) + (index * 7919) % 41 - 20)
                withUnsafeBytes(of: sample.littleEndian) { pcm += $0 }
            }
            let chunk = try RecordingChunk(recording: "r", index: 0, pcm: pcm)
                .codedLosslessly(as: AudioFormat(sampleRate: rate, channels: channels))
            guard case .flac = chunk.audio else { Issue.record("\(frames) frames were not stored as FLAC"); continue }
            let proposed = SessionMigrations.codec.encode(SessionEvent(session: UUID(), occurredAt: 0, payload: .recordingChunk(chunk)))
            input += proposed.type + "\t" + proposed.data.map { String(format: "%02x", $0) }.joined() + "\n"
            digests.append(Hex.string(SHA256.hash(pcm)))
        }
        let lines = try ProtobufDecoder.decode(input)
        #expect(lines.count == digests.count)
        for (line, digest) in zip(lines, digests) {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["canonical"] as? Bool == true)
            #expect(json["flac_pcm_sha256"] as? String == digest)
            let message = try #require(json["message"] as? [String: Any])
            #expect(Data(base64Encoded: message["pcm_sha256"] as? String ?? "").map { Hex.string([UInt8]($0)) } == digest)
        }
    }
}
