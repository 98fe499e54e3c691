import BenchSupport
import Compliance
import EventLog
import Foundation
import Ingest
import Projections
import SessionLog
import SessionModel

/// What each operation costs as the store grows, and as one session grows: stores of sessions (started, consent
/// granted, committed segments, ended; ten sessions a subject), and in each, the operations a user runs on one session
/// or subject (its violations among them: a session's report), and the two that read the whole log by their nature
/// (`verify`, `audit check`).
struct StoreGrowthMeasurement {
    let measurements: Measurements
    let samples: Int

    /// Stores of `sizes` sessions of nine events each (six segments): the same session at every size, so a ratio
    /// between sizes is what the store's size costs.
    func run(sizes: [Int]) async throws {
        for sessions in sizes { try await measure(sessions: sessions, segments: 6, scenario: "store-growth") }
    }

    /// Stores of about `events` events each, in sessions of `lengths` events: a ratio between lengths is what one
    /// session's length costs, the log's length kept.
    func run(events: Int, lengths: [Int]) async throws {
        for length in lengths {
            try await measure(sessions: max(1, events / length), segments: max(1, length - 3), scenario: "session-length")
        }
    }

    private func measure(sessions: Int, segments: Int, scenario: String) async throws {
        let path = try measurements.freshStorePath(scenario)
        let log = try EventLog.create(at: path, key: .keyFile(measurements.keyPath), options: benchOptions)
        let ingest = SessionIngest(log: log)
        let ids = (0..<sessions).map { Self.sessionID($0) }
        var lines: [String] = []
        for (index, session) in ids.enumerated() {
            lines.append(contentsOf: Self.session(session, segments: segments, subject: Self.subject(index, of: sessions)))
            if lines.count >= 9_000 {
                _ = try await ingest.ingest(Data(lines.joined(separator: "\n").utf8))
                lines.removeAll(keepingCapacity: true)
            }
        }
        if !lines.isEmpty { _ = try await ingest.ingest(Data(lines.joined(separator: "\n").utf8)) }
        let firstCatchUp = try Report.time { try ProjectionRunner(log: log).catchUp() }

        // One session in the middle of the log, and its subject.
        let middle = ids[sessions / 2]
        let subject = SubjectHash(bytes: log.identifierHash(Self.subject(sessions / 2, of: sessions)))!
        let runner = ProjectionRunner(log: log)
        var appends: [Double] = [], catchUps: [Double] = [], transcripts: [Double] = [], rows: [Double] = []
        var events: [Double] = [], trails: [Double] = [], proofs: [Double] = [], violations: [Double] = []
        var runs: [Double] = [], runsFromTheList: [Double] = []
        for sample in 0..<samples {
            let line = Data(GrowthLines.commit(max(100, segments) + sample, in: middle).utf8)
            appends.append(try await Report.time { _ = try await ingest.ingest(line) })
            catchUps.append(try Report.time { try runner.catchUp() })
            transcripts.append(try Report.time { _ = try ProjectionRunner(log: log).transcript(of: middle) })
            rows.append(try Report.time { _ = try ProjectionRunner(log: log).session(middle) })
            trails.append(try Report.time { _ = try ProjectionRunner(log: log).consentTrail(of: subject) })
            events.append(try Report.time {
                _ = try log.readStream(SessionStreams.session(middle), skippingErased: true) { $0.data.count }
            })
            violations.append(try Report.time { _ = try ViolationCheck(log: log).run(session: middle) })
            // A session's runs, as its report finds them: from the view `runs`, and (before it) from the whole list.
            runs.append(try Report.time { _ = try ProjectionRunner(log: log).runs(of: middle) })
            runsFromTheList.append(try Report.time { _ = try ProjectionRunner(log: log).sessions().filter { $0.runOf == middle } })
            let size = try log.eventCount()
            let position = UInt64(sample) * 7919 % size
            proofs.append(try Report.time { _ = try log.inclusionProof(position: position, treeSize: size) })
        }
        var audits: [Double] = [], verifies: [Double] = []
        for _ in 0..<3 {
            audits.append(try Report.time { _ = try ViolationCheck(log: log).run() })
            verifies.append(try Report.time { _ = try log.verify() })
        }
        let count = try log.eventCount()
        try log.close()
        Report.emit(["scenario": scenario, "backend": measurements.postgresServer == nil ? "lmdb" : "postgresql", "sessions": sessions, "events_per_session": segments + 3, "events": count,
                     "first_catch_up_s": firstCatchUp,
                     "append_one_line": Report.latencyFields(appends), "catch_up_after_it": Report.latencyFields(catchUps),
                     "transcript_read": Report.latencyFields(transcripts), "session_row": Report.latencyFields(rows),
                     "consent_trail": Report.latencyFields(trails), "session_events": Report.latencyFields(events),
                     "inclusion_proof": Report.latencyFields(proofs), "session_violations": Report.latencyFields(violations),
                     "session_runs": Report.latencyFields(runs), "session_runs_from_the_list": Report.latencyFields(runsFromTheList),
                     "audit_check": Report.latencyFields(audits), "verify": Report.latencyFields(verifies)])
    }

    private static func sessionID(_ index: Int) -> UUID {
        var random = Workload.SplitMix(state: UInt64(index) &+ 17)
        return UUID(uuid: withUnsafeBytes(of: (random.next(), random.next())) { $0.load(as: uuid_t.self) })
    }

    /// Ten sessions a subject at every size, so that a subject's consent trail is as long in each store.
    private static func subject(_ index: Int, of sessions: Int) -> String { "user-\(index % max(1, sessions / 10))" }

    private static func session(_ session: UUID, segments: Int, subject: String) -> [String] {
        let id = session.uuidString.lowercased()
        var lines = [#"{"type":"session.started","session":"\#(id)","at":"2026-11-21T10:00:00Z","subject":"\#(subject)","locale":"en"}"#,
                     #"{"type":"consent.granted","session":"\#(id)","at":"2026-11-21T10:00:00Z","subject":"\#(subject)","consent_type":"transcription","method":"in_app_prompt"}"#]
        lines += (0..<segments).map { GrowthLines.commit($0, in: session) }
        lines.append(#"{"type":"session.ended","session":"\#(id)","at":"2026-11-21T10:00:09Z"}"#)
        return lines
    }
}
