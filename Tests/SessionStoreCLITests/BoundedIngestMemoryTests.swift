import Foundation
import Testing
import TestSupport

#if os(Linux)
/// `ingest` reads, checks and appends a file a window of lines at a time inside one transaction: ten
/// times the lines must not take ten times the memory. What may grow is the pages LMDB keeps in memory
/// for the one open transaction (up to 512 MiB, then it spills them to the file): about the size of
/// what the ingest adds to the store. Parsed events may not: holding them cost four times the input.
@Suite(.timeLimit(.minutes(10)), .disabled(if: runningSanitized, "memory under AddressSanitizer is its shadow and quarantine")) struct BoundedIngestMemoryTests {
    /// Ingests `sessions` sessions of 50 segments from a file into a new store; (input bytes, store
    /// file bytes, peak anonymous memory).
    static func ingest(_ sessions: Int, in cli: CLIRunner) throws -> (input: Int, store: Int, peak: Int) {
        let paths = ["--store", cli.directory.appendingPathComponent("store-\(sessions)").path,
                     "--key-file", cli.directory.appendingPathComponent("key-\(sessions)").path]
        #expect(try cli.run(["init"] + paths).status == 0)
        let file = cli.directory.appendingPathComponent("sessions-\(sessions).ndjson")
        let input = FlatMemoryExportTests.sessions(sessions)
        try input.write(to: file)
        let process = try ChildProcess(CLIRunner.binary(), ["ingest", file.path] + paths, directory: cli.directory)
        let (peak, outcome) = peakAnonymousMemory(of: process)
        #expect(peak > 1_000_000, "the ingest's memory was sampled while it ran")
        #expect(outcome.status == 0 && !outcome.timedOut, "\(outcome.stderr)")
        #expect(outcome.stdoutText.contains("ingested \(sessions * 52) events into \(sessions) sessions"))
        let store = try FileManager.default.attributesOfItem(atPath: paths[1] + "/data.mdb")[.size] as! Int
        return (input.count, store, peak)
    }

    @Test func ingestingTenTimesTheLinesTakesLittleMoreMemory() async throws {
        try await withCLI { cli in
            let small = try Self.ingest(300, in: cli)     // 15,600 lines, 3.6 MB
            let large = try Self.ingest(3_000, in: cli)   // 156,000 lines, 36 MB
            #expect(large.peak - small.peak < (large.store - small.store) + (large.input - small.input) / 2,
                    "\(small.input) bytes into \(small.store) peaked at \(small.peak) bytes, \(large.input) into \(large.store) at \(large.peak)")
        }
    }

    /// A session of `bytes` of NDJSON: 100 ms chunks of noise (which FLAC cannot shrink), and a bad
    /// last line when `badLast`.
    static func writeLargeFile(_ url: URL, bytes: Int, badLast: Bool) throws -> Int {
        let session = UUID().uuidString.lowercased()
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let file = try FileHandle(forWritingTo: url)
        defer { try? file.close() }
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<64).map { _ in Data((0..<3_200).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString() }
        var block = #"{"type":"session.started","session":"\#(session)","at":"2026-11-21T10:00:00Z","subject":"s","locale":"en"}"# + "\n"
            + #"{"type":"recording.started","session":"\#(session)","at":"2026-11-21T10:00:00Z","recording":"r","sample_rate":16000,"channels":1}"# + "\n"
        var written = 0, chunks = 0
        while written < bytes {
            block += #"{"type":"recording.chunk","session":"\#(session)","at":"2026-11-21T10:00:01Z","recording":"r","index":\#(chunks),"pcm":"\#(noise[chunks % 64])"}"# + "\n"
            chunks += 1
            if block.utf8.count > 4 << 20 || written + block.utf8.count >= bytes {
                try file.write(contentsOf: Data(block.utf8))
                written += block.utf8.count
                block = ""
            }
        }
        if badLast { try file.write(contentsOf: Data(#"{"type":"session.ended","session":"\#(session)","at":"yesterday"}"#.utf8)) }
        return chunks + 2
    }

    /// Opt-in (EVENTLOG_BIG_INGEST=1; minutes, and 2 GB of disk twice): a 2 GB file is ingested with
    /// memory bounded by LMDB's pages of the open transaction (at most 512 MiB) plus our own windows,
    /// and the same file with a bad last line appends nothing.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["EVENTLOG_BIG_INGEST"] == "1"), .timeLimit(.minutes(30)))
    func aTwoGigabyteFileIsIngestedAllOrNothingInBoundedMemory() async throws {
        try await withCLI { cli in
            let paths = ["--store", cli.directory.appendingPathComponent("store").path,
                         "--key-file", cli.directory.appendingPathComponent("key").path]
            #expect(try cli.run(["init"] + paths).status == 0)
            let bad = cli.directory.appendingPathComponent("bad.ndjson")
            _ = try Self.writeLargeFile(bad, bytes: 2_000_000_000, badLast: true)
            let refused = try ChildProcess(CLIRunner.binary(), ["ingest", bad.path] + paths, directory: cli.directory)
            let (refusedPeak, refusal) = peakAnonymousMemory(of: refused, limit: .seconds(1_200))
            #expect(refusal.status == 65, "\(refusal.stderr)")
            try FileManager.default.removeItem(at: bad)
            #expect(try cli.run(["stats"] + paths).stdout.contains("events              0"))

            let good = cli.directory.appendingPathComponent("good.ndjson")
            let events = try Self.writeLargeFile(good, bytes: 2_000_000_000, badLast: false)
            let process = try ChildProcess(CLIRunner.binary(), ["ingest", good.path] + paths, directory: cli.directory)
            let (peak, outcome) = peakAnonymousMemory(of: process, limit: .seconds(1_200))
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdoutText.contains("ingested \(events) events into 1 session"))
            #expect(max(peak, refusedPeak) < 768 << 20, "peaks: \(peak) bytes, \(refusedPeak) refusing")
            print("2 GB ingest: peak anonymous memory \(peak >> 20) MiB (refused file: \(refusedPeak >> 20) MiB)")
        }
    }
}
#endif
