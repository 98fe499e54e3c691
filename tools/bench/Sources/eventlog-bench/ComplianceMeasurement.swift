import BenchSupport
import Compliance
import EventLog
import Foundation
import Migrations
import Projections
import SessionLog
import SessionModel

/// Issue 11's numbers: verify (leaf check, tree, decrypt) and the Merkle tree on a store of small
/// events; `audit check` on a sessions store; erasing a subject of 1,000 sessions, and the compaction.
enum ComplianceMeasurement {
    static func median(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }

    /// verify, anchor and proofs on an existing store (the 1M small events of `run`).
    static func tree(store: String, key: String) throws {
        let log = try EventLog.open(at: store, key: .keyFile(key), options: benchOptions)
        var report: VerificationReport?
        let verifying = try Report.time { report = try log.verify() }
        let size = report!.treeHead.size
        Report.emit(["scenario": "verify-small", "events": size, "seconds": verifying, "per_second": Double(size) / verifying,
                           "intact": report!.isIntact])
        var anchors: [Double] = []
        for _ in 0..<21 { anchors.append(try Report.time { _ = try log.signedCheckpoint() }) }
        var random = Workload.SplitMix(state: 5)
        var proofs: [Double] = []
        for _ in 0..<1000 {
            let position = random.next() % size
            proofs.append(try Report.time { _ = try log.inclusionProof(position: position, treeSize: size) })
        }
        var consistency: [Double] = []
        for _ in 0..<200 {
            let old = 1 + random.next() % (size - 1)
            consistency.append(try Report.time { _ = try log.consistencyProof(from: old, to: size) })
        }
        Report.emit(["scenario": "merkle-small", "events": size, "anchor_median_ms": median(anchors) * 1000,
                           "anchor_max_ms": anchors.max()! * 1000, "inclusion_median_ms": median(proofs) * 1000,
                           "inclusion_max_ms": proofs.max()! * 1000, "consistency_median_ms": median(consistency) * 1000])
    }

    /// `audit check` over an existing sessions store.
    static func check(store: String, key: String) throws {
        let log = try EventLog.open(at: store, key: .keyFile(key), options: benchOptions)
        for pass in ["first", "warm"] {
            var report: ViolationCheck.Report?
            let seconds = try Report.time { report = try ViolationCheck(log: log).run() }
            Report.emit(["scenario": "audit-check", "pass": pass, "events": report!.eventsRead, "seconds": seconds,
                               "per_second": Double(report!.eventsRead) / seconds, "violations": report!.violations.count])
        }
    }

    /// A subject with 1,000 sessions among 9,000 other sessions (20 events each): erase, then compact.
    static func erasure(work: URL) async throws {
        let measurements = Measurements(work: work)
        let path = measurements.storePath("erasure")
        let (erased, erasing) = try await erase(in: measurements)  // the log is released: compaction needs the store alone
        let compaction = try EventLog.compact(at: path, options: benchOptions)
        let seconds = Report.seconds(compaction.duration)
        Report.emit(["scenario": "erase-subject", "sessions_erased": erased, "erase_seconds": erasing,
                           "compaction_seconds": seconds, "bytes_before": compaction.bytesBefore, "bytes_after": compaction.bytesAfter,
                           "compaction_mb_per_second": Double(compaction.bytesBefore) / 1e6 / seconds])
    }

    private static func erase(in measurements: Measurements) async throws -> (Int, Double) {
        let log = try measurements.freshSessionStore("erasure")
        let codec = SessionMigrations.codec
        let target = SubjectHash(bytes: log.identifierHash("erase-me"))!
        for index in 0..<10_000 {
            let subject = index % 10 == 0 ? target : SubjectHash(bytes: log.identifierHash("user-\(index)"))!
            let session = UUID()
            var events = [SessionEvent(session: session, occurredAt: 1_795_000_000_000, payload: .sessionStarted(SessionStarted(subject: subject, locale: "en")))]
            events.append(SessionEvent(session: session, occurredAt: 1_795_000_000_001,
                                       payload: .consentGranted(ConsentChange(subject: subject, consentType: "transcription", method: "in_app_prompt"))))
            for segment in 0..<17 {
                events.append(SessionEvent(session: session, occurredAt: 1_795_000_000_010 + Int64(segment), payload: .transcriptCommitted(
                    TranscriptCommitted(segment: "\(segment)", text: "words of segment \(segment) in session \(index)",
                                        startMilliseconds: UInt64(segment) * 1000, endMilliseconds: UInt64(segment) * 1000 + 900))))
            }
            events.append(SessionEvent(session: session, occurredAt: 1_795_000_000_100, payload: .sessionEnded(SessionEnded())))
            try await log.append([StreamAppend(stream: StreamID(session), events: events.map { codec.encode($0) }),
                                  StreamAppend(stream: SessionStreams.consent(of: subject), events: [codec.encode(events[1], storedOutsideSession: true)],
                                               keyScope: .audit)])
        }
        try ProjectionRunner(log: log).catchUp()
        var erased = 0
        let erasing = try await {
            let clock = ContinuousClock()
            let started = clock.now
            erased = try await SubjectErasure(log: log).erase(target, at: 1_795_000_001_000).erased.count
            return Report.seconds(clock.now - started)
        }()
        try log.close()
        return (erased, erasing)
    }
}
