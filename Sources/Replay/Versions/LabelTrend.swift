import EventLog
import Foundation

/// Every label's word error rate and commit latency over its runs, in the order the labels were first
/// driven: how a system changed from version to version (`sessionstore runs`).
///
/// Each label counts its latest run of each source it drove. Labels that drove different sources are not
/// comparable by these numbers alone: `sessions` says how many each covers, and `compare --baseline
/// --candidate` compares two over the sources they share.
public struct LabelTrend: Sendable {
    /// One label.
    public struct Entry: Sendable, Equatable {
        /// The label's word error rate, errors, words and latencies over its runs.
        public var system: LabelComparison.System
        /// Source sessions it drove.
        public var sessions: Int { sources.count }
        /// Those sessions, in the order of their ids: two labels' rates compare only over the same ones.
        public var sources: [UUID]
        /// When its first and its last drive started (milliseconds since 1970).
        public var firstDriveAt: Int64
        public var lastDriveAt: Int64
    }

    /// The labels, by their first drive.
    public let entries: [Entry]
    /// Every session read: the sources and the runs.
    public let sessionsRead: [UUID]

    /// The trend of every labelled run in `log`.
    public static func load(from log: EventLog) async throws -> LabelTrend {
        let runs = try LabeledRuns(in: log)
        let timelines = SourceTimelines(log: log)
        var entries: [Entry] = []
        var read = Set<UUID>()
        for (label, sources) in runs.latest {
            var comparisons: [TranscriptComparison] = []
            for (source, run) in sources.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                comparisons.append(try await timelines.comparison(of: run.run, with: source))
                read.formUnion([source, run.run])
            }
            let span = runs.span[label]!
            entries.append(Entry(system: LabelComparison.system(label, comparisons), sources: sources.keys.sorted { $0.uuidString < $1.uuidString },
                                 firstDriveAt: span.lowerBound, lastDriveAt: span.upperBound))
        }
        return LabelTrend(entries: entries.sorted { ($0.firstDriveAt, $0.system.label) < ($1.firstDriveAt, $1.system.label) },
                          sessionsRead: read.sorted { $0.uuidString < $1.uuidString })
    }

    /// The trend of these entries, in this order, read from these sessions.
    public init(entries: [Entry], sessionsRead: [UUID]) {
        self.entries = entries
        self.sessionsRead = sessionsRead
    }
}
