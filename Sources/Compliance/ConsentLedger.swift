import Foundation
import SessionModel

/// What the log says so far about who consented to what: the fold every consent rule reads.
///
/// A consent event is stored twice with one event id (in its session and in its subject's consent
/// stream); whichever copy comes first in the log counts, once. The copy in the consent stream is
/// sealed with the audit key, so a purged or erased session's consent still counts.
struct ConsentLedger {
    enum State: Equatable {
        case never
        case granted(position: UInt64, occurredAt: Int64)
        case revoked(position: UInt64)
    }

    private(set) var subjectOfSession: [UUID: SubjectHash] = [:]
    private var states: [SubjectHash: [String: State]] = [:]
    private var seenConsentEvents: Set<UUID> = []

    /// The consent a kind of event needs: recording and playing audio need `audio_recording`,
    /// transcripts `transcription`; session lifecycle, stopping and consent events need none.
    static func consentNeeded(by type: EventType) -> String? {
        switch type {
        case .recordingStarted, .recordingChunk, .playbackStarted, .playbackSeeked: "audio_recording"
        case .transcriptPartial, .transcriptCommitted, .transcriptCorrected: "transcription"
        default: nil
        }
    }

    mutating func apply(_ recorded: RecordedSessionEvent) {
        let event = recorded.event
        switch event.payload {
        case .sessionStarted(let started):
            if let subject = started.subject { subjectOfSession[event.session] = subject }
        case .consentGranted(let change), .consentRevoked(let change):
            guard let subject = change.subject, seenConsentEvents.insert(event.id).inserted else { return }
            if subjectOfSession[event.session] == nil { subjectOfSession[event.session] = subject }
            let granted = if case .consentGranted = event.payload { true } else { false }
            states[subject, default: [:]][change.consentType] = granted
                ? .granted(position: recorded.position, occurredAt: event.occurredAt)
                : .revoked(position: recorded.position)
        default:
            return
        }
    }

    /// The state of `consentType` for the subject of `session` now; nil when the session's subject is unknown.
    func state(_ consentType: String, session: UUID) -> State? {
        guard let subject = subjectOfSession[session] else { return nil }
        return states[subject]?[consentType] ?? .never
    }
}
