import Foundation
import Testing

/// tools/format-reader/decode_payloads.py: Google's protobuf library reading our payloads and view rows
/// with docs/session-events.proto and docs/views.proto alone.
public enum ProtobufDecoder {
    static let script = RepositoryFixtures.root.deletingLastPathComponent()
        .appendingPathComponent("tools/format-reader/decode_payloads.py").path

    static let modules = "google.protobuf, grpc_tools"
    /// Whether the tests that need python3 with protobuf and grpcio-tools run (always in CI, where
    /// missing modules fail them: tools/test installs them).
    public static let isAvailable = pythonTestEnabled(modules)

    /// Runs the decoder on `input` (`type TAB hex`, a line each); its output lines, one JSON object each.
    public static func decode(_ input: String) throws -> [Substring] {
        try requirePython(modules)
        let inputURL = Scratch.url("payloads-\(UUID().uuidString).tsv")
        try Data(input.utf8).write(to: inputURL)
        defer { try? FileManager.default.removeItem(at: inputURL) }
        let run = try runPython([script], input: inputURL)
        #expect(run.status == 0, "\(run.stderr)")
        return String(decoding: run.stdout, as: UTF8.self).split(separator: "\n")
    }
}
