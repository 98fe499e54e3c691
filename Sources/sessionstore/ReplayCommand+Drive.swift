import ArgumentParser
import EventLog
import Foundation
import Output
import OutputRows
import Projections
import Replay
import SessionLog
import SessionModel
import Synchronization

extension ReplayCommand {
    /// `replay --drive`: one session, or a suite.
    func runDrive() async throws {
        try await reportingFailures {
            let options = driveOptions
            guard let pace = ReplaySpeed(argument: speed) else {
                throw CommandFailure(.usage, "--speed \(speed) is not max, realtime or a positive factor such as 10")
            }
            let log = try storeOptions.openLog()
            if !options.noStore, try log.isReadOnlyReplica() {
                throw CommandFailure(.key, "the store is read-only here, so a run cannot be stored; give --no-store to drive without storing")
            }
            let thresholds = options.expect ? try options.check.thresholds() : nil
            TargetSignals.install()
            let runner = DriveRunner(
                log: log, command: options.drive!, targetLog: options.targetLog,
                options: ReplayDrive.Options(speed: pace, withTranscript: options.withTranscript,
                                             timeout: options.timeout.map { .milliseconds(Int64($0 * 1000)) }),
                speedName: speed.lowercased(), label: options.label, store: !options.noStore, thresholds: thresholds)
            let reads = try access.open(log)
            if options.all || sessions.count > 1 {
                let suite = try suiteSessions(log)
                try await reads.read(.replay, of: suite) { try await runSuite(suite, runner) }
            } else {
                let source = try SessionLookup.existing(sessions[0], in: log)
                try await reads.read(.replay, of: [source]) { try await runOne(source, runner) }
            }
        }
    }

    private func runOne(_ source: UUID, _ runner: DriveRunner) async throws {
        let outcome = await runner.drive(source)
        if let failure = outcome.failure { throw failure }
        let output = OutputSink.standardOutput()
        if let comparison = outcome.comparison {
            try writeComparison(comparison, run: outcome.run, label: outcome.label, format: format.format, to: output)
        } else if let run = outcome.run {
            output.write(run.uuidString.lowercased() + "\n")
        }
        try output.close()
        if let junit = driveOptions.check.junit { try writeJUnit([outcome], to: junit) }
        if !quiet {
            let stored = outcome.run.map { "stored as run \($0.uuidString.lowercased())" } ?? "not stored (--no-store)"
            Console.err("drove session \(source.uuidString.lowercased()) into `\(runner.command)` in \(String(format: "%.1f", outcome.seconds)) s; \(stored)\n")
        }
        if outcome.outcome == .failed { throw CommandFailure(.checkFailed, outcome.message ?? "the check failed") }
    }

    private func runSuite(_ sources: [UUID], _ runner: DriveRunner) async throws {
        guard !sources.isEmpty else {
            let filters = (driveOptions.locale.map { ["in locale \($0)"] } ?? [])
                + (driveOptions.sessionLabels.isEmpty ? [] : ["labelled " + driveOptions.sessionLabels.joined(separator: " and ")])
            throw CommandFailure(.invalidData, "no session to drive: the store holds none that is not itself a run"
                                 + (filters.isEmpty ? "" : " and is " + filters.joined(separator: ", ")))
        }
        let progress = Progress("driving sessions", unit: "sessions", shown: !quiet && Progress.standardErrorIsATerminal)
        let done = Atomic<Int>(0)
        let outcomes = await withTaskGroup(of: (Int, DriveOutcome).self) { group in
            var results = [DriveOutcome?](repeating: nil, count: sources.count)
            var next = 0
            func start() {
                let index = next, source = sources[index]
                next += 1
                group.addTask { (index, await runner.drive(source)) }
            }
            while next < min(driveOptions.jobs, sources.count) { start() }
            while let (index, outcome) = await group.next() {
                results[index] = outcome
                progress.update(done.add(1, ordering: .relaxed).newValue, of: sources.count)
                if next < sources.count { start() }
            }
            return results.map { $0! }
        }
        progress.finish()
        let output = OutputSink.standardOutput()
        var writer = RowWriter<SuiteRow>(format: format.format == .text ? .table : format.format, sink: output)
        for outcome in outcomes { try writer.write(SuiteRow(result: outcome)) }
        try writer.finish()
        try output.close()
        if let junit = driveOptions.check.junit { try writeJUnit(outcomes, to: junit) }
        let errors = outcomes.filter { $0.outcome == .error }.count, failed = outcomes.filter { $0.outcome == .failed }.count
        if errors > 0 {
            throw CommandFailure(.targetFailed, "\(errors) of \(outcomes.count) drives failed (the message column says why)"
                                 + (failed > 0 ? "; \(failed) runs failed their check" : ""))
        }
        if failed > 0 { throw CommandFailure(.checkFailed, "\(failed) of \(outcomes.count) runs failed their check") }
    }

    /// `--all`: every session that is not itself a run and whose data is readable (of `--locale`, with
    /// every `--session-label`), by start time.
    private func suiteSessions(_ log: EventLog) throws -> [UUID] {
        guard driveOptions.all else { return try sessions.map { try SessionLookup.existing($0, in: log) } }
        let wanted = try SessionLabels.filter(driveOptions.sessionLabels, option: "--session-label")
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        return try runner.sessions()
            .filter { $0.runOf == nil && !$0.isShredded && (driveOptions.locale == nil || $0.locale == driveOptions.locale) }
            .filter { $0.hasLabels(wanted) }
            .sortedByStart()
            .map(\.session)
    }

    private func writeJUnit(_ outcomes: [DriveOutcome], to path: String) throws {
        let sink = try OutputSink.file(path)
        try sink.write(bytes: Array(JUnitReport.xml(outcomes).utf8))
        try sink.close()
    }
}

/// A comparison as `compare` and `replay --expect` print it: a table of segments and a verdict line,
/// one JSON object, or CSV rows of segments.
func writeComparison(_ comparison: TranscriptComparison, run: UUID?, label: String?, format: OutputFormat,
                     to output: OutputSink) throws {
    switch format {
    case .json, .ndjson:
        try output.writeObject(ComparisonDocument(comparison: comparison, label: label, run: run))
    default:
        var writer = RowWriter<SegmentComparisonRow>(format: format == .csv ? .csv : .table, sink: output)
        for segment in comparison.segments { try writer.write(SegmentComparisonRow(comparison: comparison, segment: segment, run: run)) }
        try writer.finish()
        if format != .csv {
            let a = comparison.alignment
            output.write("\nword error rate \(Rates.rounded(comparison.wordErrorRate)) (\(a.substitutions) substituted, "
                         + "\(a.deletions) deleted, \(a.insertions) inserted of \(a.reference.count) words): "
                         + (comparison.passed ? "passed" : "failed: " + comparison.failures.joined(separator: "; ")) + "\n")
        }
    }
}
