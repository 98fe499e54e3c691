import Audio
import Foundation

extension RecordedSessionEvent {
    /// The event as a JSON object in the ingest shape (docs/INGEST.md), plus where and when it was
    /// stored (`stream_number`, `position`, `recorded_at`). Subjects appear as `subject_hash` (hex): the
    /// raw id is never stored. PCM is left out unless `withAudio` (a chunk then shows its `frames`,
    /// or `pcm_bytes` for raw PCM of unknown format); with it, FLAC-coded chunks are decoded.
    public func ingestShapedJSON(withAudio: Bool = false) throws(AudioError) -> [String: Any] {
        var json: [String: Any] = [
            "type": event.type.rawValue, "session": event.session.uuidString.lowercased(),
            "id": event.id.uuidString.lowercased(), "at": RFC3339.string(event.occurredAt),
            "stream_number": streamNumber, "position": position, "recorded_at": RFC3339.string(recordedAt),
        ]
        if let correlation = event.correlationID { json["correlation_id"] = correlation.uuidString.lowercased() }
        if let causation = event.causationID { json["causation_id"] = causation.uuidString.lowercased() }
        func set(_ key: String, _ value: Any?) { if let value { json[key] = value } }
        switch event.payload {
        case .sessionStarted(let p):
            set("subject_hash", p.subject?.description)
            json["locale"] = p.locale
            set("device", p.device)
            set("app_version", p.appVersion)
            json["source"] = ["live", "fixture", "import"][Int(p.source.rawValue)]
        case .sessionPaused(let p): set("reason", p.reason)
        case .sessionResumed: break
        case .sessionEnded(let p): set("reason", p.reason)
        case .consentGranted(let p), .consentRevoked(let p):
            set("subject_hash", p.subject?.description)
            json["consent_type"] = p.consentType
            json["method"] = p.method
            set("policy_version", p.policyVersion)
        case .recordingStarted(let p):
            json["recording"] = p.recording
            json["sample_rate"] = p.sampleRate
            json["channels"] = p.channels
        case .recordingChunk(let p):
            json["recording"] = p.recording
            json["index"] = p.index
            if withAudio {
                json["pcm"] = Data(try p.pcm()).base64EncodedString()
            } else if let frames = p.frames {
                json["frames"] = frames
            } else if case .pcm(let bytes) = p.audio {
                json["pcm_bytes"] = bytes.count
            }
        case .recordingStopped(let p): json["recording"] = p.recording
        case .transcriptPartial(let p):
            json["segment"] = p.segment
            json["revision"] = p.revision
            json["text"] = p.text
            json["start_ms"] = p.startMilliseconds
            json["end_ms"] = p.endMilliseconds
            set("stability", p.stability)
        case .transcriptCommitted(let p):
            json["segment"] = p.segment
            json["text"] = p.text
            json["start_ms"] = p.startMilliseconds
            json["end_ms"] = p.endMilliseconds
            set("confidence", p.confidence)
            set("speaker", p.speaker)
            if !p.words.isEmpty {
                json["words"] = p.words.map { word -> [String: Any] in
                    var entry: [String: Any] = ["word": word.word, "start_ms": word.startMilliseconds, "end_ms": word.endMilliseconds]
                    if let confidence = word.confidence { entry["confidence"] = confidence }
                    return entry
                }
            }
        case .transcriptCorrected(let p):
            json["segment"] = p.segment
            json["text"] = p.text
            set("reason", p.reason)
        case .playbackStarted(let p):
            json["recording"] = p.recording
            json["position_ms"] = p.positionMilliseconds
            set("rate", p.rate)
        case .playbackPaused(let p), .playbackStopped(let p):
            json["recording"] = p.recording
            json["position_ms"] = p.positionMilliseconds
        case .playbackSeeked(let p):
            json["recording"] = p.recording
            json["from_ms"] = p.fromMilliseconds
            json["to_ms"] = p.toMilliseconds
        case .playbackCompleted(let p): json["recording"] = p.recording
        case .retentionPurged(let p):
            json["policy"] = p.policy
            json["cutoff"] = RFC3339.string(p.cutoff)
        case .subjectErased(let p):
            set("subject_hash", p.subject?.description)
            json["sessions"] = p.sessions.map { $0.uuidString.lowercased() }
            set("request_reference", p.requestReference)
        case .exportPerformed(let p):
            json["actor"] = p.actor
            json["format"] = p.format
            json["sessions"] = p.sessions.map { $0.uuidString.lowercased() }
            set("subject_hash", p.subject?.description)
        }
        return json
    }
}
