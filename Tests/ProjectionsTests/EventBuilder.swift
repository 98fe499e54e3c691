import Foundation
import SessionModel

/// Builds a session's events on a clock that advances by the given gaps.
struct EventBuilder {
    let session = UUID()
    let subject = SubjectHash(bytes: Array(repeating: 7, count: 32))!
    private(set) var now: Int64 = 1_795_255_200_000
    private(set) var events: [SessionEvent] = []

    mutating func add(_ payload: SessionPayload, after gap: Int64 = 100) {
        now += gap
        events.append(SessionEvent(session: session, occurredAt: now, payload: payload))
    }

    mutating func start() {
        add(.sessionStarted(SessionStarted(subject: subject, locale: "en-GB")), after: 0)
    }

    mutating func partial(_ segment: String, _ revision: UInt32, _ text: String, after gap: Int64 = 100) {
        add(.transcriptPartial(TranscriptPartial(segment: segment, revision: revision, text: text,
                                                 startMilliseconds: 0, endMilliseconds: 1)), after: gap)
    }

    mutating func commit(_ segment: String, _ text: String, after gap: Int64 = 100) {
        add(.transcriptCommitted(TranscriptCommitted(segment: segment, text: text, startMilliseconds: 0, endMilliseconds: 1)),
            after: gap)
    }
}
