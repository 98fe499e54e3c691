import Foundation
import Testing
import TestSupport

#if os(Linux)
/// `ingest` reads, checks and appends a file a window of lines at a time inside one transaction: ten
/// times the lines must not take ten times the memory. What may grow is the pages LMDB keeps in memory
/// for the one open transaction (up to 512 MiB, then it spills them to the file): about the size of
/// what the ingest adds to the store. Parsed events may not: holding them cost four times the input.
@Suite(.timeLimit(.minutes(10))) struct BoundedIngestMemoryTests {
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
}
#endif
