import EventRows
import Foundation
import SessionModel
import TimeCoding

/// A stored session event as the ingest line (docs/INGEST.md) that stores it again in another store
/// (`sessionstore push`): the envelope, with `at` when it happened (where and when this store put it are this
/// store's own), the payload's fields with a chunk's samples, and a subject as `subject_hash` with `subject_key`,
/// the id of the key that made the hash. Absent fields are left out.
public enum IngestLine {
    /// The line of `row` (its chunk's samples decoded: ``EventRow/init(recorded:withAudio:)``), without a line end.
    public static func bytes(of row: EventRow, subjectKeyID: String) throws -> Data {
        var line = LineFields(subjectKeyID: subjectKeyID)
        let event = row.recorded.event
        line.field("type", event.type.rawValue)
        line.field("session", id: event.session)
        line.field("id", id: event.id)
        line.field("at", time: event.occurredAt)
        line.field("correlation_id", id: event.correlationID)
        line.field("causation_id", id: event.causationID)
        event.payload.write(to: &line, pcm: row.pcm)
        return try JSONSerialization.data(withJSONObject: line.object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Whether another store takes events of `type` from an ingest line: not those a store writes itself.
    public static func isIngestible(_ type: EventType) -> Bool {
        !IngestLineParser.storeWrittenTypes.contains(type)
    }
}

/// Collects what an ingest line holds: no nulls, none of the fields `events` adds for people (a chunk's `frames` and
/// `pcm_bytes`), and `subject_key` beside a `subject_hash`.
private struct LineFields: PayloadFieldWriter {
    let subjectKeyID: String
    var object: [String: Any] = [:]

    init(subjectKeyID: String) {
        self.subjectKeyID = subjectKeyID
    }

    private static let shownOnly: Set<String> = ["frames", "pcm_bytes"]

    private mutating func set(_ key: String, _ value: Any?) {
        guard let value, !Self.shownOnly.contains(key) else { return }
        object[key] = value
    }

    mutating func field(_ key: String, _ value: String?) {
        set(key, value)
        if key == "subject_hash", value != nil { object["subject_key"] = subjectKeyID }
    }

    mutating func field(_ key: String, _ value: Int64?) { set(key, value) }
    mutating func field(_ key: String, _ value: UInt64?) { set(key, value) }
    mutating func field(_ key: String, _ value: Int?) { set(key, value) }
    mutating func field(_ key: String, _ value: UInt32?) { set(key, value) }
    mutating func field(_ key: String, _ value: Double?) { set(key, value) }
    mutating func field(_ key: String, _ value: Bool?) { set(key, value) }
    mutating func field(_ key: String, base64 bytes: [UInt8]?) { set(key, bytes.map { Data($0).base64EncodedString() }) }
    mutating func field(_ key: String, time milliseconds: Int64?) { set(key, milliseconds.map(RFC3339.string)) }
    mutating func field(_ key: String, id: UUID?) { set(key, id?.uuidString.lowercased()) }
    mutating func field(_ key: String, strings: [String]?) { set(key, strings) }
    mutating func field(labels: [String: String]) { set("labels", labels.isEmpty ? nil : labels) }

    mutating func field(_ key: String, words: [TranscriptWord]?) {
        set(key, words?.map { word -> [String: Any] in
            var fields: [String: Any] = ["word": word.word, "start_ms": word.startMilliseconds, "end_ms": word.endMilliseconds]
            if let confidence = word.confidence { fields["confidence"] = confidence }
            return fields
        })
    }
}
