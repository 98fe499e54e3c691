import EventLog
import Foundation
import Ingest
import SessionModel

/// Ingest of an NDJSON file into a new store: validation alone, then the whole ingest.
struct IngestMeasurement {
    let file: URL
    let work: URL

    func run() async throws {
        let measurements = Measurements(work: work)
        let path = measurements.storePath("ingest")
        try? FileManager.default.removeItem(atPath: path)
        let log = try EventLog.create(at: path, key: .keyFile(measurements.keyPath))
        let data = try Data(contentsOf: file)
        let ingest = SessionIngest(log: log)
        let clock = ContinuousClock()
        var started = clock.now
        let events = try ingest.validate(data).get()
        let validation = Measurements.seconds(clock.now - started)
        started = clock.now
        let report = try await ingest.ingest(data)
        try log.close()
        let total = Measurements.seconds(clock.now - started)
        Measurements.emit(["scenario": "ingest", "events": events.count, "appended": report.appended,
                           "validate_seconds": validation, "validate_per_second": Double(events.count) / validation,
                           "ingest_seconds": total, "per_second": Double(report.appended) / total,
                           "bytes": data.count])
    }
}
