/// Writes the protobuf wire format (varints, length-delimited bytes, fixed64 doubles), so that
/// payloads are compact and any protobuf library can read them with `docs/session-events.proto`.
/// Zero and empty values are left out, as proto3 does; optional values are written when present.
package struct WireWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 128) {
        bytes.reserveCapacity(capacity)
    }

    package enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    package mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    package mutating func tag(_ field: Int, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    package mutating func uint(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// A signed integer, zigzag-encoded (`sint64`).
    package mutating func sint(_ field: Int, _ value: Int64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A signed integer with explicit presence: written whenever it is there, even zero.
    package mutating func optionalSint(_ field: Int, _ value: Int64?) {
        guard let value else { return }
        tag(field, .varint)
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    package mutating func bool(_ field: Int, _ value: Bool) {
        uint(field, value ? 1 : 0)
    }

    package mutating func double(_ field: Int, _ value: Double?) {
        guard let value else { return }
        tag(field, .fixed64)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func bytes(_ field: Int, _ value: [UInt8]) {
        guard !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A string with implicit presence: left out when empty.
    package mutating func string(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        optionalString(field, value)
    }

    /// A string with explicit presence (`optional` in the schema): written whenever it is there, even empty.
    package mutating func optionalString(_ field: Int, _ value: String?) {
        guard var value else { return }
        tag(field, .lengthDelimited)
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends bytes that are already in the wire format (fields copied from another message).
    package mutating func append(raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }

    package mutating func message(_ field: Int, _ write: (inout WireWriter) -> Void) {
        var nested = WireWriter(capacity: 32)
        write(&nested)
        tag(field, .lengthDelimited)
        varint(UInt64(nested.bytes.count))
        bytes.append(contentsOf: nested.bytes)
    }
}
