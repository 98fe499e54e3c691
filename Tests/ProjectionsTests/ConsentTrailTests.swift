import Foundation
import Projections
import SessionModel
import Testing

@Suite struct ConsentTrailTests {
    @Test func grantsAndRevocationsAreKeptInOrderWithTheirDetails() throws {
        let subject = SubjectHash(bytes: Array(repeating: 1, count: 32))!
        let someoneElse = SubjectHash(bytes: Array(repeating: 2, count: 32))!
        let session = UUID()
        var trail = ConsentTrail(subject: subject)
        let changes: [(SessionPayload, Int64)] = [
            (.consentGranted(ConsentChange(subject: subject, consentType: "transcription", method: "in_app_prompt", policyVersion: "v1")), 10),
            (.consentGranted(ConsentChange(subject: someoneElse, consentType: "transcription", method: "in_app_prompt")), 11),
            (.consentRevoked(ConsentChange(subject: subject, consentType: "transcription", method: "settings")), 20),
            (.sessionResumed, 21),
        ]
        for (index, (payload, time)) in changes.enumerated() {
            trail.apply(RecordedSessionEvent(event: SessionEvent(session: session, occurredAt: time, payload: payload),
                                             stream: UUID(), streamNumber: UInt64(index), position: UInt64(index),
                                             recordedAt: time + 1000, storedSchemaVersion: 1))
        }
        try #require(trail.entries.map(\.granted) == [true, false])
        #expect(trail.entries.map(\.occurredAt) == [10, 20])
        #expect(trail.entries[0].policyVersion == "v1")
        #expect(trail.entries[1].method == "settings")
        #expect(trail.entries.allSatisfy { $0.session == session })
        #expect(!trail.isGranted("transcription"))
        #expect(!trail.isGranted("audio_recording"))
    }
}
