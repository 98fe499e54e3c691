import EventLog
import Foundation
import Migrations
import Projections
import SessionLog
import SessionModel

/// The runs in a store that carry a label (`replay --drive … --label`): for each label and source
/// session, the latest run (by when its drive started), and when each label's drives started and ended.
package struct LabeledRuns {
    /// A label's latest run of one source.
    struct Run {
        var run: UUID
        var startedAt: Int64
    }

    /// Label → source → its latest run.
    private(set) var latest: [String: [UUID: Run]] = [:]
    /// Label → the first and the last drive start among all its runs.
    private(set) var span: [String: ClosedRange<Int64>] = [:]
    /// Each source session's labels (a derived session's `condition`, …).
    private(set) var sourceLabels: [UUID: [String: String]] = [:]

    /// The labelled runs of `log` (its session list caught up first), or only those of `labels`.
    init(in log: EventLog, labels: Set<String>? = nil) throws {
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        let sessions = try runner.sessions()
        // An erased or purged session has no transcript left to compare, as a source or as a run.
        let readable = Set(sessions.filter { $0.status != .erased && $0.status != .purged }.map(\.session))
        for summary in sessions where readable.contains(summary.session) && !summary.labels.isEmpty {
            sourceLabels[summary.session] = summary.labels
        }
        for summary in sessions where readable.contains(summary.session) {
            guard let source = summary.runOf, readable.contains(source), let label = summary.runLabel, labels?.contains(label) ?? true else {
                continue
            }
            let startedAt = try Self.driveStart(of: summary.session, in: log)
            span[label] = span[label].map { min($0.lowerBound, startedAt)...max($0.upperBound, startedAt) } ?? startedAt...startedAt
            if let kept = latest[label]?[source], (kept.startedAt, kept.run.uuidString) >= (startedAt, summary.session.uuidString) { continue }
            latest[label, default: [:]][source] = Run(run: summary.session, startedAt: startedAt)
        }
    }

    /// When the drive that stored `run` started (its `replay.run` record, the run's second event).
    package static func driveStart(of run: UUID, in log: EventLog) throws -> Int64 {
        let codec = SessionMigrations.codec
        let events = try log.readStream(SessionStreams.session(run), from: 0, maxCount: 2, skippingErased: true) { try codec.decode($0) }
        for recorded in events {
            if case .replayRun(let record) = recorded.event.payload { return record.startedAt }
        }
        return 0
    }
}

/// Source sessions' timelines, each loaded once however many runs are compared with it.
actor SourceTimelines {
    private let log: EventLog
    private var loaded: [UUID: TranscriptTimeline] = [:]

    init(log: EventLog) { self.log = log }

    /// `run` compared with its source, with no threshold.
    func comparison(of run: UUID, with source: UUID) async throws -> TranscriptComparison {
        let reference: TranscriptTimeline
        if let cached = loaded[source] {
            reference = cached
        } else {
            reference = try await TranscriptTimeline.load(source, from: log)
            loaded[source] = reference
        }
        return TranscriptComparison(source: reference, run: try await TranscriptTimeline.load(run, from: log), thresholds: .init(maxWordErrorRate: nil))
    }
}
