import Foundation
import HexCoding
import Output
import SessionModel

/// A stored event in the ingest shape (docs/INGEST.md) plus where and when it was stored, as `events`
/// prints it and `replay --drive` feeds a system under test. Subjects appear as `subject_hash`: raw ids
/// are never stored.
public struct EventRow: OutputRow {
    public static let columns = [
        "type", "session", "id", "occurred_at", "recorded_at", "stream_number", "position", "correlation_id",
        "causation_id", "subject_hash", "locale", "device", "app_version", "source", "labels", "reason", "consent_type", "method",
        "policy_version", "recording", "sample_rate", "channels", "index", "frames", "pcm_bytes", "pcm", "segment",
        "revision", "text", "start_ms", "end_ms", "stability", "confidence", "speaker", "words", "position_ms", "rate",
        "from_ms", "to_ms", "policy", "cutoff_at", "partials_only", "sessions", "request_reference", "max_age_ms",
        "partials_max_age_ms", "actor", "format", "source_session", "command", "label", "speed", "started_at", "ended_at",
        "outcome", "word_error_rate", "purpose", "hold_id", "review_by", "purpose_required", "token_id", "scope", "subject_hashes",
        "expires_at", "name", "passed", "records_checked", "erased_records", "tree_size", "root_hash", "problem_count",
        "first_problem", "took_ms", "witnesses",
    ]

    /// The event.
    public var recorded: RecordedSessionEvent
    /// The chunk's PCM (16-bit little-endian samples), decoded ahead of writing (`--with-audio`);
    /// written as base64.
    public var pcm: [UInt8]?

    /// The row of `recorded`; give `pcm` to include a chunk's samples.
    public init(recorded: RecordedSessionEvent, pcm: [UInt8]? = nil) {
        self.recorded = recorded
        self.pcm = pcm
    }

    public func write(to fields: inout Fields) {
        let event = recorded.event
        fields.field("type", event.type.rawValue)
        fields.field("session", id: event.session)
        fields.field("id", id: event.id)
        fields.field("occurred_at", time: event.occurredAt)
        fields.field("recorded_at", time: recorded.recordedAt)
        fields.field("stream_number", recorded.streamNumber)
        fields.field("position", recorded.position)
        fields.field("correlation_id", id: event.correlationID)
        fields.field("causation_id", id: event.causationID)
        writePayload(event.payload, to: &fields)
    }

