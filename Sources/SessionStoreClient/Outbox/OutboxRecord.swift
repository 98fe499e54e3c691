import Foundation

/// One record of the outbox, as sealed in a segment's frame (docs/CLIENT-FORMAT.md, "Records").
enum OutboxRecord: Equatable, Sendable {
    /// An event the app appended: its ingest line, and whether it ends its session (`session.ended`).
    case event(sequence: UInt64, session: UUID, id: UUID, closes: Bool, line: Data)
    /// Every event of `session` up to `through` is stored on the server.
    case acknowledged(session: UUID, through: UInt64)
    /// The server refused the event `sequence` of `session` with `problem` (RFC 9457 JSON): nothing after it is sent.
    case refused(session: UUID, sequence: UInt64, problem: Data)
    /// The app gave up `session`: what of it is left is not sent.
    case discarded(session: UUID)

    var bytes: Data {
        var out = Data()
        switch self {
        case .event(let sequence, let session, let id, let closes, let line):
            out.append(1)
            out.appendBigEndian(sequence)
            out.append(session)
            out.append(id)
            out.append(closes ? 1 : 0)
            out.append(line)
        case .acknowledged(let session, let through):
            out.append(2)
            out.append(session)
            out.appendBigEndian(through)
        case .refused(let session, let sequence, let problem):
            out.append(3)
            out.append(session)
            out.appendBigEndian(sequence)
            out.append(problem)
        case .discarded(let session):
            out.append(4)
            out.append(session)
        }
        return out
    }

    /// The record in `bytes`, or nil when they are not one (a record that authenticated but does not parse: a newer
    /// library's, or a bug).
    init?(_ bytes: Data) {
        var reader = ByteReader(bytes)
        guard let kind = reader.byte() else { return nil }
        switch kind {
        case 1:
            guard let sequence = reader.uint64(), let session = reader.uuid(), let id = reader.uuid(), let closes = reader.byte() else { return nil }
            self = .event(sequence: sequence, session: session, id: id, closes: closes == 1, line: reader.rest())
        case 2:
            guard let session = reader.uuid(), let through = reader.uint64(), reader.isAtEnd else { return nil }
            self = .acknowledged(session: session, through: through)
        case 3:
            guard let session = reader.uuid(), let sequence = reader.uint64() else { return nil }
            self = .refused(session: session, sequence: sequence, problem: reader.rest())
        case 4:
            guard let session = reader.uuid(), reader.isAtEnd else { return nil }
            self = .discarded(session: session)
        default:
            return nil
        }
    }
}

extension Data {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func append(_ uuid: UUID) {
        Swift.withUnsafeBytes(of: uuid.uuid) { append(contentsOf: $0) }
    }
}

/// Reads big-endian integers and UUIDs off the front of bytes.
struct ByteReader {
    private let bytes: Data
    private var offset: Int

    init(_ bytes: Data) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var isAtEnd: Bool { offset == bytes.endIndex }

    mutating func byte() -> UInt8? {
        guard offset < bytes.endIndex else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint64() -> UInt64? { integer() }
    mutating func uint32() -> UInt32? { integer() }

    private mutating func integer<T: FixedWidthInteger>() -> T? {
        let size = MemoryLayout<T>.size
        guard bytes.endIndex - offset >= size else { return nil }
        defer { offset += size }
        return bytes[offset..<offset + size].reduce(T.zero) { $0 << 8 | T($1) }
    }

    mutating func uuid() -> UUID? {
        guard bytes.endIndex - offset >= 16 else { return nil }
        let slice = Array(bytes[offset..<offset + 16])
        offset += 16
        return UUID(uuid: (slice[0], slice[1], slice[2], slice[3], slice[4], slice[5], slice[6], slice[7],
                           slice[8], slice[9], slice[10], slice[11], slice[12], slice[13], slice[14], slice[15]))
    }

    mutating func rest() -> Data {
        defer { offset = bytes.endIndex }
        return Data(bytes[offset...])
    }
}
