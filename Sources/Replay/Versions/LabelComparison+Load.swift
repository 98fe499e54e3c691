import EventLog
import Failures
import Foundation
import Migrations
import Projections
import SessionLog
import SessionModel

extension LabelComparison {
    /// The comparison, in `log`, of the runs labelled `baseline` with those labelled `candidate`: for every
    /// source session with a run of both, the latest of each (by when its drive started). Refused when a
    /// label has no run, or no source has runs of both.
    public static func load(baseline: String, candidate: String, from log: EventLog, options: Options = Options()) async throws -> LabelComparison {
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        let runs = try runner.sessions().filter { $0.runOf != nil && ($0.status == .ended || $0.status == .active) }
        var latest: [String: [UUID: (run: UUID, startedAt: Int64)]] = [baseline: [:], candidate: [:]]
        for summary in runs {
            guard let label = summary.runLabel, latest[label] != nil, let source = summary.runOf else { continue }
            let startedAt = try driveStart(of: summary.session, in: log)
            if let kept = latest[label]?[source], (kept.startedAt, kept.run.uuidString) >= (startedAt, summary.session.uuidString) { continue }
            latest[label]?[source] = (summary.session, startedAt)
        }
        for label in [baseline, candidate] where latest[label]!.isEmpty {
            throw LabelComparisonError(.noRuns, "no run in the store is labelled \"\(label)\" (`replay --drive … --label \(label)` stores one)")
        }
        let sources = Set(latest[baseline]!.keys).intersection(latest[candidate]!.keys).sorted { $0.uuidString < $1.uuidString }
        guard !sources.isEmpty else {
            throw LabelComparisonError(.noRuns, "no source session has runs labelled both \"\(baseline)\" and \"\(candidate)\"; "
                                       + "drive the same sessions with each label")
        }
        var pairs: [SessionPair] = []
        for source in sources {
            let reference = try await TranscriptTimeline.load(source, from: log)
            let compared = { (run: UUID) async throws in
                TranscriptComparison(source: reference, run: try await TranscriptTimeline.load(run, from: log), thresholds: .init(maxWordErrorRate: nil))
            }
            pairs.append(SessionPair(source: source, baseline: try await compared(latest[baseline]![source]!.run),
                                     candidate: try await compared(latest[candidate]![source]!.run)))
        }
        return LabelComparison(baselineLabel: baseline, candidateLabel: candidate, pairs: pairs, options: options)
    }

    /// When the drive that stored `run` started (its `replay.run` record, the run's second event).
    private static func driveStart(of run: UUID, in log: EventLog) throws -> Int64 {
        let codec = SessionMigrations.codec
        let events = try log.readStream(SessionStreams.session(run), from: 0, maxCount: 2, skippingErased: true) { try codec.decode($0) }
        for recorded in events {
            if case .replayRun(let record) = recorded.event.payload { return record.startedAt }
        }
        return 0
    }
}

/// Why two labels could not be compared.
public struct LabelComparisonError: CodedError, Sendable {
    public typealias Code = ErrorCode<LabelComparisonError>

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == LabelComparisonError {
    /// A label has no run in the store, or no source session has runs of both labels.
    public static let noRuns = Self("no runs", .notFound)
}
