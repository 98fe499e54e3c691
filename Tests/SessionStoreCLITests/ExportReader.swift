import Foundation
import Testing
import TestSupport

/// tools/format-reader/read_export.py: Python's json + jsonschema, csv + pandas, webvtt-py and srt
/// reading an export, as the people who receive one would.
enum ExportReader {
    static let script = RepositoryFixtures.root.deletingLastPathComponent()
        .appendingPathComponent("tools/format-reader/read_export.py").path
    static let modules = "jsonschema, pandas, webvtt, srt, soundfile"

    /// What the parsers of `kind` (json, csv, vtt, srt) saw in `file`.
    static func read(_ kind: String, _ file: URL) throws -> [String: Any] {
        try requirePython(modules)
        let run = try runPython([script, kind, file.path])
        try #require(run.status == 0, "the \(kind) parser refused \(file.lastPathComponent): \(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    }
}
