import EventLog
import Failures
import Foundation
import Projections
import SessionModel

/// Where a replay's views first part from the stored projections.
public struct ReplayDivergence: CodedError, Sendable, Equatable {
    public var code: ErrorCode<ReplayDivergence> { .divergence }
    public var message: String { description }

    /// `transcript` or `sessions`.
    public var view: String
    /// The field that differs, e.g. `segments[segment-2].text` or `words`.
    public var field: String
    /// What the stored projection holds.
    public var expected: String
    /// What the replay folded.
    public var actual: String
    /// The step whose event produced the replayed value.
    public var step: Int
    /// The event's number in the session's stream.
    public var eventNumber: UInt64
    /// The event's type.
    public var eventType: String

    public var description: String {
        "the \(view) view differs at step \(step) (event \(eventNumber), \(eventType)): \(field) is stored as \(expected) but replays as \(actual)"
    }
}

extension SessionReplay {
    /// Replays to the end, rebuilding the views, and compares them with the stored projections
    /// (caught up first). Returns the trace digest and, if they differ, the earliest divergence:
    /// the step whose event produced a replayed value the store disagrees with.
    public mutating func verify(against log: EventLog, onStep: (ReplayStep) throws -> Void = { _ in })
        async throws -> (digest: String, divergence: ReplayDivergence?) {
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        let storedTranscript = try runner.transcript(of: session) ?? TranscriptView(session: session)
        let storedSummary = try runner.session(session) ?? SessionSummary(session: session)

        var lastSegmentStep: [String: ReplayStep] = [:]
        var lastSummaryStep: [String: ReplayStep] = [:]
        var previous = SummaryFields(summary)
        while let step = try await next() {
            if let segment = Self.transcriptSegment(of: step.event.event.payload) { lastSegmentStep[segment] = step }
            let fields = SummaryFields(summary)
            for (name, value) in fields.values where previous.values[name] != value { lastSummaryStep[name] = step }
            previous = fields
            try onStep(step)
        }

        var divergences: [ReplayDivergence] = []
        func diverge(_ view: String, _ field: String, _ expected: String, _ actual: String, _ step: ReplayStep?) {
            guard let step else { return }
            divergences.append(ReplayDivergence(view: view, field: field, expected: expected, actual: actual, step: step.number,
                                                eventNumber: step.event.streamNumber, eventType: step.event.event.type.rawValue))
        }
        let segmentIDs = Set(transcript.segments.map(\.id) + storedTranscript.segments.map(\.id)
                             + transcript.partials.map(\.segment) + storedTranscript.partials.map(\.segment))
        for id in segmentIDs.sorted() {
            let replayed = Self.describe(transcript, segment: id), stored = Self.describe(storedTranscript, segment: id)
            if replayed != stored { diverge("transcript", "segments[\(id)]", stored, replayed, lastSegmentStep[id]) }
        }
        if transcript.segments.map(\.id) != storedTranscript.segments.map(\.id), divergences.isEmpty {
            diverge("transcript", "segment order", storedTranscript.segments.map(\.id).joined(separator: ","),
                    transcript.segments.map(\.id).joined(separator: ","), lastSegmentStep[transcript.segments.last?.id ?? ""])
        }
        let stored = SummaryFields(storedSummary).values, replayed = SummaryFields(summary).values
        for name in replayed.keys.sorted() where stored[name] != replayed[name] {
            diverge("sessions", name, stored[name] ?? "nothing", replayed[name]!, lastSummaryStep[name])
        }
        return (digest, divergences.min { $0.step < $1.step })
    }

    /// A segment as a comparable string: committed text and correction, or the current partial.
    static func describe(_ view: TranscriptView, segment id: String) -> String {
        if let committed = view.committedSegment(id) {
            return "committed \(String(reflecting: committed.text))" + (committed.correction.map { ", corrected to \(String(reflecting: $0))" } ?? "")
        }
        if let partial = view.partial(of: id) { return "partial r\(partial.revision) \(String(reflecting: partial.text))" }
        return "absent"
    }
}

/// The session summary's fields as comparable strings.
private struct SummaryFields {
    var values: [String: String]

    init(_ summary: SessionSummary) {
        values = [
            "status": summary.status.rawValue,
            "subject": summary.subject.map { "\($0)" } ?? "none",
            "locale": summary.locale ?? "none",
            "started": summary.startedAt.map(String.init) ?? "none",
            "ended": summary.endedAt.map(String.init) ?? "none",
            "segments": String(summary.segments),
            "words": String(summary.words),
            "audio_ms": String(summary.audioMilliseconds),
            "recordings": String(summary.recordings.count),
            "consent": summary.consent.sorted { $0.key < $1.key }.map { "\($0.value ? "+" : "-")\($0.key)" }.joined(separator: " "),
        ]
    }
}

extension ErrorCode where Domain == ReplayDivergence {
    /// The replayed views differ from the stored projections.
    public static let divergence = Self("divergence", .integrity)
}
