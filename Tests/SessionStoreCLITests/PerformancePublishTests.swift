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

    /// The "Current figures" rows that `tools/bench/run` measures quote the report: a figure lives in one place.
    @Test func publishMakesTheCurrentFiguresRowsOfTheBenchmarkFromTheReport() throws {
        let scratch = Scratch.url("publish-rows-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let document = scratch.appendingPathComponent("PERFORMANCE.md"), report = scratch.appendingPathComponent("report.md")
        let original = try String(contentsOf: Self.root.appendingPathComponent("docs/PERFORMANCE.md"), encoding: .utf8)
        try original.write(to: document, atomically: true, encoding: .utf8)
        try """
            | measurement | C reference | EventLog | EventLog / C |
            |---|---|---|---|
            | batched append, ~180-byte events (events/s) | 1 | 2 | 1.11× (1.10–1.12) |
            | full scan, decrypt + decompress, small (events/s, warm) | 1 | 4 | 4.44× (4.40–4.50) |
            | bytes on disk / raw payload, small | 1.050 | 1.333 | |
            | bytes on disk / raw payload, pcm | 1.250 | 1.055 | |
            | verify: leaf check, Merkle tree rebuilt and checked, decrypt, decompress, index (events/s); C: scan | 1 | 2 | 2.22× (2.20–2.30) |

            1. GRDB.swift over SQLite
            2. SQLCipher 3.4.1

            | measurement | EventLog | peer 1 | EventLog / peer 1 | peer 2 | EventLog / peer 2 |
            |---|---|---|---|---|---|
            | batched append, ~180-byte events (events/s) | 2 | 1 | 2.00× | 1 | 1.91× (1.90–1.92) |
            | full scan with decryption, small (events/s, warm) | 4 | 1 | 4.00× | 2 | 1.81× (1.80–1.82) |
            | transcript read: every event of one session of 1,000, opened (sessions/s) | 3 | 1 | 3.00× | 2 | 1.71× (1.70–1.72) |
            | transcript read: one session, p50 (ms) | 0.41 | 1 | 2.44× | 0.70 | 1.71× |
            | full scan, PCM chunks (chunks/s, warm) | 3 | 1 | 3.00× | 1 | 1.61× (1.60–1.62) |
            | durable appends, 64 appenders of one event each (events/s) | 9 | 1 | 9.00× | 1 | 19.1× (19.0–19.2) |
            | bytes on disk / raw payload, small | 1.333 | 1.300 |  | 1.400 |  |
            | bytes on disk / raw payload, pcm | 1.055 | 1.270 |  | 1.290 |  |
            """.write(to: report, atomically: true, encoding: .utf8)
        let published = try runPython([Self.root.appendingPathComponent("tools/bench/publish").path, report.path, "--doc", document.path])
        #expect(published.status == 0, "\(published.stderr)")
        let rows = try String(contentsOf: document, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("| engine ÷") || $0.hasPrefix("| bytes on disk ÷") }
        #expect(rows.count == 4)
        // The goal and rerun cells are the document's own: only the figures come from the report.
        let engineRow = "| engine ÷ the C reference: batched append / full scan / `verify` |"
        let goalAndRerun = try #require(original.split(separator: "\n").first { $0.hasPrefix(engineRow) })
            .split(separator: "|", omittingEmptySubsequences: false).dropFirst(3).joined(separator: "|")
        #expect(rows.contains { $0 == "\(engineRow) 1.11× (1.10–1.12) / 4.44× (4.40–4.50) / 2.22× (2.20–2.30) (the latest full run) |\(goalAndRerun)" })
        #expect(rows.contains { $0.contains("| 1.81× (1.80–1.82) / 1.71× (1.70–1.72); a transcript's p50 0.41 against 0.70 ms (the latest full run) |") })
        #expect(rows.contains { $0.contains("| 1.91× (1.90–1.92) / 1.61× (1.60–1.62) / 19.1× (19.0–19.2) (the latest full run) |") })
        #expect(rows.contains { $0.contains("| 1.333 / 1.055 (SQLCipher 1.400 / 1.290, the C reference 1.050 / 1.250) (the latest full run) | | `tools/bench/run` |") })
    }
}