    private func writePayload(_ payload: SessionPayload, to fields: inout Fields) {
        switch payload {
        case .sessionStarted(let p):
            fields.field("subject_hash", p.subject?.description)
            fields.field("locale", p.locale)
            fields.field("device", p.device)
            fields.field("app_version", p.appVersion)
            fields.field("source", p.source.name)
            fields.field(labels: p.labels)
        case .sessionPaused(let p):
            fields.field("reason", p.reason)
        case .sessionEnded(let p):
            fields.field("reason", p.reason)
        case .sessionResumed:
            break
        case .consentGranted(let p), .consentRevoked(let p):
            fields.field("subject_hash", p.subject?.description)
            fields.field("consent_type", p.consentType)
            fields.field("method", p.method)
            fields.field("policy_version", p.policyVersion)
        case .recordingStarted(let p):
            fields.field("recording", p.recording)
            fields.field("sample_rate", p.sampleRate)
            fields.field("channels", p.channels)
        case .recordingChunk(let p):
            fields.field("recording", p.recording)
            fields.field("index", p.index)
            fields.field("frames", p.frames)
            if p.frames == nil, case .pcm(let bytes) = p.audio { fields.field("pcm_bytes", bytes.count) }
            if let pcm { fields.field("pcm", base64: pcm) }
        case .recordingStopped(let p), .playbackCompleted(let p):
            fields.field("recording", p.recording)
        case .transcriptPartial(let p):
            fields.field("segment", p.segment)
            fields.field("revision", p.revision)
            fields.field("text", p.text)
            fields.field("start_ms", p.startMilliseconds)
            fields.field("end_ms", p.endMilliseconds)
            fields.field("stability", p.stability)
        case .transcriptCommitted(let p):
            fields.field("segment", p.segment)
            fields.field("text", p.text)
            fields.field("start_ms", p.startMilliseconds)
            fields.field("end_ms", p.endMilliseconds)
            fields.field("confidence", p.confidence)
            fields.field("speaker", p.speaker)
            fields.field("words", rows: p.words.isEmpty ? nil : p.words.map(WordRow.init))
        case .transcriptCorrected(let p):
            fields.field("segment", p.segment)
            fields.field("text", p.text)
            fields.field("reason", p.reason)
        case .playbackStarted(let p):
            fields.field("recording", p.recording)
            fields.field("position_ms", p.positionMilliseconds)
            fields.field("rate", p.rate)
        case .playbackPaused(let p), .playbackStopped(let p):
            fields.field("recording", p.recording)
            fields.field("position_ms", p.positionMilliseconds)
        case .playbackSeeked(let p):
            fields.field("recording", p.recording)
            fields.field("from_ms", p.fromMilliseconds)
            fields.field("to_ms", p.toMilliseconds)
        case .retentionPurged(let p):
            fields.field("policy", p.policy)
            fields.field("cutoff_at", time: p.cutoff)
            fields.field("partials_only", p.partialsOnly)
        case .subjectErased(let p):
            fields.field("subject_hash", p.subject?.description)
            fields.field("sessions", strings: p.sessions.map(Hex.uuid))
            fields.field("request_reference", p.requestReference)
        case .retentionPolicySet(let p):
            fields.field("max_age_ms", p.maxAge)
            fields.field("partials_max_age_ms", p.partialsMaxAge)
        case .exportPerformed(let p):
            fields.field("actor", p.actor)
            fields.field("format", p.format)
            fields.field("sessions", strings: p.sessions.map(Hex.uuid))
            fields.field("subject_hash", p.subject?.description)
            fields.field("purpose", p.purpose)
        case .replayRun(let p):
            fields.field("source_session", id: p.source)
            fields.field("command", p.command)
            fields.field("label", p.label)
            fields.field("speed", p.speed)
            fields.field("started_at", time: p.startedAt)
            fields.field("ended_at", time: p.endedAt)
            fields.field("outcome", p.outcome.rawValue)
            fields.field("word_error_rate", p.wordErrorRate)
        case .holdPlaced(let p):
            fields.field("hold_id", id: p.hold)
            fields.field("subject_hash", p.subject?.description)
            fields.field("sessions", strings: p.sessions.map(Hex.uuid))
            fields.field("reason", p.reason)
            fields.field("actor", p.actor)
            fields.field("review_by", time: p.reviewBy)
        case .holdReleased(let p):
            fields.field("hold_id", id: p.hold)
            fields.field("reason", p.reason)
            fields.field("actor", p.actor)
        case .accessRead(let p):
            fields.field("actor", p.actor)
            fields.field("purpose", p.purpose)
            fields.field("command", p.command)
            fields.field("sessions", strings: p.sessions.map(Hex.uuid))
        case .accessPolicySet(let p):
            fields.field("purpose_required", p.purposeRequired)
        case .tokenCreated(let p):
            // The secret's hash is left out: it is of no use to a reader, and less exposure is better.
            fields.field("token_id", id: p.token)
            fields.field("scope", p.scope)
            fields.field("subject_hashes", strings: p.subjects.map(\.description))
            fields.field("expires_at", time: p.expiresAt)
            fields.field("actor", p.actor)
            fields.field("name", p.name)
        case .tokenRevoked(let p):
            fields.field("token_id", id: p.token)
            fields.field("actor", p.actor)
        case .integrityVerified(let p):
            fields.field("actor", p.actor)
            fields.field("passed", p.passed)
            fields.field("records_checked", Int(p.recordsChecked))
            fields.field("erased_records", Int(p.erasedRecords))
            fields.field("tree_size", Int(p.treeSize))
            fields.field("root_hash", Hex.string(p.rootHash))
            fields.field("problem_count", Int(p.problemCount))
            fields.field("first_problem", p.firstProblem)
            fields.field("took_ms", Int(p.tookMilliseconds))
        case .checkpointIssued(let p):
            fields.field("actor", p.actor)
            fields.field("tree_size", Int(p.treeSize))
            fields.field("root_hash", Hex.string(p.rootHash))
            fields.field("witnesses", strings: p.witnesses)
        }
    }
}

/// A word of a committed segment with its times.
public struct WordRow: OutputRow {
    public static let columns = ["word", "start_ms", "end_ms", "confidence"]

    /// The word.
    public var word: TranscriptWord

    /// The row of `word`.
    public init(word: TranscriptWord) {
        self.word = word
    }

    public func write(to fields: inout Fields) {
        fields.field("word", word.word)
        fields.field("start_ms", word.startMilliseconds)
        fields.field("end_ms", word.endMilliseconds)
        fields.field("confidence", word.confidence)
    }
}
