import EventLog
import Foundation
import SessionLog
import SessionModel

/// One valid line of an ingest file, as the event it becomes.
public struct IngestedEvent: Hashable, Sendable {
    /// The event the line describes, subjects already hashed.
    public var event: SessionEvent
    /// The 1-based line it came from.
    public var line: Int
    /// The event encoded for its session's stream, and for its subject's consent stream if it is consent.
    var encoded: ProposedEvent
    var encodedForConsentTrail: ProposedEvent?
    /// The line gave no id, so it was derived from the line's bytes: equal ids then mean equal lines.
    var idIsDerived = false

    init(_ event: SessionEvent, line: Int, codec: SessionEventCodec) {
        self.event = event
        self.line = line
        encoded = codec.encode(event)
        switch event.payload {
        case .consentGranted, .consentRevoked: encodedForConsentTrail = codec.encode(event, storedOutsideSession: true)
        default: encodedForConsentTrail = nil
        }
    }
}

/// Turns one NDJSON line into a session event, or into every problem the line has.
/// The schema is docs/INGEST.md (and docs/ingest.schema.json).
struct IngestLineParser {
    /// The keyed hash of an identifier (the store's subject-hashing key).
    let hashIdentifier: @Sendable (String) -> [UInt8]
    let codec: SessionEventCodec
    /// When set, the one session every line must name (a live stream's).
    var session: UUID?

    static let storeWrittenTypes: Set<EventType> = [.retentionPurged, .subjectErased, .exportPerformed, .retentionPolicySet, .replayRun,
                                                    .holdPlaced, .holdReleased, .accessRead, .accessPolicySet, .tokenCreated, .tokenRevoked,
                                                    .integrityVerified, .checkpointIssued]

    func parse(_ bytes: Data, line: Int) -> Result<IngestedEvent, IngestFailure> {
        switch parseLine(bytes, line: line, envelope: session.map { .live(session: $0) } ?? .required) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let parsed):
            // Without an id, the id is derived from the line by the keyed hash: resending the same line
            // is recognised, and the id (stored in clear) reveals nothing about the line's content.
            let eventID = parsed.id ?? UUID(version8From: hashIdentifier("event-id:\(String(decoding: bytes, as: UTF8.self))"))
            let event = SessionEvent(id: eventID, session: parsed.session, occurredAt: parsed.occurredAt!,
                                     correlationID: parsed.correlationID, causationID: parsed.causationID, payload: parsed.payload)
            var ingested = IngestedEvent(event, line: line, codec: codec)
            ingested.idIsDerived = parsed.id == nil
            return .success(ingested)
        }
    }

    /// What the envelope fields must hold.
    enum EnvelopeRule {
        /// An ingest file: `session` and `at` are required.
        case required
        /// One session's live stream: as `required`, and `session` must be the stream's.
        case live(session: UUID)
        /// A system under test's output: `session` may be left out (it is `session`), and so may `at`;
        /// only `allowedTypes` are taken.
        case produced(session: UUID, allowedTypes: Set<EventType>)
    }

    /// The fields of one line, the envelope's optional ones as given.
    struct ParsedLine {
        var session: UUID
        var occurredAt: Int64?
        var id: UUID?
        var correlationID: UUID?
        var causationID: UUID?
        var payload: SessionPayload
    }

    func parseLine(_ bytes: Data, line: Int, envelope: EnvelopeRule) -> Result<ParsedLine, IngestFailure> {
        let object: JSONObject
        do {
            guard case .object(let parsed) = try JSONParser.parse(bytes) else {
                return .failure(IngestFailure(problems: [IngestProblem(line: line, field: nil, reason: "is not a JSON object")]))
            }
            object = parsed
        } catch {
            let reason = "is not valid JSON: \(error.reason) at byte \(error.offset + 1)"
            return .failure(IngestFailure(problems: [IngestProblem(line: line, field: nil, reason: reason)]))
        }
        var fields = JSONFields(object, line: line)
        let typeName = fields.string("type")
        var session: UUID?, at: Int64?
        switch envelope {
        case .required, .live:
            session = fields.uuid("session", required: true)
            if case .live(let stream) = envelope, let named = session, named != stream {
                fields.problem("session", "is \(named.uuidString.lowercased()), not this stream's session (\(stream.uuidString.lowercased()))")
            }
            at = fields.timestamp("at")
        case .produced(let expected, _):
            session = fields.uuid("session", required: false) ?? expected
            if session != expected {
                fields.problem("session", "is \(session!.uuidString.lowercased()), not the session replayed (\(expected.uuidString.lowercased())); leave it out")
            }
            at = fields.timestamp("at", required: false)
        }
        let id = fields.uuid("id", required: false)
        let correlation = fields.uuid("correlation_id", required: false)
        let causation = fields.uuid("causation_id", required: false)
        var payload: SessionPayload?
        if let typeName {
            if let type = EventType(rawValue: typeName) {
                if case .produced(_, let allowed) = envelope, !allowed.contains(type) {
                    let names = allowed.map(\.rawValue).sorted().joined(separator: ", ")
                    fields.problem("type", "\"\(typeName)\" is not what a system under test produces (\(names))")
                } else if Self.storeWrittenTypes.contains(type) {
                    fields.problem("type", "\"\(typeName)\" is written by the store itself and cannot be ingested")
                } else {
                    payload = SessionPayload(type, json: &fields, hashIdentifier: hashIdentifier)
                }
            } else {
                fields.problem("type", "\"\(typeName)\" is not an event type; see docs/INGEST.md")
            }
        }
        fields.rejectUnknownFields()
        guard fields.problems.isEmpty, let session, let payload else {
            return .failure(IngestFailure(problems: fields.problems))
        }
        if case .produced = envelope {} else if at == nil { return .failure(IngestFailure(problems: fields.problems)) }
        return .success(ParsedLine(session: session, occurredAt: at, id: id, correlationID: correlation, causationID: causation,
                                   payload: payload))
    }
}
