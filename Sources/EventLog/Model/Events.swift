import Foundation

/// An event to append: its id, its type and its payload bytes (opaque to the log).
public struct ProposedEvent: Hashable, Sendable {
    /// The largest payload the log accepts, in bytes.
    public static let maximumDataCount = 64 << 20

    /// The event's id: ``StreamAppend/deduplicate`` skips an event whose id its stream holds already.
    public var id: UUID
    /// The event type, 1 to 255 UTF-8 bytes; stored encrypted.
    public var type: String
    /// The payload; stored compressed and encrypted.
    public var data: [UInt8]
    /// Sealed with its stream's second, *discardable* data key instead of the stream's own:
    /// ``EventLog/destroyDiscardableKeys(of:)`` then makes these events unreadable while the
    /// stream's other events stay (superseded transcript partials, say). A stream's first event
    /// cannot be discardable.
    public var discardable: Bool

    /// - Parameters:
    ///   - id: the event's unique id; a fresh one by default.
    ///   - type: a name of 1 to 255 UTF-8 bytes, such as `transcript.committed`.
    ///   - data: the payload, at most ``maximumDataCount`` bytes.
    ///   - discardable: whether to seal it with the stream's discardable key.
    public init(id: UUID = .randomFromSodium(), type: String, data: [UInt8], discardable: Bool = false) {
        self.id = id
        self.type = type
        self.data = data
        self.discardable = discardable
    }
}

/// An event as stored: where it sits in its stream and in the log, and when it was recorded.
public struct RecordedEvent: Hashable, Sendable {
    /// The event's id, as appended.
    public var id: UUID
    /// The stream that holds the event.
    public var stream: StreamID
    /// The event's number within its stream, from 0.
    public var streamNumber: UInt64
    /// The event's global position in the log, from 0; also its leaf index in the Merkle tree.
    public var position: UInt64
    /// The event type, as appended.
    public var type: String
    /// The payload, as appended.
    public var data: [UInt8]
    /// The store's clock when the event was appended, in milliseconds since 1970-01-01T00:00:00Z.
    public var recordedAtMilliseconds: Int64

    /// ``recordedAtMilliseconds`` as a `Date`.
    public var recordedAt: Date { Date(timeIntervalSince1970: Double(recordedAtMilliseconds) / 1000) }

    /// An event as a reader returns it (for doubles in tests; the log makes these itself).
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
    /// The stream to append to.
    public var stream: StreamID
    /// The events, in order; they get consecutive stream numbers and positions.
    public var events: [ProposedEvent]
    /// What the stream's version must be for the whole append to go ahead.
    public var expectedVersion: ExpectedVersion
    /// Which data key a new stream gets: its own, or the store's audit key.
    public var keyScope: KeyScope
    /// Leave out events whose ids the stream holds already (resending is then safe).
    public var deduplicate: Bool

    /// One stream's events; by default any version, the stream's own key, no de-duplication.
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
    /// The stream described.
    public var stream: StreamID
    /// The number of events in the stream.
    public var version: UInt64
    /// The recorded-at of the stream's first event (store clock, milliseconds since 1970).
    public var createdAtMilliseconds: Int64
    /// The id of the data key that encrypts the stream's events.
    public var keyID: UInt32
    /// The global position of the stream's first event.
    public var firstPosition: UInt64
    /// The global position of the stream's last event.
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
