import Foundation
import SwiftProtobuf

// Payloads to and from the messages swift-protobuf generates from docs/session-events.proto
// (Generated/, `tools/protobuf/generate docs/session-events.proto Sources/SessionModel/Generated`).
// The .proto is the one place a field's number and wire type are written; this file only names which
// property of the vocabulary is which field of the message.

/// The envelope fields (1–5) every payload message repeats.
protocol EnvelopeMessage: SwiftProtobuf.Message, Sendable {
    var schemaVersion: UInt32 { get set }
    var occurredAtMs: Int64 { get set }
    var correlationID: Data { get set }
    var causationID: Data { get set }
    var sessionID: Data { get set }
}

extension Sessionstore_V1_SessionStarted: EnvelopeMessage {}
extension Sessionstore_V1_SessionPaused: EnvelopeMessage {}
extension Sessionstore_V1_SessionResumed: EnvelopeMessage {}
extension Sessionstore_V1_SessionEnded: EnvelopeMessage {}
extension Sessionstore_V1_ConsentChange: EnvelopeMessage {}
extension Sessionstore_V1_RecordingStarted: EnvelopeMessage {}
extension Sessionstore_V1_RecordingChunk: EnvelopeMessage {}
extension Sessionstore_V1_RecordingStopped: EnvelopeMessage {}
extension Sessionstore_V1_TranscriptPartial: EnvelopeMessage {}
extension Sessionstore_V1_TranscriptCommitted: EnvelopeMessage {}
extension Sessionstore_V1_TranscriptCorrected: EnvelopeMessage {}
extension Sessionstore_V1_PlaybackStarted: EnvelopeMessage {}
extension Sessionstore_V1_PlaybackPosition: EnvelopeMessage {}
extension Sessionstore_V1_PlaybackSeeked: EnvelopeMessage {}
extension Sessionstore_V1_PlaybackCompleted: EnvelopeMessage {}
extension Sessionstore_V1_RetentionPurged: EnvelopeMessage {}
extension Sessionstore_V1_SubjectErased: EnvelopeMessage {}
extension Sessionstore_V1_ExportPerformed: EnvelopeMessage {}
extension Sessionstore_V1_RetentionPolicySet: EnvelopeMessage {}
extension Sessionstore_V1_ReplayRun: EnvelopeMessage {}
extension Sessionstore_V1_HoldPlaced: EnvelopeMessage {}
extension Sessionstore_V1_HoldReleased: EnvelopeMessage {}
extension Sessionstore_V1_TokenCreated: EnvelopeMessage {}
extension Sessionstore_V1_IntegrityVerified: EnvelopeMessage {}
extension Sessionstore_V1_CheckpointIssued: EnvelopeMessage {}
extension Sessionstore_V1_TokenRevoked: EnvelopeMessage {}
extension Sessionstore_V1_AccessRead: EnvelopeMessage {}
extension Sessionstore_V1_AccessPolicySet: EnvelopeMessage {}

/// A message with a `reason` (session paused and ended).
protocol ReasonMessage: EnvelopeMessage {
    var reason: String { get set }
    var hasReason: Bool { get }
}

extension Sessionstore_V1_SessionPaused: ReasonMessage {}
extension Sessionstore_V1_SessionEnded: ReasonMessage {}

/// A message that names only a recording (recording stopped, playback completed).
protocol RecordingMessage: EnvelopeMessage {
    var recording: String { get set }
}

extension Sessionstore_V1_RecordingStopped: RecordingMessage {}
extension Sessionstore_V1_PlaybackCompleted: RecordingMessage {}

