import EventRows
import Foundation
import Output
import Projections
import SessionModel

/// One session of a JSON export (docs/export.schema.json).
struct ExportSessionRow: OutputRow {
    static let columns = ["session", "subject_hash", "locale", "labels", "status", "started_at", "ended_at", "duration_ms",
                          "segments", "recordings", "consent"]

    var session: ExportedSession
    var options: ExportOptions

    func write(to fields: inout Fields) {
        let summary = session.summary
        fields.field("session", id: summary.session)
        fields.field("subject_hash", summary.subject?.description)
        fields.field("locale", summary.locale)
        fields.field(labels: summary.labels)
        fields.field("status", summary.status.rawValue)
        fields.field("started_at", time: summary.startedAt)
        fields.field("ended_at", time: summary.endedAt)
        fields.field("duration_ms", summary.durationMilliseconds)
        fields.field("segments", rows: session.transcript.segments.map { ExportSegmentRow(segment: $0, options: options) })
        fields.field("recordings", rows: summary.recordings.sorted { $0.key < $1.key }.map(ExportRecordingRow.init))
        fields.field("consent", rows: session.consent.map(ExportConsentRow.init))
    }
}

/// A committed segment of a JSON export; `words` only when the segment has word timings.
struct ExportSegmentRow: OutputRow {
    static let columns = ["segment", "start_ms", "end_ms", "speaker", "confidence", "text", "words"]

    var segment: TranscriptView.Segment
    var options: ExportOptions

    func write(to fields: inout Fields) {
        fields.field("segment", segment.id)
        fields.field("start_ms", segment.startMilliseconds)
        fields.field("end_ms", segment.endMilliseconds)
        fields.field("speaker", segment.speaker)
        fields.field("confidence", segment.confidence)
        fields.field("text", options.text(segment.currentText))
        if !segment.words.isEmpty {
            fields.field("words", rows: segment.words.map { ExportWordRow(word: $0, options: options) })
        }
    }
}

/// A word with its times.
struct ExportWordRow: OutputRow {
    static let columns = ["word", "start_ms", "end_ms", "confidence"]

    var word: TranscriptWord
    var options: ExportOptions

    func write(to fields: inout Fields) {
        fields.field("word", options.text(word.word))
        fields.field("start_ms", word.startMilliseconds)
        fields.field("end_ms", word.endMilliseconds)
        fields.field("confidence", word.confidence)
    }
}

/// A recording of the session, by id.
struct ExportRecordingRow: OutputRow {
    static let columns = ["recording", "sample_rate", "channels", "frames", "duration_ms"]

    var recording: (id: String, value: SessionSummary.Recording)

    init(_ recording: (key: String, value: SessionSummary.Recording)) {
        self.recording = (recording.key, recording.value)
    }

    func write(to fields: inout Fields) {
        fields.field("recording", recording.id)
        fields.field("sample_rate", recording.value.sampleRate)
        fields.field("channels", recording.value.channels)
        fields.field("frames", recording.value.frames)
        fields.field("duration_ms", recording.value.milliseconds)
    }
}

/// A grant or revocation made in the session; `at` is when it happened (client clock).
struct ExportConsentRow: OutputRow {
    static let columns = ["consent_type", "status", "method", "policy_version", "at"]

    var entry: ConsentTrail.Entry

    func write(to fields: inout Fields) {
        fields.field("consent_type", entry.consentType)
        fields.field("status", entry.granted ? "granted" : "revoked")
        fields.field("method", entry.method)
        fields.field("policy_version", entry.policyVersion)
        fields.field("at", time: entry.occurredAt)
    }
}

/// A row of a CSV export: a committed segment, or (with partials) one revision of a partial.
struct ExportCSVRow: OutputRow {
    static let columns = ["session_id", "segment_id", "start_ms", "end_ms", "start", "end", "speaker", "confidence", "text"]

    var session: UUID
    var segment: String
    var startMilliseconds: UInt64
    var endMilliseconds: UInt64
    var speaker: String?
    var confidence: Double?
    var text: String
    var excel: Bool

    func write(to fields: inout Fields) {
        fields.field("session_id", id: session)
        fields.field("segment_id", cell(segment))
        fields.field("start_ms", startMilliseconds)
        fields.field("end_ms", endMilliseconds)
        fields.field("start", Timecode.string(startMilliseconds))
        fields.field("end", Timecode.string(endMilliseconds))
        fields.field("speaker", speaker.map(cell))
        fields.field("confidence", confidence)
        fields.field("text", cell(text))
    }

    /// With `--excel`, a cell a spreadsheet would run as a formula gets a leading `'` (OWASP).
    private func cell(_ text: String) -> String {
        guard excel, let first = text.unicodeScalars.first, Self.formulaStarts.contains(first) else { return text }
        return "'" + text
    }

    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r", "\0"]
}

/// A CSV row with `--partials`: the same columns and `is_final` (false for a superseded partial revision).
struct ExportCSVRevisionRow: OutputRow {
    static let columns = ExportCSVRow.columns + ["is_final"]

    var row: ExportCSVRow
    var isFinal: Bool

    func write(to fields: inout Fields) {
        row.write(to: &fields)
        fields.field("is_final", isFinal)
    }
}
