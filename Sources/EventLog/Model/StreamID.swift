import Foundation

/// Identifies a stream: one session, one subject's consent trail, or any other sequence of events.
public struct StreamID: Hashable, Sendable, CustomStringConvertible {
    /// The stream's id as a UUID.
    public let uuid: UUID

    /// The stream with this id.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// A new random stream id.
    public init() { self.uuid = UUID() }

    /// Parses the canonical textual form, `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public init?(_ string: String) {
        guard let uuid = UUID(uuidString: string) else { return nil }
        self.uuid = uuid
    }

    public var description: String { uuid.uuidString.lowercased() }
}

extension UUID {
    /// The 16 bytes in RFC 9562 order, as they are written to disk.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 16)
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: bytes) }
        self.init(uuid: value)
    }
}