extension SessionPayload {
    /// The payload as its message, envelope fields unset.
    var message: any EnvelopeMessage {
        switch self {
        case .sessionStarted(let p):
            var m = Sessionstore_V1_SessionStarted()
            m.subjectHash = Data(p.subject?.bytes ?? [])
            m.locale = p.locale
            if let device = p.device { m.device = device }
            if let appVersion = p.appVersion { m.appVersion = appVersion }
            m.source = UInt32(p.source.rawValue)
            m.labels = p.labels.sorted { $0.key < $1.key }.map { name, value in
                var label = Sessionstore_V1_SessionLabel()
                label.name = name
                label.value = value
                return label
            }
            return m
        case .sessionPaused(let p): return p.message(Sessionstore_V1_SessionPaused())
        case .sessionResumed: return Sessionstore_V1_SessionResumed()
        case .sessionEnded(let p): return p.message(Sessionstore_V1_SessionEnded())
        case .consentGranted(let p), .consentRevoked(let p):
            var m = Sessionstore_V1_ConsentChange()
            m.subjectHash = Data(p.subject?.bytes ?? [])
            m.consentType = p.consentType
            m.method = p.method
            if let policyVersion = p.policyVersion { m.policyVersion = policyVersion }
            return m
        case .recordingStarted(let p):
            var m = Sessionstore_V1_RecordingStarted()
            m.recording = p.recording
            m.sampleRate = p.sampleRate
            m.channels = p.channels
            return m
        case .recordingChunk(let p):
            var m = Sessionstore_V1_RecordingChunk()
            m.recording = p.recording
            m.index = p.index
            switch p.audio {  // empty audio is left out, as proto3 leaves out empty bytes
            case .pcm(let bytes): if !bytes.isEmpty { m.pcm = Data(bytes) }
            case .flac(let bytes): if !bytes.isEmpty { m.flac = Data(bytes) }
            }
            if let frames = p.frames { m.frames = frames }
            if let digest = p.pcmSHA256 { m.pcmSha256 = Data(digest) }
            return m
        case .recordingStopped(let p): return p.message(Sessionstore_V1_RecordingStopped())
        case .transcriptPartial(let p):
            var m = Sessionstore_V1_TranscriptPartial()
            m.segment = p.segment
            m.revision = p.revision
            m.text = p.text
            m.startMs = p.startMilliseconds
            m.endMs = p.endMilliseconds
            if let stability = p.stability { m.stability = stability }
            return m
        case .transcriptCommitted(let p):
            var m = Sessionstore_V1_TranscriptCommitted()
            m.segment = p.segment
            m.text = p.text
            m.startMs = p.startMilliseconds
            m.endMs = p.endMilliseconds
            if let confidence = p.confidence { m.confidence = confidence }
            if let speaker = p.speaker { m.speaker = speaker }
            m.words = p.words.map(\.message)
            return m
        case .transcriptCorrected(let p):
            var m = Sessionstore_V1_TranscriptCorrected()
            m.segment = p.segment
            m.text = p.text
            if let reason = p.reason { m.reason = reason }
            return m
        case .playbackStarted(let p):
            var m = Sessionstore_V1_PlaybackStarted()
            m.recording = p.recording
            m.positionMs = p.positionMilliseconds
            if let rate = p.rate { m.rate = rate }
            return m
        case .playbackPaused(let p), .playbackStopped(let p):
            var m = Sessionstore_V1_PlaybackPosition()
            m.recording = p.recording
            m.positionMs = p.positionMilliseconds
            return m
        case .playbackSeeked(let p):
            var m = Sessionstore_V1_PlaybackSeeked()
            m.recording = p.recording
            m.fromMs = p.fromMilliseconds
            m.toMs = p.toMilliseconds
            return m
        case .playbackCompleted(let p): return p.message(Sessionstore_V1_PlaybackCompleted())
        case .retentionPurged(let p):
            var m = Sessionstore_V1_RetentionPurged()
            m.policy = p.policy
            m.cutoffMs = p.cutoff
            m.sessions = p.sessions.map { Data($0.wireBytes) }
            m.partialsOnly = p.partialsOnly
            return m
        case .subjectErased(let p):
            var m = Sessionstore_V1_SubjectErased()
            m.subjectHash = Data(p.subject?.bytes ?? [])
            m.sessions = p.sessions.map { Data($0.wireBytes) }
            if let reference = p.requestReference { m.requestReference = reference }
            return m
        case .retentionPolicySet(let p):
            var m = Sessionstore_V1_RetentionPolicySet()
            m.maxAgeMs = UInt64(max(0, p.maxAge))
            if let partials = p.partialsMaxAge { m.partialsMaxAgeMs = UInt64(max(0, partials)) }
            return m
        case .exportPerformed(let p):
            var m = Sessionstore_V1_ExportPerformed()
            m.actor = p.actor
            m.format = p.format
            m.sessions = p.sessions.map { Data($0.wireBytes) }
            m.subjectHash = Data(p.subject?.bytes ?? [])
            if let purpose = p.purpose { m.purpose = purpose }
            return m
        case .replayRun(let p):
            var m = Sessionstore_V1_ReplayRun()
            m.sourceSession = Data(p.source.wireBytes)
            m.command = p.command
            if let label = p.label { m.label = label }
            m.speed = p.speed
            m.startedAtMs = p.startedAt
            m.endedAtMs = p.endedAt
            m.outcome = p.outcome.rawValue
            if let rate = p.wordErrorRate { m.wordErrorRate = rate }
            return m
        case .holdPlaced(let p):
            var m = Sessionstore_V1_HoldPlaced()
            m.holdID = Data(p.hold.wireBytes)
            m.subjectHash = Data(p.subject?.bytes ?? [])
            m.sessions = p.sessions.map { Data($0.wireBytes) }
            m.reason = p.reason
            m.actor = p.actor
            if let reviewBy = p.reviewBy { m.reviewByMs = reviewBy }
            return m
        case .holdReleased(let p):
            var m = Sessionstore_V1_HoldReleased()
            m.holdID = Data(p.hold.wireBytes)
            m.reason = p.reason
            m.actor = p.actor
            return m
        case .accessRead(let p):
            var m = Sessionstore_V1_AccessRead()
            m.actor = p.actor
            if let purpose = p.purpose { m.purpose = purpose }
            m.command = p.command
            m.sessions = p.sessions.map { Data($0.wireBytes) }
            return m
        case .accessPolicySet(let p):
            var m = Sessionstore_V1_AccessPolicySet()
            m.purposeRequired = p.purposeRequired
            return m
        case .tokenCreated(let p):
            var m = Sessionstore_V1_TokenCreated()
            m.tokenID = Data(p.token.wireBytes)
            m.secretHash = Data(p.secretHash)
            m.scope = p.scope
            m.subjects = p.subjects.map { Data($0.bytes) }
            if let expiresAt = p.expiresAt { m.expiresAtMs = expiresAt }
            m.actor = p.actor
            m.name = p.name
            return m
        case .tokenRevoked(let p):
            var m = Sessionstore_V1_TokenRevoked()
            m.tokenID = Data(p.token.wireBytes)
            m.actor = p.actor
            return m
        case .integrityVerified(let p):
            var m = Sessionstore_V1_IntegrityVerified()
            m.actor = p.actor
            m.passed = p.passed
            m.recordsChecked = p.recordsChecked
            m.erasedRecords = p.erasedRecords
            m.treeSize = p.treeSize
            m.rootHash = Data(p.rootHash)
            m.problemCount = p.problemCount
            if let first = p.firstProblem { m.firstProblem = first }
            m.tookMs = p.tookMilliseconds
            return m
        case .checkpointIssued(let p):
            var m = Sessionstore_V1_CheckpointIssued()
            m.actor = p.actor
            m.treeSize = p.treeSize
            m.rootHash = Data(p.rootHash)
            m.witnesses = p.witnesses
            return m
        }
    }

