import Foundation

/// Reads the protobuf wire format written by ``WireWriter``, field by field. Fields a reader does
/// not know are skipped by their wire type, so newer payloads stay readable by older code.
package struct WireReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    package var isAtEnd: Bool { offset >= bytes.count }
    package var remaining: Int { bytes.count - offset }

    package struct Malformed: Error, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
        package init(reason: String) { self.reason = reason }
    }

    /// The next field's number and wire type, or nil at the end.
    package mutating func nextField() throws -> (field: Int, type: UInt8)? {
        guard !isAtEnd else { return nil }
        let key = try varint()
        let field = Int(truncatingIfNeeded: key >> 3)
        guard field > 0, field < 1 << 29 else { throw Malformed(reason: "field number \(key >> 3) is out of range") }
        return (field, UInt8(key & 7))
    }

    package mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            guard shift < 64 else { break }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw Malformed(reason: "a varint runs past the end or past 64 bits")
    }

    package mutating func sint() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    package mutating func double() throws -> Double {
        guard offset + 8 <= bytes.count else { throw Malformed(reason: "a double runs past the end") }
        let bits = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        offset += 8
        return Double(bitPattern: bits)
    }

    /// The bytes of a length-delimited field, without copying.
    package mutating func lengthDelimited() throws -> UnsafeRawBufferPointer {
        let count = try varint()
        guard count <= UInt64(bytes.count - offset) else { throw Malformed(reason: "a length-delimited field runs past the end") }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(count))])
        offset += Int(count)
        return slice
    }

    package mutating func bytesField() throws -> [UInt8] { Array(try lengthDelimited()) }

    package mutating func string() throws -> String {
        let raw = try lengthDelimited()
        guard let string = String(validating: raw, as: UTF8.self) else { throw Malformed(reason: "a string is not valid UTF-8") }
        return string
    }

    /// Skips a field of the given wire type.
    package mutating func skip(_ type: UInt8) throws {
        switch type {
        case 0: _ = try varint()
        case 1: try advance(8)
        case 2: _ = try lengthDelimited()
        case 5: try advance(4)
        default: throw Malformed(reason: "wire type \(type) is not supported")
        }
    }

    private mutating func advance(_ count: Int) throws {
        guard offset + count <= bytes.count else { throw Malformed(reason: "a fixed-size field runs past the end") }
        offset += count
    }

    /// Calls `body` with each field of a whole message: its number, its wire type, and the reader
    /// positioned at its value, which `body` must read or skip.
    package static func readFields(of bytes: some ContiguousBytes,
                                  _ body: (_ field: Int, _ type: UInt8, _ reader: inout WireReader) throws -> Void) throws {
        try bytes.withUnsafeBytes { raw in try readFields(of: raw, body) }
    }

    package static func readFields(of raw: UnsafeRawBufferPointer,
                                  _ body: (_ field: Int, _ type: UInt8, _ reader: inout WireReader) throws -> Void) throws {
        var reader = WireReader(raw)
        while let (field, type) = try reader.nextField() { try body(field, type, &reader) }
    }

    /// Checks that a field of a known number has the wire type its schema gives it.
    package static func expect(_ type: UInt8, _ expected: WireWriter.WireType, field: Int) throws {
        guard type == expected.rawValue else {
            throw Malformed(reason: "field \(field) has wire type \(type), expected \(expected.rawValue)")
        }
    }
}
