import Foundation
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

    public func write(to fields: inout some PayloadFieldWriter) {
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
        event.payload.write(to: &fields, pcm: pcm)
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

    public func write(to fields: inout some PayloadFieldWriter) {
        fields.field("word", word.word)
        fields.field("start_ms", word.startMilliseconds)
        fields.field("end_ms", word.endMilliseconds)
        fields.field("confidence", word.confidence)
    }
}

/// The output layer's rows take an event's payload fields as they are (``PayloadFieldWriter``); a segment's words
/// become a list of ``WordRow``s.
extension Fields: PayloadFieldWriter {
    public mutating func field(_ key: String, words: [TranscriptWord]?) {
        field(key, rows: words.map { $0.map(WordRow.init) })
    }
}
