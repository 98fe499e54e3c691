import Foundation
import SessionModel

/// One thing `audit check` found wrong: which rule, in which session, at which event.
public struct Violation: Hashable, Sendable {
    /// The rules, each documented with its rationale in docs/COMPLIANCE.md.
    public enum Rule: String, CaseIterable, Hashable, Sendable {
        /// Audio recorded (a recording started, or a chunk) while the subject had never granted `audio_recording`.
        case recordingWithoutConsent = "recording_without_consent"
        /// A transcript event while the subject had never granted `transcription`.
        case transcriptWithoutConsent = "transcript_without_consent"
        /// A recording played (started or sought) while the subject had never granted `audio_recording`.
        case playbackWithoutConsent = "playback_without_consent"
        /// An event that needs a consent after the subject revoked it: the first one, with how many followed.
        case eventAfterRevocation = "event_after_revocation"
        /// The consent in effect was, by the client's own clock, given after the use it covers began.
        case consentGrantedAfterUse = "consent_granted_after_use"
        /// A session that ended longer ago than the retention policy allows is still readable.
        case retentionExceeded = "retention_exceeded"
        /// Data of an erased subject, or of a purged session, is still readable.
        case erasedDataReadable = "erased_data_readable"
        /// A session's client clock went backwards between two of its events by more than 2 seconds.
        case clockWentBackwards = "clock_went_backwards"
        /// A legal hold is still in force after the review date set when it was placed.
        case holdReviewOverdue = "hold_review_overdue"
    }

    /// The rule broken.
    public var rule: Rule
    /// The session concerned.
    public var session: UUID
    /// The global position of the (first) event that breaks it.
    public var position: UInt64
    /// When that event happened (client clock, ms since 1970).
    public var occurredAt: Int64
    /// What exactly, in one sentence: counts, consent types, times. Never personal data.
    public var detail: String
}
