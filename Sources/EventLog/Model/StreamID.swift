import Foundation

/// Identifies a stream: one session, one subject's consent trail, or any other sequence of events.
public struct StreamID: Hashable, Sendable, CustomStringConvertible {
    /// The stream's id as a UUID.
    public let uuid: UUID

    /// The stream with this id.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// A new random stream id.
    public init() { self.uuid = .randomFromSodium() }

    /// Parses the canonical textual form, `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public init?(_ string: String) {
        guard let uuid = UUID(uuidString: string) else { return nil }
        self.uuid = uuid
    }

    public var description: String { uuid.uuidString.lowercased() }
}

extension UUID {
    /// A random (version 4) UUID from libsodium's generator. Foundation's `UUID()` on Linux opens,
    /// reads and closes /dev/urandom for each one: a third of an append's time for small events.
    @usableFromInline
    static func randomFromSodium() -> UUID {
        var bytes = Sodium.randomBytes(count: 16)
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 9562 variant
        return bytes.withUnsafeBytes { UUID(bytes: $0) }
    }

    /// The 16 bytes in RFC 9562 order, as they are written to disk.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 16)
        self.init(uuid: bytes.loadUnaligned(as: uuid_t.self))
    }
}
