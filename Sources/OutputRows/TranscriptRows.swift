import EventRows
import Foundation
import SessionModel
import Output
import Projections

/// A committed segment of a transcript, with its latest correction.
package struct SegmentRow: OutputRow {
    package static let columns = ["segment", "start_ms", "end_ms", "speaker", "confidence", "text", "committed_text",
                          "committed_at", "words"]

    package var segment: TranscriptView.Segment

    package init(segment: TranscriptView.Segment) {
        self.segment = segment
    }

    package func write(to fields: inout Fields) {
        fields.field("segment", segment.id)
        fields.field("start_ms", segment.startMilliseconds)
        fields.field("end_ms", segment.endMilliseconds)
        fields.field("speaker", segment.speaker)
        fields.field("confidence", segment.confidence)
        fields.field("text", segment.currentText)
        fields.field("committed_text", segment.correction == nil ? nil : segment.text)
        fields.field("committed_at", time: segment.committedAt)
        fields.field("words", rows: segment.words.isEmpty ? nil : segment.words.map(WordRow.init))
    }
}

/// The current guess of a segment not committed yet.
package struct PartialRow: OutputRow {
    package static let columns = ["segment", "revision", "start_ms", "end_ms", "stability", "text"]

    package var partial: TranscriptView.Partial

    package init(partial: TranscriptView.Partial) {
        self.partial = partial
    }

    package func write(to fields: inout Fields) {
        fields.field("segment", partial.segment)
        fields.field("revision", partial.revision)
        fields.field("start_ms", partial.startMilliseconds)
        fields.field("end_ms", partial.endMilliseconds)
        fields.field("stability", partial.stability)
        fields.field("text", partial.text)
    }
}

/// A transcript line of CSV or NDJSON: a committed segment or, with `--partials`, a partial one.
package struct TranscriptLineRow: OutputRow {
    package static let columns = ["session", "kind"] + SegmentRow.columns + ["revision", "stability"]

    package enum Line {
        case committed(TranscriptView.Segment)
        case partial(TranscriptView.Partial)
    }

    package var session: UUID
    package var line: Line

    package init(session: UUID, line: Line) {
        self.session = session
        self.line = line
    }

    package func write(to fields: inout Fields) {
        fields.field("session", id: session)
        switch line {
        case .committed(let segment):
            fields.field("kind", "committed")
            SegmentRow(segment: segment).write(to: &fields)
            fields.field("revision", nil as UInt64?)
            fields.field("stability", nil as Double?)
        case .partial(let partial):
            fields.field("kind", "partial")
            fields.field("segment", partial.segment)
            fields.field("start_ms", partial.startMilliseconds)
            fields.field("end_ms", partial.endMilliseconds)
            fields.field("speaker", nil as String?)
            fields.field("confidence", nil as Double?)
            fields.field("text", partial.text)
            fields.field("committed_text", nil as String?)
            fields.field("committed_at", time: nil)
            fields.field("words", rows: nil as [WordRow]?)
            fields.field("revision", partial.revision)
            fields.field("stability", partial.stability)
        }
    }
}

/// A transcript as one JSON document: the session, its committed segments and, when asked, its partials.
package struct TranscriptDocument: OutputRow {
    package static let columns = ["session", "segments", "partials"]

    package var view: TranscriptView
    package var withPartials: Bool

    package init(view: TranscriptView, withPartials: Bool) {
        self.view = view
        self.withPartials = withPartials
    }

    package func write(to fields: inout Fields) {
        fields.field("session", id: view.session)
        fields.field("segments", rows: view.segments.map(SegmentRow.init))
        if withPartials { fields.field("partials", rows: view.partials.map(PartialRow.init)) }
    }
}
