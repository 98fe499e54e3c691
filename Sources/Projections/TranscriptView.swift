import Foundation
import SessionModel

/// One session's transcript, folded from its events: committed segments in the order they were
/// committed, and the current partial guess of each segment not committed yet.
///
/// A committed segment never changes: a later commit of the same segment is ignored, and a
/// correction is kept beside the committed text. A partial is superseded by a later revision of
/// its segment and by the segment's commit. Pauses add nothing; a resumed session keeps appending.
public struct TranscriptView: Hashable, Sendable {
    /// A committed segment, with its latest correction.
    public struct Segment: Hashable, Sendable {
        /// The segment's id, as the recogniser gave it.
        public var id: String
        /// The text as committed.
        public var text: String
        /// The latest correction, if any.
        public var correction: String?
        /// Where the segment starts in the recording, in milliseconds.
        public var startMilliseconds: UInt64
        /// Where the segment ends in the recording, in milliseconds.
        public var endMilliseconds: UInt64
        /// The recogniser's confidence, 0–1, when given.
        public var confidence: Double?
        /// Who spoke, when known.
        public var speaker: String?
        /// The words with their times, when given.
        public var words: [TranscriptWord]
        /// When it was committed, on the client's clock (ms since 1970).
        public var committedAt: Int64

        /// The text to show: the latest correction, else the committed text.
        public var currentText: String { correction ?? text }
    }

    /// The latest guess of a segment not committed yet.
    public struct Partial: Hashable, Sendable {
        /// The segment guessed.
        public var segment: String
        /// The guess's revision.
        public var revision: UInt32
        /// The guessed text.
        public var text: String
        /// Where the segment starts, in milliseconds.
        public var startMilliseconds: UInt64
        /// Where the guess ends, in milliseconds.
        public var endMilliseconds: UInt64
        /// How settled the guess is, 0–1, when given.
        public var stability: Double?
    }

    /// The session transcribed.
    public let session: UUID
    /// Committed segments, in commit order.
    public internal(set) var segments: [Segment] = []
    /// Uncommitted segments' latest partials, in the order the segments first appeared.
    public var partials: [Partial] { partialOrder.compactMap { partialsBySegment[$0] } }

    var committed: [String: Int] = [:]
    var partialsBySegment: [String: Partial] = [:]
    var partialOrder: [String] = []

    /// An empty transcript of `session`.
    public init(session: UUID) {
        self.session = session
    }

    /// Forgets the uncommitted partials (after retention discarded them).
    public mutating func dropPartials() {
        partialsBySegment = [:]
        partialOrder = []
    }

    /// The committed segment `id`, if committed.
    public func committedSegment(_ id: String) -> Segment? {
        committed[id].map { segments[$0] }
    }

    /// The current partial of segment `id`, while it is not committed.
    public func partial(of id: String) -> Partial? {
        partialsBySegment[id]
    }

    /// The view after `events` (of any sessions; only this session's count).
    public static func fold(session: UUID, _ events: some Sequence<SessionEvent>) -> TranscriptView {
        var view = TranscriptView(session: session)
        for event in events { view.apply(event) }
        return view
    }

    /// Folds one event in: partials supersede each other, a commit replaces its partials and never changes, a correction replaces the text shown.
    public mutating func apply(_ event: SessionEvent) {
        guard event.session == session else { return }
        switch event.payload {
        case .transcriptPartial(let partial):
            guard committed[partial.segment] == nil else { return }
            if let current = partialsBySegment[partial.segment], current.revision > partial.revision { return }
            if partialsBySegment[partial.segment] == nil { partialOrder.append(partial.segment) }
            partialsBySegment[partial.segment] = Partial(
                segment: partial.segment, revision: partial.revision, text: partial.text,
                startMilliseconds: partial.startMilliseconds, endMilliseconds: partial.endMilliseconds,
                stability: partial.stability)
        case .transcriptCommitted(let commit):
            guard committed[commit.segment] == nil else { return }
            committed[commit.segment] = segments.count
            segments.append(Segment(
                id: commit.segment, text: commit.text, correction: nil, startMilliseconds: commit.startMilliseconds,
                endMilliseconds: commit.endMilliseconds, confidence: commit.confidence, speaker: commit.speaker,
                words: commit.words, committedAt: event.occurredAt))
            if partialsBySegment.removeValue(forKey: commit.segment) != nil {
                partialOrder.removeAll { $0 == commit.segment }
            }
        case .transcriptCorrected(let correction):
            guard let index = committed[correction.segment] else { return }
            segments[index].correction = correction.text
        default:
            return
        }
    }
}
