import EventLog
import Foundation
import Ingest
import Replay
import SessionModel

/// How one session's drive went: stored as a run or not, checked or not, or failed.
struct DriveOutcome: Sendable {
    /// A run's outcome (`replay.run`'s: completed, passed, failed), or `error` when the system under
    /// test or the store failed and there is no run.
    enum Result: String, Sendable {
        case completed, passed, failed, error

        init(_ run: ReplayRun.Outcome) {
            switch run {
            case .completed: self = .completed
            case .passed: self = .passed
            case .failed: self = .failed
            }
        }
    }

    var source: UUID
    /// The run's session id, when it was stored.
    var run: UUID?
    var label: String?
    var outcome: Result
    var comparison: TranscriptComparison?
    /// Wall time of the drive, in seconds.
    var seconds: Double
    /// Why it failed or erred.
    var message: String?
    /// For an error: its exit status and sentence.
    var failure: CommandFailure?
}

/// Drives sessions into a command (`replay --drive`), stores each run and checks it when asked.
struct DriveRunner: Sendable {
    let log: EventLog
    let command: String
    let targetLog: String?
    let options: ReplayDrive.Options
    let speedName: String
    let label: String?
    let store: Bool
    /// nil: no check (`--expect` not given).
    let thresholds: TranscriptComparison.Thresholds?

    /// Drives `source`; every failure becomes the outcome `error`, so a suite goes on.
    func drive(_ source: UUID) async -> DriveOutcome {
        let clock = ContinuousClock(), started = clock.now
        var outcome = DriveOutcome(source: source, label: label, outcome: .error, seconds: 0)
        do {
            try await drive(source, into: &outcome)
        } catch {
            let failure = CommandFailure(error)
            outcome.outcome = .error
            outcome.message = failure.message
            outcome.failure = failure
        }
        let elapsed = clock.now - started
        outcome.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return outcome
    }

    private func drive(_ source: UUID, into outcome: inout DriveOutcome) async throws {
        let target = try ProcessReplayTarget(command: command, standardErrorPath: targetLog)
        let result = try await ReplayDrive(session: source, log: log, options: options).run(into: target)
        let run = UUID()
        var record = ReplayRun(source: source, command: command, label: label, speed: speedName, startedAt: result.startedAt,
                               endedAt: result.endedAt)
        if let thresholds {
            let sourceTimeline = try await TranscriptTimeline.load(source, from: log)
            let runTimeline = TranscriptTimeline(session: run, events: result.transcriptEvents(of: run))
            let comparison = TranscriptComparison(source: sourceTimeline, run: runTimeline, thresholds: thresholds)
            record.outcome = comparison.passed ? .passed : .failed
            record.wordErrorRate = comparison.wordErrorRate
            outcome.comparison = comparison
            outcome.message = comparison.failures.isEmpty ? nil : comparison.failures.joined(separator: "; ")
        }
        outcome.outcome = DriveOutcome.Result(record.outcome)
        guard store else { return }
        let events = result.runEvents(of: run, record: record)
        do {
            _ = try await SessionIngest(log: log).ingest(events: events)
        } catch let failure as IngestFailure {
            // A problem of the system's output (an id it reused, say) names the line it wrote.
            guard let problem = failure.problems.first else { throw failure }
            let produced = problem.line - 3  // after session.started and replay.run, 1-based
            if produced >= 0, produced < result.produced.count {
                var moved = problem
                moved.line = result.produced[produced].event.line
                throw ReplayDriveError.invalidOutput(moved)
            }
            throw failure
        }
        outcome.run = run
    }
}