    /// The payload of an event of `type` read from `bytes`, with the message's envelope.
    static func decode(_ type: EventType, from bytes: [UInt8]) throws -> (SessionPayload, any EnvelopeMessage) {
        func parse<M: EnvelopeMessage>(_: M.Type, _ make: (M) throws -> SessionPayload) throws -> (SessionPayload, any EnvelopeMessage) {
            let message = try M(serializedBytes: bytes)
            return (try make(message), message)
        }
        switch type {
        case .sessionStarted:
            return try parse(Sessionstore_V1_SessionStarted.self) { m in
                var started = SessionStarted()
                started.subject = try subject(m.subjectHash, field: 8)
                started.locale = m.locale
                started.device = m.hasDevice ? m.device : nil
                started.appVersion = m.hasAppVersion ? m.appVersion : nil
                started.source = SessionSource(rawValue: UInt64(m.source)) ?? .live
                for label in m.labels { started.labels[label.name] = label.value }
                return .sessionStarted(started)
            }
        case .sessionPaused: return try parse(Sessionstore_V1_SessionPaused.self) { .sessionPaused(SessionTransition($0)) }
        case .sessionResumed: return try parse(Sessionstore_V1_SessionResumed.self) { _ in .sessionResumed }
        case .sessionEnded: return try parse(Sessionstore_V1_SessionEnded.self) { .sessionEnded(SessionTransition($0)) }
        case .consentGranted: return try parse(Sessionstore_V1_ConsentChange.self) { .consentGranted(try ConsentChange($0)) }
        case .consentRevoked: return try parse(Sessionstore_V1_ConsentChange.self) { .consentRevoked(try ConsentChange($0)) }
        case .recordingStarted:
            return try parse(Sessionstore_V1_RecordingStarted.self) { m in
                .recordingStarted(RecordingStarted(recording: m.recording, sampleRate: m.sampleRate, channels: m.channels))
            }
        case .recordingChunk:
            return try parse(Sessionstore_V1_RecordingChunk.self) { m in
                var chunk = RecordingChunk(recording: m.recording, index: m.index, pcm: [])
                switch m.audio {
                case .pcm(let bytes)?: chunk.audio = .pcm(Array(bytes))
                case .flac(let bytes)?: chunk.audio = .flac(Array(bytes))
                case nil: break
                }
                chunk.frames = m.hasFrames ? m.frames : nil
                chunk.pcmSHA256 = m.hasPcmSha256 ? Array(m.pcmSha256) : nil
                return .recordingChunk(chunk)
            }
        case .recordingStopped: return try parse(Sessionstore_V1_RecordingStopped.self) { .recordingStopped(RecordingReference($0)) }
        case .transcriptPartial:
            return try parse(Sessionstore_V1_TranscriptPartial.self) { m in
                .transcriptPartial(TranscriptPartial(segment: m.segment, revision: m.revision, text: m.text,
                                                     startMilliseconds: m.startMs, endMilliseconds: m.endMs,
                                                     stability: m.hasStability ? m.stability : nil))
            }
        case .transcriptCommitted:
            return try parse(Sessionstore_V1_TranscriptCommitted.self) { m in
                .transcriptCommitted(TranscriptCommitted(
                    segment: m.segment, text: m.text, startMilliseconds: m.startMs, endMilliseconds: m.endMs,
                    confidence: m.hasConfidence ? m.confidence : nil, speaker: m.hasSpeaker ? m.speaker : nil,
                    words: m.words.map(TranscriptWord.init)))
            }
        case .transcriptCorrected:
            return try parse(Sessionstore_V1_TranscriptCorrected.self) { m in
                .transcriptCorrected(TranscriptCorrected(segment: m.segment, text: m.text, reason: m.hasReason ? m.reason : nil))
            }
        case .playbackStarted:
            return try parse(Sessionstore_V1_PlaybackStarted.self) { m in
                .playbackStarted(PlaybackStarted(recording: m.recording, positionMilliseconds: m.positionMs,
                                                 rate: m.hasRate ? m.rate : nil))
            }
        case .playbackPaused:
            return try parse(Sessionstore_V1_PlaybackPosition.self) { .playbackPaused(PlaybackPosition($0)) }
        case .playbackStopped:
            return try parse(Sessionstore_V1_PlaybackPosition.self) { .playbackStopped(PlaybackPosition($0)) }
        case .playbackSeeked:
            return try parse(Sessionstore_V1_PlaybackSeeked.self) { m in
                .playbackSeeked(PlaybackSeeked(recording: m.recording, fromMilliseconds: m.fromMs, toMilliseconds: m.toMs))
            }
        case .playbackCompleted:
            return try parse(Sessionstore_V1_PlaybackCompleted.self) { .playbackCompleted(RecordingReference($0)) }
        case .retentionPurged:
            return try parse(Sessionstore_V1_RetentionPurged.self) { m in
                .retentionPurged(RetentionPurged(policy: m.policy, cutoff: m.cutoffMs,
                                                 sessions: try m.sessions.map { try UUID(wire: Array($0), field: 10) },
                                                 partialsOnly: m.partialsOnly))
            }
        case .subjectErased:
            return try parse(Sessionstore_V1_SubjectErased.self) { m in
                var erased = SubjectErased()
                erased.subject = try subject(m.subjectHash, field: 8)
                erased.sessions = try m.sessions.map { try UUID(wire: Array($0), field: 9) }
                erased.requestReference = m.hasRequestReference ? m.requestReference : nil
                return .subjectErased(erased)
            }
        case .exportPerformed:
            return try parse(Sessionstore_V1_ExportPerformed.self) { m in
                var export = ExportPerformed()
                export.actor = m.actor
                export.format = m.format
                export.sessions = try m.sessions.map { try UUID(wire: Array($0), field: 10) }
                export.subject = try subject(m.subjectHash, field: 11)
                export.purpose = m.hasPurpose ? m.purpose : nil
                return .exportPerformed(export)
            }
        case .retentionPolicySet:
            return try parse(Sessionstore_V1_RetentionPolicySet.self) { m in
                .retentionPolicySet(RetentionPolicy(maxAge: Int64(clamping: m.maxAgeMs),
                                                    partialsMaxAge: m.hasPartialsMaxAgeMs ? Int64(clamping: m.partialsMaxAgeMs) : nil))
            }
        case .replayRun:
            return try parse(Sessionstore_V1_ReplayRun.self) { m in
                guard let outcome = ReplayRun.Outcome(rawValue: m.outcome) else {
                    throw WireReader.Malformed(reason: "field 14 \"\(m.outcome)\" is not a replay outcome")
                }
                return .replayRun(ReplayRun(source: try UUID(wire: Array(m.sourceSession), field: 8), command: m.command,
                                            label: m.hasLabel ? m.label : nil, speed: m.speed, startedAt: m.startedAtMs,
                                            endedAt: m.endedAtMs, outcome: outcome,
                                            wordErrorRate: m.hasWordErrorRate ? m.wordErrorRate : nil))
            }
        case .holdPlaced:
            return try parse(Sessionstore_V1_HoldPlaced.self) { m in
                let subject = try subject(m.subjectHash, field: 9)
                let sessions = try m.sessions.map { try UUID(wire: Array($0), field: 10) }
                guard (subject == nil) != sessions.isEmpty else {
                    throw WireReader.Malformed(reason: "a hold names either a subject (field 9) or sessions (field 10), exactly one of them")
                }
                return .holdPlaced(HoldPlaced(hold: try UUID(wire: Array(m.holdID), field: 8), subject: subject, sessions: sessions,
                                              reason: m.reason, actor: m.actor, reviewBy: m.hasReviewByMs ? m.reviewByMs : nil))
            }
        case .holdReleased:
            return try parse(Sessionstore_V1_HoldReleased.self) { m in
                .holdReleased(HoldReleased(hold: try UUID(wire: Array(m.holdID), field: 8), reason: m.reason, actor: m.actor))
            }
        case .accessRead:
            return try parse(Sessionstore_V1_AccessRead.self) { m in
                .accessRead(AccessRead(actor: m.actor, purpose: m.hasPurpose ? m.purpose : nil, command: m.command,
                                       sessions: try m.sessions.map { try UUID(wire: Array($0), field: 11) }))
            }
        case .accessPolicySet:
            return try parse(Sessionstore_V1_AccessPolicySet.self) { m in
                .accessPolicySet(AccessPolicy(purposeRequired: m.purposeRequired))
            }
        case .tokenCreated:
            return try parse(Sessionstore_V1_TokenCreated.self) { m in
                guard m.secretHash.count == 32 else { throw WireReader.Malformed(reason: "field 9 is not a 32-byte keyed hash") }
                let subjects = try m.subjects.map { bytes in
                    guard let hash = try subject(bytes, field: 11) else { throw WireReader.Malformed(reason: "field 11 holds an empty subject hash") }
                    return hash
                }
                return .tokenCreated(TokenCreated(token: try UUID(wire: Array(m.tokenID), field: 8), secretHash: Array(m.secretHash),
                                                  scope: m.scope, subjects: subjects, expiresAt: m.hasExpiresAtMs ? m.expiresAtMs : nil,
                                                  actor: m.actor, name: m.name))
            }
        case .tokenRevoked:
            return try parse(Sessionstore_V1_TokenRevoked.self) { m in
                .tokenRevoked(TokenRevoked(token: try UUID(wire: Array(m.tokenID), field: 8), actor: m.actor))
            }
        case .integrityVerified:
            return try parse(Sessionstore_V1_IntegrityVerified.self) { m in
                guard m.rootHash.count == 32 else { throw WireReader.Malformed(reason: "field 13 is not a 32-byte hash") }
                return .integrityVerified(IntegrityVerified(actor: m.actor, passed: m.passed, recordsChecked: m.recordsChecked,
                                                            erasedRecords: m.erasedRecords, treeSize: m.treeSize, rootHash: Array(m.rootHash),
                                                            problemCount: m.problemCount, firstProblem: m.hasFirstProblem ? m.firstProblem : nil,
                                                            tookMilliseconds: m.tookMs))
            }
        case .checkpointIssued:
            return try parse(Sessionstore_V1_CheckpointIssued.self) { m in
                guard m.rootHash.count == 32 else { throw WireReader.Malformed(reason: "field 10 is not a 32-byte hash") }
                return .checkpointIssued(CheckpointIssued(actor: m.actor, treeSize: m.treeSize, rootHash: Array(m.rootHash), witnesses: m.witnesses))
            }
        }
    }

