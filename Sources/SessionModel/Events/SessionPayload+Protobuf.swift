import Foundation
import SwiftProtobuf

// Payloads to and from the messages swift-protobuf generates from docs/session-events.proto
// (Generated/, `tools/protobuf/generate docs/session-events.proto Sources/SessionModel/Generated`).
// The .proto is the one place a field's number and wire type are written; each event type's own codec file
// (Codecs/) names which property of the vocabulary is which field of its message, and this one picks the type.

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

extension SessionPayload {
    /// The payload as its message, envelope fields unset.
    var message: any EnvelopeMessage {
        switch self {
        case .sessionStarted(let p): p.message
        case .sessionPaused(let p): p.message(Sessionstore_V1_SessionPaused())
        case .sessionResumed: Sessionstore_V1_SessionResumed()
        case .sessionEnded(let p): p.message(Sessionstore_V1_SessionEnded())
        case .consentGranted(let p), .consentRevoked(let p): p.message
        case .recordingStarted(let p): p.message
        case .recordingChunk(let p): p.message
        case .recordingStopped(let p): p.message(Sessionstore_V1_RecordingStopped())
        case .transcriptPartial(let p): p.message
        case .transcriptCommitted(let p): p.message
        case .transcriptCorrected(let p): p.message
        case .playbackStarted(let p): p.message
        case .playbackPaused(let p), .playbackStopped(let p): p.message
        case .playbackSeeked(let p): p.message
        case .playbackCompleted(let p): p.message(Sessionstore_V1_PlaybackCompleted())
        case .retentionPurged(let p): p.message
        case .subjectErased(let p): p.message
        case .retentionPolicySet(let p): p.message
        case .exportPerformed(let p): p.message
        case .replayRun(let p): p.message
        case .holdPlaced(let p): p.message
        case .holdReleased(let p): p.message
        case .accessRead(let p): p.message
        case .accessPolicySet(let p): p.message
        case .tokenCreated(let p): p.message
        case .tokenRevoked(let p): p.message
        case .integrityVerified(let p): p.message
        case .checkpointIssued(let p): p.message
        }
    }

    /// The payload of an event of `type` read from `bytes`, with the message's envelope.
    static func decode(_ type: EventType, from bytes: [UInt8]) throws -> (SessionPayload, any EnvelopeMessage) {
        func parse<M: EnvelopeMessage>(_: M.Type, _ make: (M) throws -> SessionPayload) throws -> (SessionPayload, any EnvelopeMessage) {
            let message = try M(serializedBytes: bytes)
            return (try make(message), message)
        }
        return switch type {
        case .sessionStarted: try parse(Sessionstore_V1_SessionStarted.self) { .sessionStarted(try SessionStarted($0)) }
        case .sessionPaused: try parse(Sessionstore_V1_SessionPaused.self) { .sessionPaused(SessionTransition($0)) }
        case .sessionResumed: try parse(Sessionstore_V1_SessionResumed.self) { _ in .sessionResumed }
        case .sessionEnded: try parse(Sessionstore_V1_SessionEnded.self) { .sessionEnded(SessionTransition($0)) }
        case .consentGranted: try parse(Sessionstore_V1_ConsentChange.self) { .consentGranted(try ConsentChange($0)) }
        case .consentRevoked: try parse(Sessionstore_V1_ConsentChange.self) { .consentRevoked(try ConsentChange($0)) }
        case .recordingStarted: try parse(Sessionstore_V1_RecordingStarted.self) { .recordingStarted(RecordingStarted($0)) }
        case .recordingChunk: try parse(Sessionstore_V1_RecordingChunk.self) { .recordingChunk(RecordingChunk($0)) }
        case .recordingStopped: try parse(Sessionstore_V1_RecordingStopped.self) { .recordingStopped(RecordingReference($0)) }
        case .transcriptPartial: try parse(Sessionstore_V1_TranscriptPartial.self) { .transcriptPartial(TranscriptPartial($0)) }
        case .transcriptCommitted: try parse(Sessionstore_V1_TranscriptCommitted.self) { .transcriptCommitted(TranscriptCommitted($0)) }
        case .transcriptCorrected: try parse(Sessionstore_V1_TranscriptCorrected.self) { .transcriptCorrected(TranscriptCorrected($0)) }
        case .playbackStarted: try parse(Sessionstore_V1_PlaybackStarted.self) { .playbackStarted(PlaybackStarted($0)) }
        case .playbackPaused: try parse(Sessionstore_V1_PlaybackPosition.self) { .playbackPaused(PlaybackPosition($0)) }
        case .playbackStopped: try parse(Sessionstore_V1_PlaybackPosition.self) { .playbackStopped(PlaybackPosition($0)) }
        case .playbackSeeked: try parse(Sessionstore_V1_PlaybackSeeked.self) { .playbackSeeked(PlaybackSeeked($0)) }
        case .playbackCompleted: try parse(Sessionstore_V1_PlaybackCompleted.self) { .playbackCompleted(RecordingReference($0)) }
        case .retentionPurged: try parse(Sessionstore_V1_RetentionPurged.self) { .retentionPurged(try RetentionPurged($0)) }
        case .subjectErased: try parse(Sessionstore_V1_SubjectErased.self) { .subjectErased(try SubjectErased($0)) }
        case .exportPerformed: try parse(Sessionstore_V1_ExportPerformed.self) { .exportPerformed(try ExportPerformed($0)) }
        case .retentionPolicySet: try parse(Sessionstore_V1_RetentionPolicySet.self) { .retentionPolicySet(RetentionPolicy($0)) }
        case .replayRun: try parse(Sessionstore_V1_ReplayRun.self) { .replayRun(try ReplayRun($0)) }
        case .holdPlaced: try parse(Sessionstore_V1_HoldPlaced.self) { .holdPlaced(try HoldPlaced($0)) }
        case .holdReleased: try parse(Sessionstore_V1_HoldReleased.self) { .holdReleased(try HoldReleased($0)) }
        case .accessRead: try parse(Sessionstore_V1_AccessRead.self) { .accessRead(try AccessRead($0)) }
        case .accessPolicySet: try parse(Sessionstore_V1_AccessPolicySet.self) { .accessPolicySet(AccessPolicy($0)) }
        case .tokenCreated: try parse(Sessionstore_V1_TokenCreated.self) { .tokenCreated(try TokenCreated($0)) }
        case .tokenRevoked: try parse(Sessionstore_V1_TokenRevoked.self) { .tokenRevoked(try TokenRevoked($0)) }
        case .integrityVerified: try parse(Sessionstore_V1_IntegrityVerified.self) { .integrityVerified(try IntegrityVerified($0)) }
        case .checkpointIssued: try parse(Sessionstore_V1_CheckpointIssued.self) { .checkpointIssued(try CheckpointIssued($0)) }
        }
    }

    /// A subject hash field: absent (empty) is nil; otherwise exactly 32 bytes.
    static func subject(_ bytes: Data, field: Int) throws -> SubjectHash? {
        guard !bytes.isEmpty else { return nil }
        guard let hash = SubjectHash(bytes: Array(bytes)) else {
            throw WireReader.Malformed(reason: "field \(field) is not a 32-byte subject hash")
        }
        return hash
    }
}
