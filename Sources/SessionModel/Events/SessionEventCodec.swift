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
        var writer = WireWriter()
        writer.uint(Self.schemaVersionField, UInt64(event.type.currentSchemaVersion))
        writer.sint(Self.occurredAtField, event.occurredAt)
        writer.bytes(Self.correlationField, event.correlationID?.wireBytes ?? [])
        writer.bytes(Self.causationField, event.causationID?.wireBytes ?? [])
        if storedOutsideSession { writer.bytes(Self.sessionField, event.session.wireBytes) }
        event.payload.wirePayload.write(to: &writer)
        return writer.bytes
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
        switch type {
        case .sessionStarted: try decode(id, SessionStarted.self, bytes, session) { .sessionStarted($0) }
        case .sessionPaused: try decode(id, SessionPaused.self, bytes, session) { .sessionPaused($0) }
        case .sessionResumed: try decode(id, EmptyPayload.self, bytes, session) { _ in .sessionResumed }
        case .sessionEnded: try decode(id, SessionEnded.self, bytes, session) { .sessionEnded($0) }
        case .consentGranted: try decode(id, ConsentChange.self, bytes, session) { .consentGranted($0) }
        case .consentRevoked: try decode(id, ConsentChange.self, bytes, session) { .consentRevoked($0) }
        case .recordingStarted: try decode(id, RecordingStarted.self, bytes, session) { .recordingStarted($0) }
        case .recordingChunk: try decode(id, RecordingChunk.self, bytes, session) { .recordingChunk($0) }
        case .recordingStopped: try decode(id, RecordingStopped.self, bytes, session) { .recordingStopped($0) }
        case .transcriptPartial: try decode(id, TranscriptPartial.self, bytes, session) { .transcriptPartial($0) }
        case .transcriptCommitted: try decode(id, TranscriptCommitted.self, bytes, session) { .transcriptCommitted($0) }
        case .transcriptCorrected: try decode(id, TranscriptCorrected.self, bytes, session) { .transcriptCorrected($0) }
        case .playbackStarted: try decode(id, PlaybackStarted.self, bytes, session) { .playbackStarted($0) }
        case .playbackPaused: try decode(id, PlaybackPosition.self, bytes, session) { .playbackPaused($0) }
        case .playbackSeeked: try decode(id, PlaybackSeeked.self, bytes, session) { .playbackSeeked($0) }
        case .playbackStopped: try decode(id, PlaybackPosition.self, bytes, session) { .playbackStopped($0) }
        case .playbackCompleted: try decode(id, PlaybackCompleted.self, bytes, session) { .playbackCompleted($0) }
        case .retentionPurged: try decode(id, RetentionPurged.self, bytes, session) { .retentionPurged($0) }
        case .subjectErased: try decode(id, SubjectErased.self, bytes, session) { .subjectErased($0) }
        case .exportPerformed: try decode(id, ExportPerformed.self, bytes, session) { .exportPerformed($0) }
        }
    }

    /// Reads the envelope and the payload in one pass; fields neither knows are skipped.
    private static func decode<P: WirePayload>(_ id: UUID, _ type: P.Type, _ bytes: [UInt8], _ session: UUID,
                                               _ wrap: (P) -> SessionPayload) throws -> SessionEvent {
        try bytes.withUnsafeBytes { raw in
            var reader = WireReader(raw)
            var payload = P()
            // The id is passed in: a default UUID() would cost a read of the random device per event.
            var event = SessionEvent(id: id, session: session, occurredAt: 0, payload: .sessionResumed)
            while let (field, wireType) = try reader.nextField() {
                switch field {
                case schemaVersionField: try reader.skip(wireType)
                case occurredAtField:
                    try WireReader.expect(wireType, .varint, field: field)
                    event.occurredAt = try reader.sint()
                case correlationField: event.correlationID = try UUID(wire: try reader.data(wireType, field), field: field)
                case causationField: event.causationID = try UUID(wire: try reader.data(wireType, field), field: field)
                case sessionField: event.session = try UUID(wire: try reader.data(wireType, field), field: field)
                default: if try !payload.read(field, wireType, from: &reader) { try reader.skip(wireType) }
                }
            }
            event.payload = wrap(payload)
            return event
        }
    }
}

extension SessionPayload {
    var wirePayload: any WirePayload {
        switch self {
        case .sessionStarted(let p): p
        case .sessionPaused(let p), .sessionEnded(let p): p
        case .sessionResumed: EmptyPayload()
        case .consentGranted(let p), .consentRevoked(let p): p
        case .recordingStarted(let p): p
        case .recordingChunk(let p): p
        case .recordingStopped(let p), .playbackCompleted(let p): p
        case .transcriptPartial(let p): p
        case .transcriptCommitted(let p): p
        case .transcriptCorrected(let p): p
        case .playbackStarted(let p): p
        case .playbackPaused(let p), .playbackStopped(let p): p
        case .playbackSeeked(let p): p
        case .retentionPurged(let p): p
        case .subjectErased(let p): p
        case .exportPerformed(let p): p
        }
    }
}
