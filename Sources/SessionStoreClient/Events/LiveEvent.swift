import Foundation

/// An event of a dictation session as an app records it: each becomes one ingest line (docs/INGEST.md), with the
/// session, the time it happened on the device and an event id, so that sending it again stores it once.
public enum LiveEvent: Sendable, Equatable {
    case sessionStarted(subject: String, locale: String, device: String? = nil, appVersion: String? = nil, labels: [String: String] = [:])
    case sessionPaused(reason: String? = nil)
    case sessionResumed
    case sessionEnded(reason: String? = nil)
    case consentGranted(subject: String, consentType: String, method: String, policyVersion: String? = nil)
    case consentRevoked(subject: String, consentType: String, method: String, policyVersion: String? = nil)
    /// Samples that follow are 16-bit signed little-endian, interleaved by channel.
    case recordingStarted(recording: String, sampleRate: Int, channels: Int)
    /// One chunk of PCM (an even number of bytes); chunks concatenate in `index` order, from 0.
    case recordingChunk(recording: String, index: Int, pcm: Data)
    case recordingStopped(recording: String)
    case transcriptPartial(segment: String, revision: Int, text: String, startMs: Int, endMs: Int, stability: Double? = nil)
    case transcriptCommitted(segment: String, text: String, startMs: Int, endMs: Int, confidence: Double? = nil, speaker: String? = nil,
                             words: [Word]? = nil)
    case transcriptCorrected(segment: String, text: String, reason: String? = nil)
    case playbackStarted(recording: String, positionMs: Int, rate: Double? = nil)
    case playbackPaused(recording: String, positionMs: Int)
    case playbackStopped(recording: String, positionMs: Int)
    case playbackSeeked(recording: String, fromMs: Int, toMs: Int)
    case playbackCompleted(recording: String)

    /// A recognised word of a committed segment, with its times.
    public struct Word: Sendable, Equatable {
        public var word: String
        public var startMs: Int
        public var endMs: Int
        public var confidence: Double?

        public init(word: String, startMs: Int, endMs: Int, confidence: Double? = nil) {
            self.word = word
            self.startMs = startMs
            self.endMs = endMs
            self.confidence = confidence
        }
    }

    /// The ingest type of the event.
    public var type: String {
        switch self {
        case .sessionStarted: "session.started"
        case .sessionPaused: "session.paused"
        case .sessionResumed: "session.resumed"
        case .sessionEnded: "session.ended"
        case .consentGranted: "consent.granted"
        case .consentRevoked: "consent.revoked"
        case .recordingStarted: "recording.started"
        case .recordingChunk: "recording.chunk"
        case .recordingStopped: "recording.stopped"
        case .transcriptPartial: "transcript.partial"
        case .transcriptCommitted: "transcript.committed"
        case .transcriptCorrected: "transcript.corrected"
        case .playbackStarted: "playback.started"
        case .playbackPaused: "playback.paused"
        case .playbackStopped: "playback.stopped"
        case .playbackSeeked: "playback.seeked"
        case .playbackCompleted: "playback.completed"
        }
    }

    /// Whether the event ends its session.
    public var endsSession: Bool {
        if case .sessionEnded = self { return true }
        return false
    }

    /// The fields of the event's own, as the ingest line has them.
    var fields: [String: Any] {
        var fields: [String: Any] = [:]
        func set(_ name: String, _ value: Any?) { if let value { fields[name] = value } }
        switch self {
        case .sessionStarted(let subject, let locale, let device, let appVersion, let labels):
            set("subject", subject)
            set("locale", locale)
            set("device", device)
            set("app_version", appVersion)
            set("labels", labels.isEmpty ? nil : labels)
        case .sessionPaused(let reason), .sessionEnded(let reason):
            set("reason", reason)
        case .sessionResumed:
            break
        case .consentGranted(let subject, let consentType, let method, let policyVersion),
             .consentRevoked(let subject, let consentType, let method, let policyVersion):
            set("subject", subject)
            set("consent_type", consentType)
            set("method", method)
            set("policy_version", policyVersion)
        case .recordingStarted(let recording, let sampleRate, let channels):
            set("recording", recording)
            set("sample_rate", sampleRate)
            set("channels", channels)
        case .recordingChunk(let recording, let index, let pcm):
            set("recording", recording)
            set("index", index)
            set("pcm", pcm.base64EncodedString())
        case .recordingStopped(let recording), .playbackCompleted(let recording):
            set("recording", recording)
        case .transcriptPartial(let segment, let revision, let text, let startMs, let endMs, let stability):
            set("segment", segment)
            set("revision", revision)
            set("text", text)
            set("start_ms", startMs)
            set("end_ms", endMs)
            set("stability", stability)
        case .transcriptCommitted(let segment, let text, let startMs, let endMs, let confidence, let speaker, let words):
            set("segment", segment)
            set("text", text)
            set("start_ms", startMs)
            set("end_ms", endMs)
            set("confidence", confidence)
            set("speaker", speaker)
            set("words", words?.map { word -> [String: Any] in
                var fields: [String: Any] = ["word": word.word, "start_ms": word.startMs, "end_ms": word.endMs]
                if let confidence = word.confidence { fields["confidence"] = confidence }
                return fields
            })
        case .transcriptCorrected(let segment, let text, let reason):
            set("segment", segment)
            set("text", text)
            set("reason", reason)
        case .playbackStarted(let recording, let positionMs, let rate):
            set("recording", recording)
            set("position_ms", positionMs)
            set("rate", rate)
        case .playbackPaused(let recording, let positionMs), .playbackStopped(let recording, let positionMs):
            set("recording", recording)
            set("position_ms", positionMs)
        case .playbackSeeked(let recording, let fromMs, let toMs):
            set("recording", recording)
            set("from_ms", fromMs)
            set("to_ms", toMs)
        }
        return fields
    }

    /// The event's ingest line (without its newline): JSON with the type, session, time and id.
    public func line(session: UUID, at time: Date, id: UUID) throws -> Data {
        try check()
        var object = fields
        object["type"] = type
        object["session"] = session.uuidString.lowercased()
        object["at"] = time.formatted(Self.rfc3339)
        object["id"] = id.uuidString.lowercased()
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw ClientError(.invalidEvent, "a \(type) event cannot be written as JSON (a number that is not finite?)", underlying: error)
        }
    }

    /// Refuses what the server would refuse of the event's own shape, before it reaches the outbox.
    private func check() throws {
        func refuse(_ field: String, _ reason: String) -> ClientError {
            ClientError(.invalidEvent, "a \(type) event's field \"\(field)\" \(reason)")
        }
        for (name, value) in fields {
            if let number = value as? Double, !number.isFinite { throw refuse(name, "is not a finite number") }
            if let number = value as? Int, name.hasSuffix("_ms") || name == "index" || name == "revision", number < 0 {
                throw refuse(name, "is negative")
            }
        }
        switch self {
        case .recordingChunk(_, _, let pcm) where pcm.count % 2 != 0:
            throw refuse("pcm", "holds an odd number of bytes (\(pcm.count)); samples are 16-bit")
        case .transcriptPartial(_, _, _, let start, let end, _) where end < start, .transcriptCommitted(_, _, let start, let end, _, _, _) where end < start:
            throw refuse("end_ms", "is before start_ms")
        case .transcriptCommitted(_, _, _, _, _, _, let words?) where words.contains { !($0.confidence ?? 0).isFinite }:
            throw refuse("words", "holds a confidence that is not a finite number")
        default:
            break
        }
    }

    private static let rfc3339 = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)
}
