import Foundation
import HexCoding

/// A person as the store knows them: the keyed BLAKE2b-256 hash of their raw user id, never the id.
public struct SubjectHash: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 32 hash bytes.
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
