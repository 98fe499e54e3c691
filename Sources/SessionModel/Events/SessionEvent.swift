import Foundation

/// One event of a dictation session: who, when, and what happened.
public struct SessionEvent: Hashable, Sendable {
    /// Unique per event; an event whose id is already stored in its session is not stored again.
    public var id: UUID
    /// The session, whose events form one stream.
    public var session: UUID
    /// When it happened on the client's clock, in milliseconds since 1970-01-01T00:00:00Z.
    public var occurredAt: Int64
    /// The event that started the chain this event belongs to, when the client names one.
    public var correlationID: UUID?
    /// The event that caused this one, when the client names one.
    public var causationID: UUID?
    /// What happened.
    public var payload: SessionPayload

    /// An event of `session` that happened at `occurredAt` (client clock, milliseconds since 1970).
    public init(id: UUID = UUID(), session: UUID, occurredAt: Int64, correlationID: UUID? = nil,
                causationID: UUID? = nil, payload: SessionPayload) {
        self.id = id
        self.session = session
        self.occurredAt = occurredAt
        self.correlationID = correlationID
        self.causationID = causationID
        self.payload = payload
    }

    /// The event type the payload belongs to.
    public var type: EventType { payload.type }
}

/// A session event as stored: with its place in the session and the log, and the store's time.
public struct RecordedSessionEvent: Hashable, Sendable {
    /// The event, upcast to the current schema.
    public var event: SessionEvent
    /// The stream it is stored in: its session's, or (for a consent copy) its subject's consent trail.
    public var stream: UUID
    /// Whether this is a copy stored outside the session's own stream.
    public var isCopy: Bool { stream != event.session }
    /// The event's number in its session's stream, from 0.
    public var streamNumber: UInt64
    /// The event's global position in the log.
    public var position: UInt64
    /// When the store appended it, in milliseconds since 1970.
    public var recordedAt: Int64
    /// The schema version it was written with (it has been upcast to the current one).
    public var storedSchemaVersion: UInt32

    /// An event as read from the log, with where and when it was stored.
    public init(event: SessionEvent, stream: UUID, streamNumber: UInt64, position: UInt64, recordedAt: Int64,
                storedSchemaVersion: UInt32) {
        self.event = event
        self.stream = stream
        self.streamNumber = streamNumber
        self.position = position
        self.recordedAt = recordedAt
        self.storedSchemaVersion = storedSchemaVersion
    }
}
