import Crypto
import Foundation

/// The key that seals the outbox's records (ChaCha20-Poly1305): 32 bytes the app keeps apart from the outbox, in the
/// Keychain on iOS, in a key file elsewhere. The outbox holds audio, which is health data.
public struct OutboxKey: Sendable {
    let key: SymmetricKey

    /// A key of exactly 32 bytes.
    public init(bytes: some ContiguousBytes) throws {
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == 256 else {
            throw ClientError(.wrongOutboxKey, "an outbox key must be 32 bytes, not \(key.bitCount / 8)")
        }
        self.key = key
    }

    /// A new random key: store it (the Keychain, a key file) before the first append.
    public static func generate() -> OutboxKey {
        OutboxKey(key: SymmetricKey(size: .bits256))
    }

    /// The key's 32 bytes, to store.
    public var bytes: Data { key.withUnsafeBytes { Data($0) } }

    /// The key in the file at `url`: 32 bytes, or 64 hexadecimal digits and an optional newline.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ClientError(.wrongOutboxKey, "cannot read the outbox key file \(url.path)", underlying: error)
        }
        if data.count == 32 {
            try self.init(bytes: data)
            return
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count == 64, let bytes = Self.hex(text) else {
            throw ClientError(.wrongOutboxKey, "the outbox key file \(url.path) holds neither 32 bytes nor 64 hexadecimal digits")
        }
        try self.init(bytes: bytes)
    }

    private init(key: SymmetricKey) { self.key = key }

    private static func hex(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }
}
