/// What happened, with the fields of each kind of event.
public enum SessionPayload: Hashable, Sendable {
    case sessionStarted(SessionStarted)
    case sessionPaused(SessionPaused)
    case sessionResumed
    case sessionEnded(SessionEnded)
    case consentGranted(ConsentChange)
    case consentRevoked(ConsentChange)
    case recordingStarted(RecordingStarted)
    case recordingChunk(RecordingChunk)
    case recordingStopped(RecordingStopped)
    case transcriptPartial(TranscriptPartial)
    case transcriptCommitted(TranscriptCommitted)
    case transcriptCorrected(TranscriptCorrected)
    case playbackStarted(PlaybackStarted)
    case playbackPaused(PlaybackPosition)
    case playbackSeeked(PlaybackSeeked)
    case playbackStopped(PlaybackPosition)
    case playbackCompleted(PlaybackCompleted)
    case retentionPurged(RetentionPurged)
    case subjectErased(SubjectErased)
    case exportPerformed(ExportPerformed)
    case retentionPolicySet(RetentionPolicy)
    case replayRun(ReplayRun)
    case holdPlaced(HoldPlaced)
    case holdReleased(HoldReleased)
    case accessRead(AccessRead)
    case accessPolicySet(AccessPolicy)
    case tokenCreated(TokenCreated)
    case tokenRevoked(TokenRevoked)
    case integrityVerified(IntegrityVerified)
    case checkpointIssued(CheckpointIssued)

    /// The event type of this payload.
    public var type: EventType {
        switch self {
        case .sessionStarted: .sessionStarted
        case .sessionPaused: .sessionPaused
        case .sessionResumed: .sessionResumed
        case .sessionEnded: .sessionEnded
        case .consentGranted: .consentGranted
        case .consentRevoked: .consentRevoked
        case .recordingStarted: .recordingStarted
        case .recordingChunk: .recordingChunk
        case .recordingStopped: .recordingStopped
        case .transcriptPartial: .transcriptPartial
        case .transcriptCommitted: .transcriptCommitted
        case .transcriptCorrected: .transcriptCorrected
        case .playbackStarted: .playbackStarted
        case .playbackPaused: .playbackPaused
        case .playbackSeeked: .playbackSeeked
        case .playbackStopped: .playbackStopped
        case .playbackCompleted: .playbackCompleted
        case .retentionPurged: .retentionPurged
        case .subjectErased: .subjectErased
        case .exportPerformed: .exportPerformed
        case .retentionPolicySet: .retentionPolicySet
        case .replayRun: .replayRun
        case .holdPlaced: .holdPlaced
        case .holdReleased: .holdReleased
        case .accessRead: .accessRead
        case .accessPolicySet: .accessPolicySet
        case .tokenCreated: .tokenCreated
        case .tokenRevoked: .tokenRevoked
        case .integrityVerified: .integrityVerified
        case .checkpointIssued: .checkpointIssued
        }
    }
}
