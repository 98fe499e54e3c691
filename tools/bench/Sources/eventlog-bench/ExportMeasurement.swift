import BenchSupport
import EventLog
import Foundation
import Migrations
import Projections
import SessionLog
import SessionModel

/// A store of committed segments for the export benchmark (`tools/bench/export-bench`): `sessions`
/// sessions of `segments` committed segments each, with realistic text, its views caught up.
struct ExportMeasurement {
    let work: URL
    let sessions: Int
    let segments: Int

    func makeStore() async throws {
        let measurements = Measurements(work: work)
        let path = measurements.storePath("export")
        let log = try measurements.freshSessionStore("export")
        let codec = SessionMigrations.codec
        var random = Workload.SplitMix(state: 23)
        let start = ContinuousClock.now
        for index in 0..<sessions {
            let session = UUID(uuid: withUnsafeBytes(of: (random.next(), random.next())) { $0.load(as: uuid_t.self) })
            let subject = SubjectHash(bytes: log.identifierHash("user-\(index)"))!
            var at: Int64 = 1_795_255_200_000 + Int64(index) * 3_600_000
            var batch: [SessionEvent] = []
            func add(_ payload: SessionPayload) {
                at += 900
                batch.append(SessionEvent(session: session, occurredAt: at, payload: payload))
            }
            add(.sessionStarted(SessionStarted(subject: subject, locale: "en-GB")))
            for segment in 0..<segments {
                let text = (0..<(4 + Int(random.next() % 10))).map { _ in Workload.words[Int(random.next() % UInt64(Workload.words.count))] }
                    .joined(separator: " ")
                add(.transcriptCommitted(TranscriptCommitted(
                    segment: "\(segment)", text: text, startMilliseconds: UInt64(segment) * 900,
                    endMilliseconds: UInt64(segment) * 900 + 850, confidence: Double(random.next() % 1000) / 1000,
                    speaker: segment % 2 == 0 ? "clinician" : "patient")))
            }
            add(.sessionEnded(SessionEnded()))
            try await log.append(batch.map { codec.encode($0) }, to: StreamID(session))
        }
        let written = ContinuousClock.now
        let folded = try ProjectionRunner(log: log).catchUp()
        try log.close()
        Report.emit(["scenario": "export-store", "store": path, "key": measurements.keyPath, "sessions": sessions,
                           "segments": sessions * segments, "write_seconds": Report.seconds(written - start),
                           "catch_up_seconds": Report.seconds(ContinuousClock.now - written), "folded": folded])
    }
}
