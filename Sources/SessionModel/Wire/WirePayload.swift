/// A payload's fields in the wire format. Fields 1–4 belong to the envelope (schema version,
/// occurred-at, correlation id, causation id); a payload's own fields are numbered from 8.
protocol WirePayload {
    init()
    func write(to writer: inout WireWriter)
    /// Reads one field if it is the payload's; returns false for a field it does not know.
    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool
}

extension WireReader {
    package mutating func uint64(_ type: UInt8, _ field: Int) throws -> UInt64 {
        try Self.expect(type, .varint, field: field)
        return try varint()
    }

    package mutating func uint32(_ type: UInt8, _ field: Int) throws -> UInt32 {
        let value = try uint64(type, field)
        guard value <= UInt64(UInt32.max) else { throw Malformed(reason: "field \(field) is too large for 32 bits") }
        return UInt32(value)
    }

    package mutating func text(_ type: UInt8, _ field: Int) throws -> String {
        try Self.expect(type, .lengthDelimited, field: field)
        return try string()
    }

    package mutating func data(_ type: UInt8, _ field: Int) throws -> [UInt8] {
        try Self.expect(type, .lengthDelimited, field: field)
        return try bytesField()
    }

    package mutating func real(_ type: UInt8, _ field: Int) throws -> Double {
        try Self.expect(type, .fixed64, field: field)
        return try double()
    }

    package mutating func subject(_ type: UInt8, _ field: Int) throws -> SubjectHash {
        guard let hash = SubjectHash(bytes: try data(type, field)) else {
            throw Malformed(reason: "field \(field) is not a 32-byte subject hash")
        }
        return hash
    }
}
