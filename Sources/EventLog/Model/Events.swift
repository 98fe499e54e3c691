import Foundation

/// An event to append: its id, its type and its payload bytes (opaque to the log).
public struct ProposedEvent: Hashable, Sendable {
    /// The largest payload the log accepts, in bytes.
    public static let maximumDataCount = 64 << 20

    public var id: UUID
    public var type: String
    public var data: [UInt8]

    /// - Parameters:
    ///   - id: the event's unique id; a fresh one by default.
    ///   - type: a name of 1 to 255 UTF-8 bytes, such as `transcript.committed`.
    ///   - data: the payload, at most ``maximumDataCount`` bytes.
    public init(id: UUID = UUID(), type: String, data: [UInt8]) {
        self.id = id
        self.type = type
        self.data = data
    }
}

/// An event as stored: where it sits in its stream and in the log, and when it was recorded.
public struct RecordedEvent: Hashable, Sendable {
    public var id: UUID
    public var stream: StreamID
    /// The event's number within its stream, from 0.
    public var streamNumber: UInt64
    /// The event's global position in the log, from 0; also its leaf index in the Merkle tree.
    public var position: UInt64
    public var type: String
    public var data: [UInt8]
    /// The store's clock when the event was appended, in milliseconds since 1970-01-01T00:00:00Z.
    public var recordedAtMilliseconds: Int64

    public var recordedAt: Date { Date(timeIntervalSince1970: Double(recordedAtMilliseconds) / 1000) }

    public init(id: UUID, stream: StreamID, streamNumber: UInt64, position: UInt64, type: String, data: [UInt8],
                recordedAtMilliseconds: Int64) {
        self.id = id
        self.stream = stream
        self.streamNumber = streamNumber
        self.position = position
        self.type = type
        self.data = data
        self.recordedAtMilliseconds = recordedAtMilliseconds
    }
}

/// One stream's part of an append: ``EventLog/append(_:)`` takes several, atomically.
public struct StreamAppend: Hashable, Sendable {
    public var stream: StreamID
    public var events: [ProposedEvent]
    public var expectedVersion: ExpectedVersion
    public var keyScope: KeyScope
    public var deduplicate: Bool

    public init(stream: StreamID, events: [ProposedEvent], expectedVersion: ExpectedVersion = .any,
                keyScope: KeyScope = .stream, deduplicate: Bool = false) {
        self.stream = stream
        self.events = events
        self.expectedVersion = expectedVersion
        self.keyScope = keyScope
        self.deduplicate = deduplicate
    }
}

/// Which data key encrypts a new stream's events.
public enum KeyScope: Hashable, Sendable {
    /// A data key of the stream's own: destroying it erases exactly this stream.
    case stream
    /// The store's shared audit key, for records (such as consent) that must outlive erasure.
    case audit
}

/// What a stream looks like now.
public struct StreamMetadata: Hashable, Sendable {
    public var stream: StreamID
    /// The number of events in the stream.
    public var version: UInt64
    public var createdAtMilliseconds: Int64
    /// The id of the data key that encrypts the stream's events.
    public var keyID: UInt32
    public var firstPosition: UInt64
    public var lastPosition: UInt64
}

/// The outcome of a successful append.
public struct AppendResult: Hashable, Sendable {
    /// The stream's version after the append.
    public var nextExpectedVersion: UInt64
    /// Global positions of the appended events (empty for an empty append).
    public var positions: Range<UInt64>
    /// Events left out because the stream held their ids already (with `deduplicate`).
    public var duplicates: Int = 0
}

/// The order in which to read a stream.
public enum ReadDirection: Sendable {
    case forward
    case backward
}
