import BenchSupport
import EventLog
import Foundation
import Ingest

/// The library baseline of `serve`'s append throughput: `writers` tasks in this process, each a session
/// of its own, each appending `batch` transcript.committed lines at a time through
/// `SessionIngest.ingestConcurrently` (what the server does with a request's body) for `seconds`: durable
/// events per second and the latency of each append, to set beside tools/serve/load's numbers.
struct ConcurrentIngestMeasurement {
    let work: URL
    let writers: Int
    let batch: Int
    let seconds: Double

    func run() async throws {
        let measurements = Measurements(work: work)
        let path = measurements.storePath("ingest-concurrent")
        try? FileManager.default.removeItem(atPath: path)
        let log = try EventLog.create(at: path, key: .keyFile(measurements.keyPath), options: benchOptions)
        var ingest = SessionIngest(log: log)
        ingest.recordsPositions = true
        let appender = ingest
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let started = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let session = UUID().uuidString.lowercased()
                    var lines = #"{"type":"session.started","session":"\#(session)","id":"\#(UUID().uuidString.lowercased())","at":"2026-11-26T10:00:00.000Z","subject":"load-\#(writer)","locale":"en-US"}"#
                    var segment = 0
                    var latencies: [Duration] = []
                    while true {
                        let begun = ContinuousClock.now
                        _ = try await appender.ingestConcurrently(Data(lines.utf8))
                        latencies.append(ContinuousClock.now - begun)
                        if ContinuousClock.now >= deadline { return latencies }
                        lines = (0..<batch).map { _ in
                            segment += 1
                            let ms = segment * 10
                            return #"{"type":"transcript.committed","session":"\#(session)","id":"\#(UUID().uuidString.lowercased())","at":"2026-11-26T10:00:00.000Z","segment":"s\#(segment)","text":"word \#(segment) of writer \#(writer)","start_ms":\#(ms),"end_ms":\#(ms + 5)}"#
                        }.joined(separator: "\n")
                    }
                }
            }
            return try await group.reduce(into: [Duration]()) { $0 += $1 }.sorted()
        }
        let elapsed = Report.seconds(ContinuousClock.now - started)
        let events = try log.eventCount()
        try log.close()
        func percentile(_ p: Double) -> Double { Report.seconds(latencies[Int(p * Double(latencies.count - 1))]) * 1000 }
        Report.emit(["scenario": "ingest-concurrent", "writers": writers, "batch": batch, "seconds": elapsed, "events": Int(events),
                     "events_per_second": Double(events) / elapsed, "p50_ms": percentile(0.5), "p99_ms": percentile(0.99)])
    }
}
