import Foundation
import Projections
import SessionModel
import Testing

@Suite struct SessionSummaryTests {
    func summary(_ b: EventBuilder) -> SessionSummary {
        var summary = SessionSummary(session: b.session)
        for event in b.events { summary.apply(event) }
        return summary
    }

    @Test func aSessionIsSummarisedFromStartToEnd() {
        var b = EventBuilder()
        b.start()
        b.add(.consentGranted(ConsentChange(subject: b.subject, consentType: "audio_recording", method: "in_app_prompt")))
        b.add(.consentGranted(ConsentChange(subject: b.subject, consentType: "transcription", method: "in_app_prompt")))
        b.add(.recordingStarted(RecordingStarted(recording: "r1", sampleRate: 16_000, channels: 1)))
        for index in 0..<10 {  // ten 100 ms chunks of 16 kHz mono
            b.add(.recordingChunk(RecordingChunk(recording: "r1", index: UInt64(index), pcm: Array(repeating: 0, count: 3200))))
        }
        b.commit("1", "Please call me, tomorrow!")
        b.add(.transcriptCommitted(TranscriptCommitted(segment: "2", text: "x", startMilliseconds: 0, endMilliseconds: 1,
                                                       words: [TranscriptWord(word: "a", startMilliseconds: 0, endMilliseconds: 1),
                                                               TranscriptWord(word: "b", startMilliseconds: 1, endMilliseconds: 2)])))
        b.add(.consentRevoked(ConsentChange(subject: b.subject, consentType: "audio_recording", method: "settings")))
        b.add(.sessionEnded(SessionEnded()), after: 5_000)
        let s = summary(b)
        #expect(s.status == .ended)
        #expect(s.subject == b.subject)
        #expect(s.locale == "en-GB")
        #expect(s.segments == 2)
        #expect(s.words == 4 + 2)
        #expect(s.recordings.count == 1)
        #expect(s.audioMilliseconds == 1000)
        #expect(s.consent == ["audio_recording": false, "transcription": true])
        #expect(s.durationMilliseconds == b.now - b.events[0].occurredAt)
    }

    @Test func pausingAndResumingMoveTheStatus() {
        var b = EventBuilder()
        b.start()
        b.add(.sessionPaused(SessionPaused()))
        #expect(summary(b).status == .paused)
        b.add(.sessionResumed)
        #expect(summary(b).status == .active)
        #expect(summary(b).durationMilliseconds == 200)
    }

    @Test func wordsAreCountedAcrossScripts() {
        var b = EventBuilder()
        b.start()
        b.commit("1", "naïve café — 東京 مرحبا بك 42")
        #expect(summary(b).words == 6)
    }
}
