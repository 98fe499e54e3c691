import Foundation
import HexCoding

// Payloads to and from JSON: an ingest line's fields (docs/INGEST.md, docs/ingest.schema.json) and the
// fields `events` prints for a stored event, which are the same names. Each event type's own codec file
// (Codecs/) reads and writes its fields, beside its protobuf message; this one picks the type.

extension SessionPayload {
    /// The payload of an ingest line of `type` (docs/INGEST.md), its raw subject ids hashed by `hashIdentifier`;
    /// nil when a field is missing or wrong, each such field reported in `f`. The types the store writes itself
    /// are refused before this is asked.
    package init?(_ type: EventType, json f: inout JSONFields, hashIdentifier: (String) -> [UInt8]) {
        let payload: SessionPayload? = switch type {
        case .sessionStarted: SessionStarted(json: &f, hashIdentifier: hashIdentifier).map { .sessionStarted($0) }
        case .sessionPaused: .sessionPaused(SessionTransition(json: &f))
        case .sessionResumed: .sessionResumed
        case .sessionEnded: .sessionEnded(SessionTransition(json: &f))
        case .consentGranted: ConsentChange(json: &f, hashIdentifier: hashIdentifier).map { .consentGranted($0) }
        case .consentRevoked: ConsentChange(json: &f, hashIdentifier: hashIdentifier).map { .consentRevoked($0) }
        case .recordingStarted: RecordingStarted(json: &f).map { .recordingStarted($0) }
        case .recordingChunk: RecordingChunk(json: &f).map { .recordingChunk($0) }
        case .recordingStopped: RecordingReference(json: &f).map { .recordingStopped($0) }
        case .transcriptPartial: TranscriptPartial(json: &f).map { .transcriptPartial($0) }
        case .transcriptCommitted: TranscriptCommitted(json: &f).map { .transcriptCommitted($0) }
        case .transcriptCorrected: TranscriptCorrected(json: &f).map { .transcriptCorrected($0) }
        case .playbackStarted: PlaybackStarted(json: &f).map { .playbackStarted($0) }
        case .playbackPaused: PlaybackPosition(json: &f).map { .playbackPaused($0) }
        case .playbackStopped: PlaybackPosition(json: &f).map { .playbackStopped($0) }
        case .playbackSeeked: PlaybackSeeked(json: &f).map { .playbackSeeked($0) }
        case .playbackCompleted: RecordingReference(json: &f).map { .playbackCompleted($0) }
        case .retentionPurged, .subjectErased, .exportPerformed, .retentionPolicySet, .replayRun, .holdPlaced, .holdReleased, .accessRead,
             .accessPolicySet, .tokenCreated, .tokenRevoked, .integrityVerified, .checkpointIssued: nil
        }
        guard let payload else { return nil }
        self = payload
    }

    /// Writes the payload's fields as `events` prints them and docs/INGEST.md names them (an ingest line's
    /// fields, subjects as `subject_hash`); `pcm`, a chunk's samples decoded ahead, as base64.
    package func write(to fields: inout some PayloadFieldWriter, pcm: [UInt8]?) {
        switch self {
        case .sessionStarted(let p): p.write(to: &fields)
        case .sessionPaused(let p), .sessionEnded(let p): p.write(to: &fields)
        case .sessionResumed: break
        case .consentGranted(let p), .consentRevoked(let p): p.write(to: &fields)
        case .recordingStarted(let p): p.write(to: &fields)
        case .recordingChunk(let p): p.write(to: &fields, pcm: pcm)
        case .recordingStopped(let p), .playbackCompleted(let p): p.write(to: &fields)
        case .transcriptPartial(let p): p.write(to: &fields)
        case .transcriptCommitted(let p): p.write(to: &fields)
        case .transcriptCorrected(let p): p.write(to: &fields)
        case .playbackStarted(let p): p.write(to: &fields)
        case .playbackPaused(let p), .playbackStopped(let p): p.write(to: &fields)
        case .playbackSeeked(let p): p.write(to: &fields)
        case .retentionPurged(let p): p.write(to: &fields)
        case .subjectErased(let p): p.write(to: &fields)
        case .retentionPolicySet(let p): p.write(to: &fields)
        case .exportPerformed(let p): p.write(to: &fields)
        case .replayRun(let p): p.write(to: &fields)
        case .holdPlaced(let p): p.write(to: &fields)
        case .holdReleased(let p): p.write(to: &fields)
        case .accessRead(let p): p.write(to: &fields)
        case .accessPolicySet(let p): p.write(to: &fields)
        case .tokenCreated(let p): p.write(to: &fields)
        case .tokenRevoked(let p): p.write(to: &fields)
        case .integrityVerified(let p): p.write(to: &fields)
        case .checkpointIssued(let p): p.write(to: &fields)
        }
    }
}

extension JSONFields {
    /// `subject`, a raw user id, as its keyed hash (`hashIdentifier`): the raw id is never kept. Or, from a store that
    /// hashes subjects with the same key (`sessionstore push`), `subject_hash` with `subject_key`, that key's id, which
    /// must be this store's: a hash made under another key would name no one here.
    mutating func subject(_ hashIdentifier: (String) -> [UInt8]) -> SubjectHash? {
        guard object["subject"] == nil, object["subject_hash"] != nil else {
            return string("subject", maxBytes: 1024).flatMap { SubjectHash(bytes: hashIdentifier($0)) }
        }
        let hex = string("subject_hash", maxBytes: 64), keyID = string("subject_key", maxBytes: 64)
        guard let hex, let keyID else { return nil }
        guard let hash = SubjectHash(hex: hex.lowercased()) else {
            problem("subject_hash", "must be 64 hex digits, a subject hash as `events` prints it")
            return nil
        }
        let ours = SubjectKeyID.of(hashIdentifier)
        guard keyID.lowercased() == ours else {
            problem("subject_key", "is \(keyID), but this store hashes subjects with key \(ours); a hash made under another key names no one here "
                    + "(create the sending store with `sessionstore init --subject-key`, docs/CLIENT.md)")
            return nil
        }
        return hash
    }
}

/// The id of a subject-hashing key: 16 hex digits that name the key without revealing it, the first 8 bytes of the
/// keyed hash of the text `sessionstore subject key id` (docs/INGEST.md).
package enum SubjectKeyID {
    package static func of(_ hashIdentifier: (String) -> [UInt8]) -> String {
        Hex.string(Array(hashIdentifier("sessionstore subject key id").prefix(8)))
    }
}
