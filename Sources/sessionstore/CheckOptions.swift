import ArgumentParser
import Foundation
import Replay

/// What decides whether a run passes (`compare`, `replay --expect`): docs/REPLAY.md.
struct CheckOptions: ParsableArguments {
    @Option(name: .customLong("max-wer"), help: ArgumentHelp(
        "The highest word error rate that passes, 0–1 (default \(TranscriptComparison.Thresholds.defaultMaxWordErrorRate)).",
        valueName: "rate"))
    var maxWordErrorRate: Double?

    @Option(name: .customLong("max-commit-latency-ms"), help: ArgumentHelp(
        "Fail when a segment is committed more than this long after its audio ends.", valueName: "ms"))
    var maxCommitLatency: Int64?

    @Option(help: ArgumentHelp(
        "A file of key phrases, one per line, that the run's transcript must hold in this order.", valueName: "file"))
    var phrases: String?

    @Option(help: ArgumentHelp(
        "Also write the result as JUnit XML (one test case per session) to this file.", valueName: "file"))
    var junit: String?

    func validate() throws {
        if let maxWordErrorRate, !(maxWordErrorRate.isFinite && maxWordErrorRate >= 0) {
            throw ValidationError("--max-wer \(maxWordErrorRate) is not a rate of 0 or more, such as 0.15")
        }
        if let maxCommitLatency, maxCommitLatency < 0 {
            throw ValidationError("--max-commit-latency-ms \(maxCommitLatency) is negative")
        }
    }

    /// The options given, by name: they mean something only where a check is made.
    var given: [String] {
        [(maxWordErrorRate != nil, "--max-wer"), (maxCommitLatency != nil, "--max-commit-latency-ms"),
         (phrases != nil, "--phrases"), (junit != nil, "--junit")].filter(\.0).map(\.1)
    }

    /// The thresholds, the phrases read from their file.
    func thresholds() throws -> TranscriptComparison.Thresholds {
        var phraseList: [String] = []
        if let phrases {
            let text: String
            do {
                text = try String(contentsOfFile: phrases, encoding: .utf8)
            } catch {
                throw CommandFailure(.usage, "--phrases \(phrases) cannot be read as UTF-8 text: \(error.localizedDescription)")
            }
            phraseList = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !phraseList.isEmpty else { throw CommandFailure(.usage, "--phrases \(phrases) holds no phrase (one per line)") }
        }
        return TranscriptComparison.Thresholds(maxWordErrorRate: maxWordErrorRate ?? TranscriptComparison.Thresholds.defaultMaxWordErrorRate,
                                               maxCommitLatencyMilliseconds: maxCommitLatency,
                                               phrases: phraseList)
    }
}
