import Foundation

/// Turns session events into payload bytes and back. Payloads are protobuf wire format messages
/// (schema: `docs/session-events.proto`): envelope fields 1–5, the event type's own fields from 8.
/// Payloads written with an older schema version are upcast on read by the given upcasters.
///
/// Get the codec that reads every schema version from `SessionMigrations.codec` (the Migrations
/// module registers the upcasters); `SessionLog` adds reading and writing log events.
public struct SessionEventCodec: Sendable {
    /// Turns a payload of `type` at schema version `fromVersion` into version `fromVersion + 1`,
    /// working on the wire bytes (the envelope's version field is rewritten by the codec).
    public struct Upcaster: Sendable {
        /// The event type whose payloads this upcaster rewrites.
        public var type: EventType
        /// The schema version it reads; it writes `fromVersion + 1`.
        public var fromVersion: UInt32
        /// Rewrites a payload's wire bytes; throws when they are not the old schema.
        public var upcast: @Sendable (_ payload: [UInt8]) throws -> [UInt8]

        /// An upcaster of `type` from schema `fromVersion`.
        public init(type: EventType, fromVersion: UInt32, upcast: @escaping @Sendable (_ payload: [UInt8]) throws -> [UInt8]) {
            self.type = type
            self.fromVersion = fromVersion
            self.upcast = upcast
        }
    }

    private struct UpcasterKey: Hashable {
        var type: EventType
        var version: UInt32
    }

    private let upcasters: [UpcasterKey: Upcaster]

    package init(upcasters: [Upcaster]) {
        self.upcasters = Dictionary(upcasters.map { (UpcasterKey(type: $0.type, version: $0.fromVersion), $0) },
                                    uniquingKeysWith: { _, last in last })
    }

    // Envelope fields.
    static let schemaVersionField = 1
    static let occurredAtField = 2
    static let correlationField = 3
    static let causationField = 4
    static let sessionField = 5

    /// The payload bytes of `event` in the current schema. Written to a stream other than the
    /// session's own (a subject's consent stream), the payload also names the session.
    public func payload(of event: SessionEvent, storedOutsideSession: Bool = false) -> [UInt8] {
        Self.serialize(event.payload.message, event: event, storedOutsideSession: storedOutsideSession)
    }

    private static func serialize<M: EnvelopeMessage>(_ message: M, event: SessionEvent, storedOutsideSession: Bool) -> [UInt8] {
        var message = message
        message.schemaVersion = event.type.currentSchemaVersion
        message.occurredAtMs = event.occurredAt
        message.correlationID = Data(event.correlationID?.wireBytes ?? [])
        message.causationID = Data(event.causationID?.wireBytes ?? [])
        if storedOutsideSession { message.sessionID = Data(event.session.wireBytes) }
        do {
            return try message.serializedBytes()
        } catch {
            // A proto3 message has no required fields and Swift strings are valid UTF-8: not reached.
            preconditionFailure("a payload message did not serialise: \(error)")
        }
    }

    /// The session event stored with these payload bytes, upcast to the current schema.
    ///
    /// - Parameters:
    ///   - type: The stored event type name (`transcript.committed`).
    ///   - payload: The stored payload bytes, of any schema version this build has upcasters for.
    ///   - id: The event's id; `stream`, `streamNumber`, `position` and `recordedAt` say where and when
    ///     it was stored (a consent event's copy in a subject's stream names its session in the payload).
    /// - Throws: ``SessionModelError`` naming the position: an unknown type, a newer schema, malformed bytes.
    public func decode(type typeName: String, payload: [UInt8], id: UUID, stream: UUID, streamNumber: UInt64,
                       position: UInt64, recordedAt: Int64) throws -> RecordedSessionEvent {
        func failure(_ code: SessionModelError.Code, _ reason: String) -> SessionModelError {
            SessionModelError(code: code, message: "event at position \(position) (\(typeName)) \(reason)", position: position)
        }
        guard let type = EventType(rawValue: typeName) else {
            throw failure(.unknownType, "has a type this build does not know")
        }
        var bytes = payload
        let stored: UInt32
        do {
            stored = try Self.schemaVersion(of: bytes)
            var version = stored
            if version > type.currentSchemaVersion {
                throw failure(.newerSchema, "has schema version \(version); this build reads up to \(type.currentSchemaVersion)")
            }
            while version < type.currentSchemaVersion {
                guard let upcaster = upcasters[UpcasterKey(type: type, version: version)] else {
                    throw failure(.malformed, "has schema version \(version), and no upcaster to \(version + 1) is registered")
                }
                bytes = try Self.settingSchemaVersion(version + 1, in: try upcaster.upcast(bytes))
                version += 1
            }
            let event = try Self.decodeEvent(type, bytes, id: id, session: stream)
            return RecordedSessionEvent(event: event, stream: stream, streamNumber: streamNumber, position: position,
                                        recordedAt: recordedAt, storedSchemaVersion: stored)
        } catch let error as SessionModelError {
            throw error
        } catch {
            throw failure(.malformed, "is malformed: \(error)")
        }
    }

    /// The schema version in a payload's envelope (field 1; absent means 0).
    static func schemaVersion(of bytes: [UInt8]) throws -> UInt32 {
        try bytes.withUnsafeBytes { raw in
            var reader = WireReader(raw)
            while let (field, type) = try reader.nextField() {
                if field == schemaVersionField { return try reader.uint32(type, field) }
                try reader.skip(type)
            }
            return 0
        }
    }

    /// The payload with its envelope's version field replaced by `version`.
    static func settingSchemaVersion(_ version: UInt32, in bytes: [UInt8]) throws -> [UInt8] {
        var writer = WireWriter(capacity: bytes.count + 4)
        writer.uint(schemaVersionField, UInt64(version))
        try bytes.withUnsafeBytes { raw in
            var reader = WireReader(raw)
            var start = 0
            var kept: [UInt8] = []
            while let (field, type) = try reader.nextField() {
                try reader.skip(type)
                let end = raw.count - reader.remaining
                if field != schemaVersionField { kept.append(contentsOf: raw[start..<end]) }
                start = end
            }
            writer.append(raw: kept)
        }
        return writer.bytes
    }

    private static func decodeEvent(_ type: EventType, _ bytes: [UInt8], id: UUID, session: UUID) throws -> SessionEvent {
        let (payload, envelope) = try SessionPayload.decode(type, from: bytes)
        return try event(payload, envelope, id: id, session: session)
    }

    /// The event around `payload`, with the ids and time of its message's envelope.
    private static func event<M: EnvelopeMessage>(_ payload: SessionPayload, _ envelope: M, id: UUID,
                                                  session: UUID) throws -> SessionEvent {
        func uuid(_ bytes: Data, field: Int) throws -> UUID? {
            bytes.isEmpty ? nil : try UUID(wire: Array(bytes), field: field)
        }
        return SessionEvent(id: id, session: try uuid(envelope.sessionID, field: sessionField) ?? session,
                            occurredAt: envelope.occurredAtMs, correlationID: try uuid(envelope.correlationID, field: correlationField),
                            causationID: try uuid(envelope.causationID, field: causationField), payload: payload)
    }
}
