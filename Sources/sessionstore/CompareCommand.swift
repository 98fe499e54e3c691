import ArgumentParser
import Foundation
import Output
import OutputRows
import Replay
import SessionLog

struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Check a run against the session it replayed, or one version of a system against another.",
        discussion: """
            compare SOURCE RUN: both committed transcripts (corrections applied) are normalised (Unicode NFKC, \
            case folded, punctuation stripped, whitespace collapsed) and aligned word by word. Prints per \
            segment of SOURCE: its words, the run's words aligned to them, substitutions, deletions and \
            insertions, the drift of the run's commit from the source's, and the latency from the segment's \
            audio end to the run's first partial and commit; then the word error rate (S + D + I) / N. The \
            check fails, with exit 4, when the rate is above --max-wer (default 0.15), a commit comes later \
            than --max-commit-latency-ms, or a phrase of --phrases is missing or out of order. RUN may be any \
            session, usually one stored by `replay --drive`.

            compare --baseline A --candidate B: over every source session with runs labelled both A and B \
            (`replay --drive … --label`; the latest of each), the pooled word error rate of each, the \
            difference B - A with its --confidence interval by bootstrap over sessions, the sign test and \
            Wilcoxon's signed-rank test over per-session error counts, NIST's MAPSSWE over segments, a \
            verdict (better, worse, no significant difference), breakdowns by segment length and commit \
            latencies. Fails with exit 4 when B is worse than A by more than --max-worse at that confidence \
            (the interval's low end is above it). Below 6 sessions or 1,000 resamples, or for a label against \
            itself, the verdict is inconclusive, says why, and does not fail. Field names and definitions: \
            docs/REPLAY.md.

            Examples: sessionstore compare SOURCE RUN --max-wer 0.2 --format json
                      sessionstore compare --baseline v1 --candidate v2 --max-worse 0.01 --format json
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var access: AccessOptions

    @Argument(help: ArgumentHelp("The session replayed (the reference), or a unique prefix of its id.", valueName: "source"))
    var source: String?

    @Argument(help: ArgumentHelp("The run to check (the hypothesis), or a unique prefix of its id.", valueName: "run"))
    var run: String?

    @OptionGroup var versions: VersionOptions
    @OptionGroup var check: CheckOptions
    @OptionGroup var output: OutputOptions<RecordFormats>

    func validate() throws {
        if versions.comparesLabels {
            guard source == nil, run == nil else {
                throw ValidationError("compare takes SOURCE RUN or --baseline and --candidate, not both")
            }
            let runOnly = check.given.filter { $0 != "--junit" }
            guard runOnly.isEmpty else {
                throw ValidationError("\(runOnly.joined(separator: ", ")) checks one run (compare SOURCE RUN); --max-worse gates a comparison of labels")
            }
        } else {
            guard source != nil, run != nil else {
                throw ValidationError("compare needs SOURCE and RUN, or --baseline and --candidate")
            }
            guard versions.given.isEmpty else {
                throw ValidationError("\(versions.given.joined(separator: ", ")) compare labels: give --baseline and --candidate, not SOURCE RUN")
            }
        }
    }

    func run() async throws {
        try await reportingFailures {
            if versions.comparesLabels { try await compareLabels() } else { try await compareRun() }
        }
    }

    private func compareRun() async throws {
        let log = try storeOptions.openLog()
        let sourceID = try SessionLookup.existing(source!, in: log), runID = try SessionLookup.existing(run!, in: log)
        let thresholds = try check.thresholds()
        let comparison = try await access.open(log).read(.compare, of: [sourceID, runID]) {
            TranscriptComparison(source: try await TranscriptTimeline.load(sourceID, from: log),
                                 run: try await TranscriptTimeline.load(runID, from: log), thresholds: thresholds)
        }
        let sink = try output.sink()
        try writeComparison(comparison, run: runID, label: nil, format: output.format, to: sink)
        try sink.close()
        if let junit = check.junit {
            let outcome = DriveOutcome(source: sourceID, run: runID, outcome: comparison.passed ? .passed : .failed,
                                       comparison: comparison, seconds: 0, message: comparison.failures.joined(separator: "; "))
            try writeFile(junit, JUnitReport.xml([outcome]))
        }
        if !comparison.passed { throw CommandFailure(.checkFailed, comparison.failures.joined(separator: "; ")) }
    }

    private func compareLabels() async throws {
        let log = try storeOptions.openLog()
        let comparison = try await access.open(log).read(.compare, {
            try await LabelComparison.load(baseline: versions.baseline!, candidate: versions.candidate!, from: log, options: versions.options)
        }, sessions: \.sessionsRead)
        let sink = try output.sink()
        switch output.format {
        case .json, .ndjson:
            try sink.writeObject(LabelComparisonDocument(comparison: comparison))
        default:
            var writer = RowWriter<SessionPairRow>(format: output.format == .csv ? .csv : .table, sink: sink)
            for pair in comparison.sessions { try writer.write(SessionPairRow(pair: pair)) }
            try writer.finish()
            if output.format != .csv { sink.write("\n" + comparison.summary) }
        }
        try sink.close()
        if let junit = check.junit { try writeFile(junit, JUnitReport.xml(comparison)) }
        if !comparison.passed { throw CommandFailure(.checkFailed, comparison.gateFailure) }
    }

    private func writeFile(_ path: String, _ text: String) throws {
        let file = try OutputSink.file(path)
        try file.write(bytes: Array(text.utf8))
        try file.close()
    }
}

/// What compares two versions of a system under test by their runs' labels (`compare --baseline --candidate`).
struct VersionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The label of the runs to compare against (the version in use).", valueName: "label"))
    var baseline: String?

    @Option(help: ArgumentHelp("The label of the runs to judge (the new version).", valueName: "label"))
    var candidate: String?

    // `.unconditional`: a negative margin (`--max-worse -0.1`) is a value, not an option.
    @Option(name: .customLong("max-worse"), parsing: .unconditional, help: ArgumentHelp(
        "Fail (exit 4) when the candidate's word error rate is higher than the baseline's by more than this, "
            + "at --confidence (default 0: significantly worse at all; negative: fail unless it may be better by that much).", valueName: "rate"))
    var maxWorse: Double?

    @Option(help: ArgumentHelp("The confidence of the interval and the verdict, between 0 and 1 (default 0.95).", valueName: "level"))
    var confidence: Double?

    @Option(help: ArgumentHelp("Bootstrap draws (default 10000).", valueName: "count"))
    var resamples: Int?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The bootstrap's seed: the same runs and seed give the same interval (default 1).", valueName: "number"))
    var seed: UInt64?

    var comparesLabels: Bool { baseline != nil || candidate != nil }

    /// The options given, by name, that mean something only when comparing labels.
    var given: [String] {
        [(maxWorse != nil, "--max-worse"), (confidence != nil, "--confidence"), (resamples != nil, "--resamples"),
         (seed != nil, "--seed")].filter(\.0).map(\.1)
    }

    var options: LabelComparison.Options {
        let defaults = LabelComparison.Options()
        return LabelComparison.Options(confidence: confidence ?? defaults.confidence, maxWorse: maxWorse ?? defaults.maxWorse,
                                       resamples: resamples ?? defaults.resamples, seed: seed ?? defaults.seed)
    }

    func validate() throws {
        if comparesLabels, baseline == nil || candidate == nil {
            throw ValidationError("give both --baseline and --candidate: the two labels to compare")
        }
        do {
            try options.validate()
        } catch let error as LabelComparisonError {
            throw ValidationError(error.message)
        }
    }
}
