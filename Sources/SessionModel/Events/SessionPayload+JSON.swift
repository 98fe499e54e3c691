import Foundation
import HexCoding
import Output

// Payloads to and from JSON: an ingest line's fields (docs/INGEST.md, docs/ingest.schema.json) and the
// fields `events` prints for a stored event, which are the same names. The protobuf codec is beside it
// (SessionPayload+Protobuf.swift): a new event type is a case of SessionPayload and a case of each switch here
// and there, all in this module.

extension SessionPayload {
    /// The payload of an ingest line of `type` (docs/INGEST.md), its raw subject ids hashed by `hashIdentifier`;
    /// nil when a field is missing or wrong, each such field reported in `f`.
    package init?(_ type: EventType, json f: inout JSONFields, hashIdentifier: (String) -> [UInt8]) {
        guard let payload = Self.payload(type, &f, hashIdentifier: hashIdentifier) else { return nil }
        self = payload
    }

    private static func subject(_ fields: inout JSONFields, _ hashIdentifier: (String) -> [UInt8]) -> SubjectHash? {
        fields.string("subject", maxBytes: 1024).flatMap { SubjectHash(bytes: hashIdentifier($0)) }
    }

    private static func payload(_ type: EventType, _ f: inout JSONFields, hashIdentifier: (String) -> [UInt8]) -> SessionPayload? {
        switch type {
        case .sessionStarted:
            let subject = subject(&f, hashIdentifier), locale = f.string("locale", maxBytes: 64)
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
            let subject = subject(&f, hashIdentifier), consentType = f.string("consent_type", maxBytes: 128)
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
            let words = words(&f)
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
    private static func span(_ f: inout JSONFields) -> (UInt64?, UInt64?) {
        let start = f.milliseconds("start_ms"), end = f.milliseconds("end_ms")
        if let start, let end, end < start {
            f.problem("end_ms", "is \(end), before start_ms \(start)")
            return (start, nil)
        }
        return (start, end)
    }

    private static func words(_ f: inout JSONFields) -> [TranscriptWord]? {
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

    /// Writes the payload's fields as `events` prints them and docs/INGEST.md names them (an ingest line's
    /// fields, subjects as `subject_hash`); `pcm`, a chunk's samples decoded ahead, as base64.
    package func write(to fields: inout Fields, pcm: [UInt8]?) {
        switch self {
        case .sessionStarted(let p):
            fields.field("subject_hash", p.subject?.description)
            fields.field("locale", p.locale)
            fields.field("device", p.device)
            fields.field("app_version", p.appVersion)
            fields.field("source", p.source.name)
            fields.field(labels: p.labels)
        case .sessionPaused(let p):
            fields.field("reason", p.reason)
        case .sessionEnded(let p):
            fields.field("reason", p.reason)
        case .sessionResumed:
            break
        case .consentGranted(let p), .consentRevoked(let p):
            fields.field("subject_hash", p.subject?.description)
            fields.field("consent_type", p.consentType)
            fields.field("method", p.method)
            fields.field("policy_version", p.policyVersion)
        case .recordingStarted(let p):
            fields.field("recording", p.recording)
            fields.field("sample_rate", p.sampleRate)
            fields.field("channels", p.channels)
        case .recordingChunk(let p):
            fields.field("recording", p.recording)
            fields.field("index", p.index)
            fields.field("frames", p.frames)
            if p.frames == nil, case .pcm(let bytes) = p.audio { fields.field("pcm_bytes", bytes.count) }
            if let pcm { fields.field("pcm", base64: pcm) }
        case .recordingStopped(let p), .playbackCompleted(let p):
            fields.field("recording", p.recording)
        case .transcriptPartial(let p):
            fields.field("segment", p.segment)
            fields.field("revision", p.revision)
            fields.field("text", p.text)
            fields.field("start_ms", p.startMilliseconds)
            fields.field("end_ms", p.endMilliseconds)
            fields.field("stability", p.stability)
        case .transcriptCommitted(let p):
            fields.field("segment", p.segment)
            fields.field("text", p.text)
            fields.field("start_ms", p.startMilliseconds)
            fields.field("end_ms", p.endMilliseconds)
            fields.field("confidence", p.confidence)
            fields.field("speaker", p.speaker)
            fields.field("words", rows: p.words.isEmpty ? nil : p.words.map(WordRow.init))
        case .transcriptCorrected(let p):
            fields.field("segment", p.segment)
            fields.field("text", p.text)
            fields.field("reason", p.reason)
        case .playbackStarted(let p):
            fields.field("recording", p.recording)
            fields.field("position_ms", p.positionMilliseconds)
            fields.field("rate", p.rate)
        case .playbackPaused(let p), .playbackStopped(let p):
            fields.field("recording", p.recording)
            fields.field("position_ms", p.positionMilliseconds)
        case .playbackSeeked(let p):
            fields.field("recording", p.recording)
            fields.field("from_ms", p.fromMilliseconds)
            fields.field("to_ms", p.toMilliseconds)
        case .retentionPurged(let p):
            fields.field("policy", p.policy)
            fields.field("cutoff_at", time: p.cutoff)
            fields.field("partials_only", p.partialsOnly)
        case .subjectErased(let p):
            fields.field("subject_hash", p.subject?.description)
            fields.field("sessions", strings: p.sessions.map(Hex.uuid))
            fields.field("request_reference", p.requestReference)
        case .retentionPolicySet(let p):
            fields.field("max_age_ms", p.maxAge)
            fields.field("partials_max_age_ms", p.partialsMaxAge)
        case .exportPerformed(let p):
            fields.field("actor", p.actor)
            fields.field("format", p.format)
            fields.field("sessions", strings: p.sessions.map(Hex.uuid))
            fields.field("subject_hash", p.subject?.description)
            fields.field("purpose", p.purpose)
        case .replayRun(let p):
            fields.field("source_session", id: p.source)
            fields.field("command", p.command)
            fields.field("label", p.label)
            fields.field("speed", p.speed)
            fields.field("started_at", time: p.startedAt)
            fields.field("ended_at", time: p.endedAt)
            fields.field("outcome", p.outcome.rawValue)
            fields.field("word_error_rate", p.wordErrorRate)
        case .holdPlaced(let p):
            fields.field("hold_id", id: p.hold)
            fields.field("subject_hash", p.subject?.description)
            fields.field("sessions", strings: p.sessions.map(Hex.uuid))
            fields.field("reason", p.reason)
            fields.field("actor", p.actor)
            fields.field("review_by", time: p.reviewBy)
        case .holdReleased(let p):
            fields.field("hold_id", id: p.hold)
            fields.field("reason", p.reason)
            fields.field("actor", p.actor)
        case .accessRead(let p):
            fields.field("actor", p.actor)
            fields.field("purpose", p.purpose)
            fields.field("command", p.command)
            fields.field("sessions", strings: p.sessions.map(Hex.uuid))
        case .accessPolicySet(let p):
            fields.field("purpose_required", p.purposeRequired)
        case .tokenCreated(let p):
            // The secret's hash is left out: it is of no use to a reader, and less exposure is better.
            fields.field("token_id", id: p.token)
            fields.field("scope", p.scope)
            fields.field("subject_hashes", strings: p.subjects.map(\.description))
            fields.field("expires_at", time: p.expiresAt)
            fields.field("actor", p.actor)
            fields.field("name", p.name)
        case .tokenRevoked(let p):
            fields.field("token_id", id: p.token)
            fields.field("actor", p.actor)
        case .integrityVerified(let p):
            fields.field("actor", p.actor)
            fields.field("passed", p.passed)
            fields.field("records_checked", Int(p.recordsChecked))
            fields.field("erased_records", Int(p.erasedRecords))
            fields.field("tree_size", Int(p.treeSize))
            fields.field("root_hash", Hex.string(p.rootHash))
            fields.field("problem_count", Int(p.problemCount))
            fields.field("first_problem", p.firstProblem)
            fields.field("took_ms", Int(p.tookMilliseconds))
        case .checkpointIssued(let p):
            fields.field("actor", p.actor)
            fields.field("tree_size", Int(p.treeSize))
            fields.field("root_hash", Hex.string(p.rootHash))
            fields.field("witnesses", strings: p.witnesses)
        }
    }
}