    /// A subject hash field: absent (empty) is nil; otherwise exactly 32 bytes.
    fileprivate static func subject(_ bytes: Data, field: Int) throws -> SubjectHash? {
        guard !bytes.isEmpty else { return nil }
        guard let hash = SubjectHash(bytes: Array(bytes)) else {
            throw WireReader.Malformed(reason: "field \(field) is not a 32-byte subject hash")
        }
        return hash
    }
}

extension SessionTransition {
    init<M: ReasonMessage>(_ message: M) { self.init(reason: message.hasReason ? message.reason : nil) }

    func message<M: ReasonMessage>(_ empty: M) -> M {
        var message = empty
        if let reason { message.reason = reason }
        return message
    }
}

extension RecordingReference {
    init<M: RecordingMessage>(_ message: M) { self.init(recording: message.recording) }

    func message<M: RecordingMessage>(_ empty: M) -> M {
        var message = empty
        message.recording = recording
        return message
    }
}

extension ConsentChange {
    init(_ m: Sessionstore_V1_ConsentChange) throws {
        self.init()
        subject = try SessionPayload.subject(m.subjectHash, field: 8)
        consentType = m.consentType
        method = m.method
        policyVersion = m.hasPolicyVersion ? m.policyVersion : nil
    }
}

extension PlaybackPosition {
    init(_ m: Sessionstore_V1_PlaybackPosition) { self.init(recording: m.recording, positionMilliseconds: m.positionMs) }
}

extension TranscriptWord {
    init(_ m: Sessionstore_V1_TranscriptWord) {
        self.init(word: m.word, startMilliseconds: m.startMs, endMilliseconds: m.endMs,
                  confidence: m.hasConfidence ? m.confidence : nil)
    }

    var message: Sessionstore_V1_TranscriptWord {
        var m = Sessionstore_V1_TranscriptWord()
        m.word = word
        m.startMs = startMilliseconds
        m.endMs = endMilliseconds
        if let confidence { m.confidence = confidence }
        return m
    }
}
