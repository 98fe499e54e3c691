import Foundation

/// A person as the store knows them: the keyed BLAKE2b-256 hash of their raw user id, never the id.
public struct SubjectHash: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Wraps a 32-byte hash; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Lowercase hex, 64 characters.
    public var description: String { Hex.string(bytes) }

    /// Parses 64 hex characters.
    public init?(hex: String) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: utf8[index..<(index + 2)], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    public static func < (lhs: SubjectHash, rhs: SubjectHash) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    /// The 32 bytes at once (the synthesised version combines them one by one).
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Lowercase hexadecimal, without a String per byte.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func string(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// A UUID in its canonical lowercase form, `3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f`.
    public static func uuid(_ uuid: UUID) -> String {
        let hex = Array(string(withUnsafeBytes(of: uuid.uuid) { Array($0) }).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append(UInt8(ascii: "-")) }
            out.append(digit)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
