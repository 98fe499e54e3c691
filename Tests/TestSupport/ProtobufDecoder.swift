import Foundation
import Testing

/// tools/format-reader/decode_payloads.py: Google's protobuf library reading our payloads and view rows
/// with docs/session-events.proto and docs/views.proto alone.
public enum ProtobufDecoder {
    static let script = RepositoryFixtures.root.deletingLastPathComponent()
        .appendingPathComponent("tools/format-reader/decode_payloads.py").path

    /// Whether python3 with protobuf and grpcio-tools runs here (tools/test installs them).
    public static let isAvailable = pythonCanImport("google.protobuf, grpc_tools")

    /// Runs the decoder on `input` (`type TAB hex`, a line each); its output lines, one JSON object each.
    public static func decode(_ input: String) throws -> [Substring] {
        // The input goes through a file: a child that exits early cannot break a pipe under us.
        let inputURL = FileManager.default.temporaryDirectory.appendingPathComponent("payloads-\(UUID().uuidString).tsv")
        try Data(input.utf8).write(to: inputURL)
        defer { try? FileManager.default.removeItem(at: inputURL) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        let stdout = Pipe(), stderr = Pipe()
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors)")
        return String(decoding: output, as: UTF8.self).split(separator: "\n")
    }
}
