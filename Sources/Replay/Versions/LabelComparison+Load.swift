import EventLog
import Failures
import Foundation

extension LabelComparison {
    /// The comparison, in `log`, of the runs labelled `baseline` with those labelled `candidate`: for every
    /// source session with a run of both, the latest of each (by when its drive started). Refused when a
    /// label has no run, or no source has runs of both.
    public static func load(baseline: String, candidate: String, from log: EventLog, options: Options = Options()) async throws -> LabelComparison {
        try options.validate()
        let runs = try LabeledRuns(in: log, labels: [baseline, candidate])
        for label in [baseline, candidate] where runs.latest[label] == nil {
            throw LabelComparisonError(.noRuns, "no run in the store is labelled \"\(label)\" (`replay --drive … --label \(label)` stores one)")
        }
        let baselineRuns = runs.latest[baseline]!, candidateRuns = runs.latest[candidate]!
        let sources = Set(baselineRuns.keys).intersection(candidateRuns.keys).sorted { $0.uuidString < $1.uuidString }
        guard !sources.isEmpty else {
            throw LabelComparisonError(.noRuns, "no source session has runs labelled both \"\(baseline)\" and \"\(candidate)\"; "
                                       + "drive the same sessions with each label")
        }
        let timelines = SourceTimelines(log: log)
        var pairs: [SessionPair] = []
        for source in sources {
            pairs.append(SessionPair(source: source, baseline: try await timelines.comparison(of: baselineRuns[source]!.run, with: source),
                                     candidate: try await timelines.comparison(of: candidateRuns[source]!.run, with: source),
                                     condition: runs.sourceLabels[source]?["condition"]))
        }
        return LabelComparison(baselineLabel: baseline, candidateLabel: candidate, pairs: pairs, options: options)
    }
}

/// Why two labels could not be compared.
public struct LabelComparisonError: CodedError, Sendable {
    public typealias Code = ErrorCode<LabelComparisonError>

    public var code: Code
    public var message: String
    /// The error that caused this one, when there was one.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }
}

extension ErrorCode where Domain == LabelComparisonError {
    /// A label has no run in the store, or no source session has runs of both labels.
    public static let noRuns = Self("no runs", .notFound)
    /// The labels or the options cannot be compared as given.
    public static let invalidRequest = Self("invalid request", .usage)
}
