import BenchSupport
import EventLog
import Foundation
import Ingest
import SessionModel

/// Ingest of an NDJSON file into a new store, streamed from the file in one transaction, and the peak
/// resident memory of the process so far (Linux: VmHWM).
struct IngestMeasurement {
    let file: URL
    let work: URL

    func run() async throws {
        let measurements = Measurements(work: work)
        let path = measurements.storePath("ingest")
        try? FileManager.default.removeItem(atPath: path)
        let log = try EventLog.create(at: path, key: .keyFile(measurements.keyPath), options: benchOptions)
        let bytes = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        let clock = ContinuousClock()
        let started = clock.now
        let report = try await SessionIngest(log: log).ingest(.file(file))
        try log.close()
        let total = Report.seconds(clock.now - started)
        Report.emit(["scenario": "ingest", "events": report.lines, "appended": report.appended,
                           "ingest_seconds": total, "per_second": Double(report.appended) / total,
                           "bytes": bytes, "peak_rss_bytes": Self.peakResidentBytes() ?? 0])
    }

    static func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}
