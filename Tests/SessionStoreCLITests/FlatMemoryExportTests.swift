import Foundation
import Testing
import TestSupport

#if os(Linux)
/// `export --all` of ten times the segments must not take ten times the memory: rows are written as
/// they are made. Measured on the built binary, whose heap starts fresh, as the peak of its anonymous
/// resident memory (Linux's `RssAnon`: heap and stacks, not the store's mapped pages), sampled every
/// millisecond from outside while it runs.
@Suite(.timeLimit(.minutes(10)), .disabled(if: runningSanitized, "memory under AddressSanitizer is its shadow and quarantine")) struct FlatMemoryExportTests {
    static func sessions(_ count: Int) -> Data {
        var lines: [String] = []
        for index in 0..<count {
            let session = String(format: "%08x-0000-4000-8000-%012x", index, index)
            lines.append(#"{"type":"session.started","session":"\#(session)","at":"2026-03-01T10:00:00.000Z","subject":"user-\#(index % 50)","locale":"en"}"#)
            lines.append(#"{"type":"consent.granted","session":"\#(session)","at":"2026-03-01T10:00:00.000Z","subject":"user-\#(index % 50)","consent_type":"transcription","method":"in_app_prompt"}"#)
            for segment in 0..<50 {
                lines.append(#"{"type":"transcript.committed","session":"\#(session)","at":"2026-03-01T10:00:01.000Z","segment":"s\#(segment)","text":"segment \#(segment) of session \#(index), with a comma, and \"quotes\" to escape","start_ms":\#(segment * 1000),"end_ms":\#(segment * 1000 + 900)}"#)
            }
        }
        return Data(lines.joined(separator: "\n").utf8)
    }

    /// Exports every session of a new store of `count` sessions as CSV; returns (bytes written, peak anonymous memory).
    static func export(_ count: Int, in cli: CLIRunner) throws -> (written: Int, peak: Int) {
        let paths = ["--store", cli.directory.appendingPathComponent("store-\(count)").path,
                     "--key-file", cli.directory.appendingPathComponent("key-\(count)").path]
        #expect(try cli.run(["init"] + paths).status == 0)
        #expect(try cli.run(["ingest", "-"] + paths, input: sessions(count)).status == 0)
        #expect(try cli.run(["sessions", "--format", "csv"] + paths).status == 0)  // the views caught up before
        let out = cli.directory.appendingPathComponent("export-\(count).csv").path
        let process = try ChildProcess(CLIRunner.binary(), ["export", "--all", "--format", "csv", "--out", out] + paths,
                                       directory: cli.directory)
        let (peak, outcome) = peakAnonymousMemory(of: process)
        #expect(peak > 1_000_000, "the export's memory was sampled while it ran")
        #expect(outcome.status == 0 && !outcome.timedOut, "\(outcome.stderr)")
        return (try FileManager.default.attributesOfItem(atPath: out)[.size] as! Int, peak)
    }

    @Test func exportingTenTimesTheSegmentsTakesNoMoreMemory() async throws {
        try await withCLI { cli in
            let small = try Self.export(200, in: cli)     // 10,000 segments
            let large = try Self.export(2_000, in: cli)   // 100,000 segments
            #expect(large.written > 10_000_000 && large.written > 9 * small.written)
            // Collecting the rows would cost at least the output's size; streaming costs nothing per row.
            #expect(large.peak - small.peak < (large.written - small.written) / 4,
                    "10,000 segments peaked at \(small.peak) bytes, 100,000 at \(large.peak), writing \(large.written)")
        }
    }
}
#endif
