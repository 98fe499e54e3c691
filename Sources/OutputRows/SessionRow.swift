import Output
import Projections

/// A session of the session list.
package struct SessionRow: OutputRow {
    package static let columns = ["session", "status", "started_at", "ended_at", "duration_ms", "segments", "words", "recordings",
                          "audio_ms", "consent", "subject_hash", "locale", "run_of", "label", "labels"]

    package var summary: SessionSummary

    package init(summary: SessionSummary) {
        self.summary = summary
    }

    package func write(to fields: inout Fields) {
        let s = summary
        fields.field("session", id: s.session)
        fields.field("status", s.status.rawValue)
        fields.field("started_at", time: s.startedAt)
        fields.field("ended_at", time: s.endedAt)
        fields.field("duration_ms", s.durationMilliseconds)
        fields.field("segments", s.segments)
        fields.field("words", s.words)
        fields.field("recordings", s.recordings.count)
        fields.field("audio_ms", s.audioMilliseconds)
        let consent = s.consent.sorted { $0.key < $1.key }
        if fields.isFlat {
            fields.field("consent", consent.map { ($0.value ? "+" : "-") + $0.key }.joined(separator: " "))
        } else {
            fields.field("consent", object: { for (type, granted) in consent { $0.field(type, granted) } })
        }
        fields.field("subject_hash", s.subject?.description)
        fields.field("locale", s.locale)
        fields.field("run_of", id: s.runOf)
        fields.field("label", s.runLabel)
        fields.field(labels: s.labels)
    }
}
