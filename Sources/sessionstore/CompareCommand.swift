import ArgumentParser
import Foundation
import Output
import Replay

struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Check a run's transcript against the session it replayed: word error rate, alignment, timing.",
        discussion: """
            Both committed transcripts (corrections applied) are normalised (Unicode NFKC, case folded, \
            punctuation stripped, whitespace collapsed) and aligned word by word. Prints per segment of \
            SOURCE: its words, the run's words aligned to them, substitutions, deletions and insertions, \
            the drift of the run's commit from the source's, and the latency from the segment's audio end \
            to the run's first partial and commit; then the word error rate (S + D + I) / N. The check \
            fails, with exit 4, when the rate is above --max-wer (default 0.15), a commit comes later than \
            --max-commit-latency-ms, or a phrase of --phrases is missing or out of order. RUN may be any \
            session, usually one stored by `replay --drive`. Field names and definitions: docs/REPLAY.md.

            Example: sessionstore compare SOURCE RUN --max-wer 0.2 --format json
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var access: AccessOptions

    @Argument(help: ArgumentHelp("The session replayed (the reference), or a unique prefix of its id.", valueName: "source"))
    var source: String

    @Argument(help: ArgumentHelp("The run to check (the hypothesis), or a unique prefix of its id.", valueName: "run"))
    var run: String

    @OptionGroup var check: CheckOptions
    @OptionGroup var output: OutputOptions<RecordFormats>

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let sourceID = try existingSession(source, in: log), runID = try existingSession(run, in: log)
            try await access.recordRead("compare", of: [sourceID, runID], in: log)
            let thresholds = try check.thresholds()
            let comparison = TranscriptComparison(source: try await TranscriptTimeline.load(sourceID, from: log),
                                                  run: try await TranscriptTimeline.load(runID, from: log), thresholds: thresholds)
            let sink = try output.sink()
            try writeComparison(comparison, run: runID, label: nil, format: output.format, to: sink)
            try sink.close()
            if let junit = check.junit {
                let outcome = DriveOutcome(source: sourceID, run: runID, outcome: comparison.passed ? .passed : .failed,
                                           comparison: comparison, seconds: 0, message: comparison.failures.joined(separator: "; "))
                let file = try OutputSink.file(junit)
                try file.write(bytes: Array(JUnitReport.xml([outcome]).utf8))
                try file.close()
            }
            if !comparison.passed { throw CommandFailure(.checkFailed, comparison.failures.joined(separator: "; ")) }
        }
    }
}
