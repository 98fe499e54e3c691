import Foundation
import SessionModel

/// A session's transcript as a `TranscriptRow` (docs/views.proto): protobuf wire format, fields 1 segment
/// {1 id · 2 text · 3 correction · 4 start · 5 end · 6 confidence · 7 speaker · 8 word {1 word · 2 start ·
/// 3 end · 4 confidence} · 9 committed-at} (repeated, in commit order) and 2 partial {1 segment ·
/// 2 revision · 3 text · 4 start · 5 end · 6 stability} (repeated, in order).
extension TranscriptView {
    /// The whole transcript as one row: what the rows of ``TranscriptParts`` give, concatenated.
    package var rowBytes: [UInt8] {
        var writer = WireWriter(capacity: segments.count * 96 + 64)
        for index in segments.indices { writeSegment(index, to: &writer) }
        writePartials(to: &writer)
        return writer.bytes
    }

    /// Committed segments `indexes` as fields 1 of a row: a `TranscriptRow` holding those segments alone.
    func segmentsRowBytes(_ indexes: Range<Int>) -> [UInt8] {
        var writer = WireWriter(capacity: indexes.count * 96)
        for index in indexes { writeSegment(index, to: &writer) }
        return writer.bytes
    }

    /// The partials as fields 2 of a row: a `TranscriptRow` holding the partials alone.
    var partialsRowBytes: [UInt8] {
        var writer = WireWriter(capacity: partialOrder.count * 64)
        writePartials(to: &writer)
        return writer.bytes
    }

    private func writeSegment(_ index: Int, to writer: inout WireWriter) {
        let segment = segments[index]
        writer.message(1) { w in
            w.string(1, segment.id)
            w.string(2, segment.text)
            w.optionalString(3, segment.correction)
            w.uint(4, segment.startMilliseconds)
            w.uint(5, segment.endMilliseconds)
            w.double(6, segment.confidence)
            w.optionalString(7, segment.speaker)
            for word in segment.words { word.write(asMessage: 8, to: &w) }
            w.optionalSint(9, segment.committedAt)
        }
    }

    private func writePartials(to writer: inout WireWriter) {
        for partial in partials {
            writer.message(2) { w in
                w.string(1, partial.segment)
                w.uint(2, UInt64(partial.revision))
                w.string(3, partial.text)
                w.uint(4, partial.startMilliseconds)
                w.uint(5, partial.endMilliseconds)
                w.double(6, partial.stability)
            }
        }
    }

    init(session: UUID, row: [UInt8]) throws {
        self.init(session: session)
        try WireReader.readFields(of: row) { field, type, reader in
            switch field {
            case 1:
                let segment = try Self.segment(try reader.lengthDelimited())
                committed[segment.id] = segments.count
                segments.append(segment)
            case 2:
                let partial = try Self.partial(try reader.lengthDelimited())
                partialOrder.append(partial.segment)
                partialsBySegment[partial.segment] = partial
            default: try reader.skip(type)
            }
        }
    }

    private static func segment(_ bytes: UnsafeRawBufferPointer) throws -> Segment {
        var segment = Segment(id: "", text: "", correction: nil, startMilliseconds: 0, endMilliseconds: 0, confidence: nil,
                              speaker: nil, words: [], committedAt: 0)
        try WireReader.readFields(of: bytes) { field, type, reader in
            switch field {
            case 1: segment.id = try reader.text(type, field)
            case 2: segment.text = try reader.text(type, field)
            case 3: segment.correction = try reader.text(type, field)
            case 4: segment.startMilliseconds = try reader.uint64(type, field)
            case 5: segment.endMilliseconds = try reader.uint64(type, field)
            case 6: segment.confidence = try reader.real(type, field)
            case 7: segment.speaker = try reader.text(type, field)
            case 8: segment.words.append(try TranscriptWord(message: try reader.lengthDelimited()))
            case 9: segment.committedAt = try reader.sint()
            default: try reader.skip(type)
            }
        }
        return segment
    }

    private static func partial(_ bytes: UnsafeRawBufferPointer) throws -> Partial {
        var partial = Partial(segment: "", revision: 0, text: "", startMilliseconds: 0, endMilliseconds: 0, stability: nil)
        try WireReader.readFields(of: bytes) { field, type, reader in
            switch field {
            case 1: partial.segment = try reader.text(type, field)
            case 2: partial.revision = try reader.uint32(type, field)
            case 3: partial.text = try reader.text(type, field)
            case 4: partial.startMilliseconds = try reader.uint64(type, field)
            case 5: partial.endMilliseconds = try reader.uint64(type, field)
            case 6: partial.stability = try reader.real(type, field)
            default: try reader.skip(type)
            }
        }
        return partial
    }
}
