import Foundation
import Projections
import SessionModel
import Testing

@Suite struct TranscriptViewTests {
    @Test func partialsAreSupersededByLaterRevisionsAndByTheCommit() {
        var b = EventBuilder()
        b.start()
        b.partial("1", 0, "please")
        b.partial("1", 1, "please cool")
        b.partial("1", 2, "please call me")
        b.partial("2", 0, "tomorrow")
        var view = TranscriptView.fold(session: b.session, b.events)
        #expect(view.segments.isEmpty)
        #expect(view.partials.map(\.text) == ["please call me", "tomorrow"])

        b.commit("1", "Please call me.")
        view = TranscriptView.fold(session: b.session, b.events)
        #expect(view.segments.map(\.text) == ["Please call me."])
        #expect(view.partials.map(\.segment) == ["2"])
    }

    @Test func anOlderRevisionArrivingLateDoesNotWin() {
        var b = EventBuilder()
        b.start()
        b.partial("1", 3, "the newest guess")
        b.partial("1", 1, "an older guess")
        #expect(TranscriptView.fold(session: b.session, b.events).partials.map(\.text) == ["the newest guess"])
    }

    @Test func aCommittedSegmentNeverChangesAndACorrectionIsKeptBesideIt() throws {
        var b = EventBuilder()
        b.start()
        b.commit("1", "Send it to Dr. Patel.")
        b.partial("1", 9, "late partial for a committed segment")
        b.commit("1", "A second commit of the same segment")
        b.add(.transcriptCorrected(TranscriptCorrected(segment: "1", text: "Send it to Dr. Patil.", reason: "name")))
        let view = TranscriptView.fold(session: b.session, b.events)
        try #require(view.segments.count == 1)
        #expect(view.segments[0].text == "Send it to Dr. Patel.")
        #expect(view.segments[0].correction == "Send it to Dr. Patil.")
        #expect(view.segments[0].currentText == "Send it to Dr. Patil.")
        #expect(view.partials.isEmpty)
    }

    @Test func longPausesAddNothingAndAResumedSessionKeepsAppending() {
        var b = EventBuilder()
        b.start()
        b.commit("1", "First sentence.")
        b.add(.sessionPaused(SessionPaused()), after: 1_000)
        b.add(.sessionResumed, after: 30 * 60 * 1000)  // half an hour later
        b.commit("2", "Second sentence.", after: 25_000)
        let view = TranscriptView.fold(session: b.session, b.events)
        #expect(view.segments.map(\.text) == ["First sentence.", "Second sentence."])
        #expect(view.segments.map(\.committedAt) == [b.events[1].occurredAt, b.events[4].occurredAt])
    }

    @Test func eventsOfOtherSessionsAreIgnored() {
        var b = EventBuilder()
        b.start()
        var other = EventBuilder()
        other.commit("1", "not mine")
        let view = TranscriptView.fold(session: b.session, b.events + other.events)
        #expect(view.segments.isEmpty)
    }
}
