import EventLog
import Foundation
import SessionModel

/// A session's transcript with the times a comparison needs: each committed segment's final text (a
/// correction replaces it), its span in the recording, when it was committed and when its first partial
/// came; and when the session's first recording started, which puts a segment's audio end on the clock.
public struct TranscriptTimeline: Sendable {
    /// A committed segment.
    public struct Segment: Sendable, Equatable {
        /// The segment's id.
        public var id: String
        /// The committed text, or its correction.
        public var text: String
        /// The segment's span in the recording, in milliseconds.
        public var startMilliseconds: UInt64
        public var endMilliseconds: UInt64
        /// When it was committed (the event's time, milliseconds since 1970).
        public var committedAt: Int64
        /// When its first partial came, if any did before the commit.
        public var firstPartialAt: Int64?
        /// Who said it, when the commit names a speaker.
        public var speaker: String? = nil
    }

    /// The session.
    public let session: UUID
    /// Committed segments by where they start in the recording (commit order for equal starts).
    public private(set) var segments: [Segment] = []
    /// When the session's first recording started; nil when it has none.
    public private(set) var recordingStartedAt: Int64?
    /// When the session's first event happened.
    public private(set) var firstEventAt: Int64?
    /// Whether its commits' times are when they were made: false for a run an app reported (``ReportedRun``), whose
    /// commits carry no time of their own, so no latency is measured from them.
    public private(set) var commitTimesMeasured = true

    private var firstPartials: [String: Int64] = [:]
    private var committedIndex: [String: Int] = [:]

    /// The timeline of `events`, the session's events in order.
    public init(session: UUID, events: some Sequence<SessionEvent>) {
        self.session = session
        for event in events { apply(event) }
        finish()
    }

    /// The timeline of `session` as stored in `log`.
    public static func load(_ session: UUID, from log: EventLog) async throws -> TranscriptTimeline {
        let loader = try SessionLoader(session: session, log: log)
        var timeline = TranscriptTimeline(session: session, events: [])
        var index = 0
        while let recorded = try await loader.event(at: index) {
            timeline.apply(recorded.event)
            index += 1
        }
        timeline.finish()
        return timeline
    }

    private mutating func apply(_ event: SessionEvent) {
        guard event.session == session else { return }
        if firstEventAt == nil { firstEventAt = event.occurredAt }
        switch event.payload {
        case .recordingStarted:
            if recordingStartedAt == nil { recordingStartedAt = event.occurredAt }
        case .transcriptPartial(let partial):
            if committedIndex[partial.segment] == nil, firstPartials[partial.segment] == nil {
                firstPartials[partial.segment] = event.occurredAt
            }
        case .transcriptCommitted(let commit):
            guard committedIndex[commit.segment] == nil else { return }
            committedIndex[commit.segment] = segments.count
            segments.append(Segment(id: commit.segment, text: commit.text, startMilliseconds: commit.startMilliseconds,
                                    endMilliseconds: commit.endMilliseconds, committedAt: event.occurredAt,
                                    firstPartialAt: firstPartials[commit.segment], speaker: commit.speaker))
        case .replayRun(let run):
            if run.speed == ReportedRun.speed { commitTimesMeasured = false }
        case .transcriptCorrected(let correction):
            if let index = committedIndex[correction.segment] { segments[index].text = correction.text }
        default:
            return
        }
    }

    private mutating func finish() {
        segments = segments.enumerated().sorted { ($0.element.startMilliseconds, $0.offset) < ($1.element.startMilliseconds, $1.offset) }
            .map(\.element)
        firstPartials = [:]
        committedIndex = [:]
    }

    /// The time on the session's clock of a point in its recording.
    func clockTime(ofRecordingMilliseconds milliseconds: UInt64) -> Int64? {
        (recordingStartedAt ?? firstEventAt).map { $0 + Int64(milliseconds) }
    }
}
