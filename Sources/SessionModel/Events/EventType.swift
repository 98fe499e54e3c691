/// Every kind of event of a dictation session, by the name stored as the log's event type.
public enum EventType: String, CaseIterable, Hashable, Sendable {
    case sessionStarted = "session.started"
    case sessionPaused = "session.paused"
    case sessionResumed = "session.resumed"
    case sessionEnded = "session.ended"
    case consentGranted = "consent.granted"
    case consentRevoked = "consent.revoked"
    case recordingStarted = "recording.started"
    case recordingChunk = "recording.chunk"
    case recordingStopped = "recording.stopped"
    case transcriptPartial = "transcript.partial"
    case transcriptCommitted = "transcript.committed"
    case transcriptCorrected = "transcript.corrected"
    case playbackStarted = "playback.started"
    case playbackPaused = "playback.paused"
    case playbackSeeked = "playback.seeked"
    case playbackStopped = "playback.stopped"
    case playbackCompleted = "playback.completed"
    case retentionPurged = "retention.purged"
    case subjectErased = "subject.erased"
    case exportPerformed = "export.performed"
    case retentionPolicySet = "retention.policy_set"
    case replayRun = "replay.run"
    case holdPlaced = "hold.placed"
    case holdReleased = "hold.released"
    case accessRead = "access.read"
    case accessPolicySet = "access.policy_set"
    case tokenCreated = "token.created"
    case tokenRevoked = "token.revoked"
    case integrityVerified = "integrity.verified"
    case checkpointIssued = "checkpoint.issued"

    /// The schema version this build writes; older versions are upcast on read (see `Migrations/`).
    public var currentSchemaVersion: UInt32 {
        switch self {
        case .recordingChunk: 2  // 2: FLAC-coded audio (field 11), frames (12), PCM SHA-256 (13)
        default: 1
        }
    }
}
