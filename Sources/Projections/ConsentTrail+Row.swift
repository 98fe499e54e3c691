import Foundation
import SessionModel

/// A consent trail row in the `consent-trail` view, keyed `subject hash 32 | position u64`: protobuf
/// wire format, fields 1 granted · 2 session · 3 consent type · 4 method · 5 policy version ·
/// 6 occurred-at · 7 recorded-at.
extension ConsentTrail.Entry {
    package var rowBytes: [UInt8] {
        var writer = WireWriter()
        writer.bool(1, granted)
        writer.bytes(2, session.wireBytes)
        writer.string(3, consentType)
        writer.string(4, method)
        writer.optionalString(5, policyVersion)
        writer.optionalSint(6, occurredAt)
        writer.optionalSint(7, recordedAt)
        return writer.bytes
    }

    init(row: [UInt8]) throws {
        var entry = ConsentTrail.Entry(granted: false, session: UUID(), consentType: "", method: "", policyVersion: nil,
                                       occurredAt: 0, recordedAt: 0)
        try WireReader.readFields(of: row) { field, type, reader in
            switch field {
            case 1: entry.granted = try reader.uint64(type, field) != 0
            case 2: entry.session = UUID(wire: try reader.data(type, field))
            case 3: entry.consentType = try reader.text(type, field)
            case 4: entry.method = try reader.text(type, field)
            case 5: entry.policyVersion = try reader.text(type, field)
            case 6: entry.occurredAt = try reader.sint()
            case 7: entry.recordedAt = try reader.sint()
            default: try reader.skip(type)
            }
        }
        self = entry
    }
}

extension ConsentTrail.Entry {
    /// The subject and entry of a row, from its key (`subject hash 32 | position u64`) and bytes.
    static func decode(key: [UInt8], row: [UInt8]) throws -> (SubjectHash, ConsentTrail.Entry) {
        guard key.count == 40, let subject = SubjectHash(bytes: Array(key[0..<32])) else {
            throw WireReader.Malformed(reason: "a consent-trail row key is not a subject hash and a position")
        }
        var entry = try ConsentTrail.Entry(row: row)
        entry.position = key[32..<40].reduce(0) { $0 << 8 | UInt64($1) }
        return (subject, entry)
    }
}

extension ConsentTrail {
    init(subject: SubjectHash, entries: [Entry]) {
        self.init(subject: subject)
        self.entries = entries
    }
}
