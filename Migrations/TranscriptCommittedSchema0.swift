import SessionModel

/// `transcript.committed` schema 0, written by the first client builds, carried the confidence as an
/// integer percentage (0–100) in field 15; schema 1 carries it as a number from 0 to 1 in field 12
/// (`optional double confidence`). Every other field is the same.
enum TranscriptCommittedSchema0 {
    static let percentField = 15
    static let confidenceField = 12

    static let upcaster = SessionEventCodec.Upcaster(type: .transcriptCommitted, fromVersion: 0, upcast: upcast)

    @Sendable static func upcast(_ payload: [UInt8]) throws -> [UInt8] {
        var writer = WireWriter(capacity: payload.count + 8)
        var percent: UInt64?
        var hasConfidence = false
        try payload.withUnsafeBytes { raw in
            var reader = WireReader(raw)
            var start = 0
            while let (field, type) = try reader.nextField() {
                if field == percentField {
                    percent = try reader.uint64(type, field)
                } else {
                    if field == confidenceField { hasConfidence = true }
                    try reader.skip(type)
                    writer.append(raw: Array(raw[start..<(raw.count - reader.remaining)]))
                }
                start = raw.count - reader.remaining
            }
        }
        if let percent, !hasConfidence {
            writer.double(confidenceField, Double(min(percent, 100)) / 100)
        }
        return writer.bytes
    }
}
