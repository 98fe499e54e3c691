import Foundation
import Testing
import TestSupport

/// tools/format-reader/read_report.py: Python's HTML parser, the SVG parsed as XML, the embedded
/// recording decoded with soundfile.
enum ReportReader {
    static let script = RepositoryFixtures.root.deletingLastPathComponent()
        .appendingPathComponent("tools/format-reader/read_report.py").path

    /// What the reader saw in the page `html`; with `wav`, whether the embedded audio has its samples.
    static func read(_ html: Data, comparingWith wav: URL? = nil) throws -> [String: Any] {
        try requirePython("numpy, soundfile")
        let page = Scratch.url("report-\(UUID().uuidString).html")
        try html.write(to: page)
        defer { try? FileManager.default.removeItem(at: page) }
        let run = try runPython([script, page.path] + (wav.map { [$0.path] } ?? []))
        try #require(run.status == 0, "the report reader refused the page: \(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    }
}
