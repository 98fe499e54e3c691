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

    static let storeWrittenTypes: Set<EventType> = [.retentionPurged, .subjectErased, .exportPerformed, .retentionPolicySet, .replayRun,
                                                    .holdPlaced, .holdReleased, .accessRead, .accessPolicySet, .tokenCreated, .tokenRevoked,
                                                    .integrityVerified, .checkpointIssued]

    func parse(_ bytes: Data, line: Int) -> Result<IngestedEvent, IngestFailure> {
        switch parseLine(bytes, line: line, envelope: .required) {
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
        case .required:
            session = fields.uuid("session", required: true)
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
                    payload = parsePayload(type, &fields)
                }
            } else {
                fields.problem("type", "\"\(typeName)\" is not an event type; see docs/INGEST.md")
            }
        }
        fields.rejectUnknownFields()
        guard fields.problems.isEmpty, let session, let payload else {
            return .failure(IngestFailure(problems: fields.problems))
        }
        if case .required = envelope, at == nil { return .failure(IngestFailure(problems: fields.problems)) }
        return .success(ParsedLine(session: session, occurredAt: at, id: id, correlationID: correlation, causationID: causation,
                                   payload: payload))
    }

    private func subject(_ fields: inout JSONFields) -> SubjectHash? {
        fields.string("subject", maxBytes: 1024).flatMap { SubjectHash(bytes: hashIdentifier($0)) }
    }

    private func parsePayload(_ type: EventType, _ f: inout JSONFields) -> SessionPayload? {
        switch type {
        case .sessionStarted:
            let subject = subject(&f), locale = f.string("locale", maxBytes: 64)
            let device = f.string("device", required: false), appVersion = f.string("app_version", required: false)
            var source = SessionSource.live
            if let name = f.string("source", required: false) {
                switch name {
                case "live": source = .live
                case "fixture": source = .fixture
                case "import": source = .import
                default: f.problem("source", "must be live, fixture or import")
                }
            }
            let labels = f.stringMap("labels") ?? [:]
            if let problem = SessionLabels.problem(labels: labels) { f.problem("labels", problem) }
            guard let subject, let locale else { return nil }
            return .sessionStarted(SessionStarted(subject: subject, locale: locale, device: device, appVersion: appVersion,
                                                  source: source, labels: labels))
        case .sessionPaused:
            return .sessionPaused(SessionPaused(reason: f.string("reason", required: false)))
        case .sessionResumed:
            return .sessionResumed
        case .sessionEnded:
            return .sessionEnded(SessionEnded(reason: f.string("reason", required: false)))
        case .consentGranted, .consentRevoked:
            let subject = subject(&f), consentType = f.string("consent_type", maxBytes: 128)
            let method = f.string("method", maxBytes: 128), policy = f.string("policy_version", required: false, maxBytes: 128)
            guard let subject, let consentType, let method else { return nil }
            let change = ConsentChange(subject: subject, consentType: consentType, method: method, policyVersion: policy)
            return type == .consentGranted ? .consentGranted(change) : .consentRevoked(change)
        case .recordingStarted:
            let recording = f.string("recording", maxBytes: 256)
            let rate = f.integer("sample_rate", in: 1000...384_000), channels = f.integer("channels", in: 1...8)
            guard let recording, let rate, let channels else { return nil }
            return .recordingStarted(RecordingStarted(recording: recording, sampleRate: UInt32(rate), channels: UInt32(channels)))
        case .recordingChunk:
            let recording = f.string("recording", maxBytes: 256), index = f.integer("index", in: 0...Int64(UInt32.max))
            var pcm: [UInt8]?
            if let base64 = f.string("pcm", maxBytes: 16 << 20) {
                if let data = Data(base64Encoded: base64) {
                    if data.count % 2 == 0 { pcm = [UInt8](data) } else {
                        f.problem("pcm", "holds \(data.count) bytes; 16-bit samples need an even number")
                    }
                } else {
                    f.problem("pcm", "is not valid base64")
                }
            }
            guard let recording, let index, let pcm else { return nil }
            return .recordingChunk(RecordingChunk(recording: recording, index: UInt64(index), pcm: pcm))
        case .recordingStopped:
            return f.string("recording", maxBytes: 256).map { .recordingStopped(RecordingStopped(recording: $0)) }
        case .transcriptPartial:
            let segment = f.identifier("segment"), revision = f.integer("revision", in: 0...Int64(UInt32.max))
            let text = f.string("text", nonEmpty: false), (start, end) = span(&f)
            let stability = f.number("stability", in: 0...1)
            guard let segment, let revision, let text, let start, let end else { return nil }
            return .transcriptPartial(TranscriptPartial(segment: segment, revision: UInt32(revision), text: text,
                                                        startMilliseconds: start, endMilliseconds: end, stability: stability))
        case .transcriptCommitted:
            let segment = f.identifier("segment"), text = f.string("text", nonEmpty: false), (start, end) = span(&f)
            let confidence = f.number("confidence", in: 0...1), speaker = f.string("speaker", required: false, maxBytes: 256)
            let words = self.words(&f)
            guard let segment, let text, let start, let end, let words else { return nil }
            return .transcriptCommitted(TranscriptCommitted(segment: segment, text: text, startMilliseconds: start,
                                                            endMilliseconds: end, confidence: confidence, speaker: speaker,
                                                            words: words))
        case .transcriptCorrected:
            let segment = f.identifier("segment"), text = f.string("text", nonEmpty: false)
            let reason = f.string("reason", required: false)
            guard let segment, let text else { return nil }
            return .transcriptCorrected(TranscriptCorrected(segment: segment, text: text, reason: reason))
        case .playbackStarted:
            let recording = f.string("recording", maxBytes: 256), position = f.milliseconds("position_ms")
            let rate = f.number("rate", in: 0.0625...16)
            guard let recording, let position else { return nil }
            return .playbackStarted(PlaybackStarted(recording: recording, positionMilliseconds: position, rate: rate))
        case .playbackPaused, .playbackStopped:
            let recording = f.string("recording", maxBytes: 256), position = f.milliseconds("position_ms")
            guard let recording, let position else { return nil }
            let value = PlaybackPosition(recording: recording, positionMilliseconds: position)
            return type == .playbackPaused ? .playbackPaused(value) : .playbackStopped(value)
        case .playbackSeeked:
            let recording = f.string("recording", maxBytes: 256), from = f.milliseconds("from_ms"), to = f.milliseconds("to_ms")
            guard let recording, let from, let to else { return nil }
            return .playbackSeeked(PlaybackSeeked(recording: recording, fromMilliseconds: from, toMilliseconds: to))
        case .playbackCompleted:
            return f.string("recording", maxBytes: 256).map { .playbackCompleted(PlaybackCompleted(recording: $0)) }
        case .retentionPurged, .subjectErased, .exportPerformed, .retentionPolicySet, .replayRun, .holdPlaced, .holdReleased, .accessRead, .accessPolicySet,
             .tokenCreated, .tokenRevoked, .integrityVerified, .checkpointIssued:
            return nil  // refused before this is called
        }
    }

    /// `start_ms` and `end_ms`, with end not before start.
    private func span(_ f: inout JSONFields) -> (UInt64?, UInt64?) {
        let start = f.milliseconds("start_ms"), end = f.milliseconds("end_ms")
        if let start, let end, end < start {
            f.problem("end_ms", "is \(end), before start_ms \(start)")
            return (start, nil)
        }
        return (start, end)
    }

    private func words(_ f: inout JSONFields) -> [TranscriptWord]? {
        guard let array = f.array("words") else { return [] }
        var words: [TranscriptWord] = []
        for (index, element) in array.enumerated() {
            guard case .object(let object) = element else {
                f.problem("words[\(index)]", "must be an object with word, start_ms and end_ms")
                continue
            }
            var word = JSONFields(object, line: f.line)
            let text = word.string("word"), (start, end) = span(&word), confidence = word.number("confidence", in: 0...1)
            word.rejectUnknownFields()
            for problem in word.problems { f.problem("words[\(index)].\(problem.field ?? "")", problem.reason) }
            if let text, let start, let end {
                words.append(TranscriptWord(word: text, startMilliseconds: start, endMilliseconds: end, confidence: confidence))
            }
        }
        return words.count == array.count ? words : nil
    }
}
