import Foundation
import Testing
import TestSupport

/// docs/PERFORMANCE.md's latest full run is a `tools/bench/run` report put there by `tools/bench/publish`, not a copy.
@Suite struct PerformancePublishTests {
    static let root = RepositoryFixtures.root.deletingLastPathComponent()

    @Test func publishReplacesTheLatestRunWithTheReportAndLeavesTheRestAsItWas() throws {
        let scratch = Scratch.url("publish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let original = try String(contentsOf: Self.root.appendingPathComponent("docs/PERFORMANCE.md"), encoding: .utf8)
        let (start, end) = ("<!-- latest full run: tools/bench/publish -->", "<!-- end of the latest full run -->")
        #expect(original.components(separatedBy: start).count == 2 && original.components(separatedBy: end).count == 2,
                "docs/PERFORMANCE.md holds the section once")
        let document = scratch.appendingPathComponent("PERFORMANCE.md"), report = scratch.appendingPathComponent("report.md")
        try original.write(to: document, atomically: true, encoding: .utf8)
        try "| measurement | C reference | EventLog |\n|---|---|---|\n| batched append | 1 | 2 |\n".write(to: report, atomically: true, encoding: .utf8)
        let publish = Self.root.appendingPathComponent("tools/bench/publish").path
        let published = try runPython([publish, report.path, "--doc", document.path, "--commit", "abc1234", "--note", "a quiet hour"])
        #expect(published.status == 0, "\(published.stderr)")
        let after = try String(contentsOf: document, encoding: .utf8)
        #expect(after.contains("\(start)\n`tools/bench/run` at `abc1234`, ") && after.contains(": a quiet hour\n\n| measurement | C reference | EventLog |"))
        #expect(after.components(separatedBy: start).first == original.components(separatedBy: start).first, "what comes before is kept")
        #expect(after.components(separatedBy: end).last == original.components(separatedBy: end).last, "what comes after is kept")

        let unmarked = scratch.appendingPathComponent("other.md")
        try "# No markers here\n".write(to: unmarked, atomically: true, encoding: .utf8)
        let refused = try runPython([publish, report.path, "--doc", unmarked.path])
        #expect(refused.status == 1 && refused.stderr.contains("has no section between"), "\(refused.stderr)")
        #expect(try String(contentsOf: unmarked, encoding: .utf8) == "# No markers here\n")
    }
}
