import EventLog
import Foundation
import Ingest
import Replay

/// Appends what a request or a live message carries, as `ingest` does (all or nothing, durable on
/// return, each event's position reported), through the bounded append queue, counting it in the
/// metrics; every refusal comes out as a ``Problem``. A body in memory (a small one) is checked beside
/// the other requests' and appended through group commit with them; a spooled one takes the write lock.
struct Appender: Sendable {
    let log: EventLog
    let gate: AppendGate
    let metrics: ServerMetrics
    /// Told of every append that stored events (the views catch up soon after).
    let committed: @Sendable () -> Void

    /// Appends `source`'s events; with `session`, each must name that session (a live stream's).
    func append(_ source: IngestSource, session: UUID? = nil) async throws -> IngestReport {
        var ingest = SessionIngest(log: log)
        ingest.recordsPositions = true
        ingest.session = session
        return try await appending {
            if case .bytes(let data) = source { try await ingest.ingestConcurrently(data) } else { try await ingest.ingest(source) }
        }
    }

    /// Stores a run an app reported (`POST /v1/sessions/{id}/runs`).
    func store(_ run: ReportedRun) async throws -> IngestReport {
        let log = self.log
        return try await appending { try await run.store(in: log) }
    }

    /// Runs `append` in its place in the queue, timing it; a refusal of ingest as the `invalid-events` problem.
    private func appending(_ append: () async throws -> IngestReport) async throws -> IngestReport {
        let report: IngestReport
        do {
            report = try await gate.withPlace {
                let started = ContinuousClock.now
                let report = try await append()
                let elapsed = (ContinuousClock.now - started).components
                metrics.durableCommitLatency.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
                return report
            }
        } catch let failure as IngestFailure {
            var problem = Problem(.invalidEvents, detail: failure.problems.first.map(String.init(describing:)) ?? failure.description)
            problem.problems = failure.problems
            problem.unlisted = failure.unlisted
            throw problem
        }
        if report.appended > 0 { committed() }
        metrics.appendRequests.increment()
        metrics.appendedEvents.increment(by: Int64(report.appended))
        metrics.duplicateEvents.increment(by: Int64(report.duplicates))
        return report
    }
}
