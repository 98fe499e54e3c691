import EventLog
import Foundation
@testable import SessionModel
import Testing

/// tools/format-reader/decode_payloads.py decodes payloads with Google's protobuf library and
/// docs/session-events.proto alone: every payload must parse with no unknown field and re-serialise
/// to the same bytes, and its values must be the ones written.
@Suite struct ProtobufCompatibilityTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("tools/format-reader/decode_payloads.py").path

    static var protobufAvailable: Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import google.protobuf, grpc_tools"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

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
                let proposed = SessionEventCodec().encode(event, storedOutsideSession: true)
                input += proposed.type + "\t" + proposed.data.map { String(format: "%02x", $0) }.joined() + "\n"
                expected.append((proposed.type, text))
            }
        }
        // The input goes through a file: a child that exits early cannot break a pipe under us.
        let inputURL = FileManager.default.temporaryDirectory.appendingPathComponent("payloads-\(UUID().uuidString).tsv")
        try Data(input.utf8).write(to: inputURL)
        defer { try? FileManager.default.removeItem(at: inputURL) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script]
        let stdout = Pipe(), stderr = Pipe()
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors)")

        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
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
}
