import Foundation
import SessionModel

/// One row of the session list, folded from a session's events.
public struct SessionSummary: Hashable, Sendable {
    /// Where a session stands.
    public enum Status: String, Hashable, Sendable, CaseIterable {
        case active, paused, ended, erased, purged
    }

    /// A recording's format and length so far.
    public struct Recording: Hashable, Sendable {
        /// Sample frames per second.
        public var sampleRate: UInt32
        /// Samples per frame.
        public var channels: UInt32
        /// Sample frames stored so far.
        public var frames: UInt64

        /// The audio stored so far, in milliseconds.
        public var milliseconds: UInt64 { sampleRate == 0 ? 0 : frames * 1000 / UInt64(sampleRate) }
    }

    /// The session summarised.
    public let session: UUID
    /// The person dictating, from `session.started`.
    public var subject: SubjectHash?
    /// The session's language, from `session.started`.
    public var locale: String?
    /// Active, paused, ended, erased or purged.
    public var status: Status = .active
    /// Client times, ms since 1970.
    public var startedAt: Int64?
    /// When the session ended (client clock, ms since 1970), if it did.
    public var endedAt: Int64?
    /// When the session's latest event happened (client clock).
    public var lastEventAt: Int64?
    /// Committed segments.
    public var segments = 0
    /// Words in the committed (and corrected) text.
    public var words = 0
    /// The session's recordings by id.
    public var recordings: [String: Recording] = [:]
    /// Consent per type (`audio_recording`, `transcription`, …): true while granted.
    public var consent: [String: Bool] = [:]
    /// For a run of a replay into a system under test (`replay.run`): the session replayed.
    public var runOf: UUID?
    /// The run's label, when given.
    public var runLabel: String?
    /// The session's labels, from `session.started` (``SessionLabels``).
    public var labels: [String: String] = [:]

    /// A summary of a session with no events yet.
    public init(session: UUID) {
        self.session = session
    }

    /// The row of a session whose data keys were destroyed: what is left is its id, its status and
    /// (for an erasure) the subject's hash, the same whether folded before or after the erasure.
    public static func shredded(_ session: UUID, status: Status, subject: SubjectHash?) -> SessionSummary {
        var summary = SessionSummary(session: session)
        summary.status = status
        summary.subject = subject
        return summary
    }

    /// Whether the session carries every label of `wanted` with the value given.
    public func hasLabels(_ wanted: [(name: String, value: String)]) -> Bool {
        wanted.allSatisfy { labels[$0.name] == $0.value }
    }

    /// Whether the session's data was erased or purged.
    public var isShredded: Bool { status == .erased || status == .purged }

    /// From start to end (or to the last event while the session is open).
    public var durationMilliseconds: Int64? {
        guard let startedAt, let end = endedAt ?? lastEventAt else { return nil }
        return max(0, end - startedAt)
    }

    /// All the session's stored audio, in milliseconds.
    public var audioMilliseconds: UInt64 { recordings.values.reduce(0) { $0 + $1.milliseconds } }

    /// Folds one event of the session in.
    public mutating func apply(_ event: SessionEvent) {
        guard event.session == session else { return }
        lastEventAt = max(lastEventAt ?? event.occurredAt, event.occurredAt)
        switch event.payload {
        case .sessionStarted(let started):
            subject = started.subject
            locale = started.locale
            labels = started.labels
            startedAt = event.occurredAt
            status = .active
        case .sessionPaused:
            if status == .active { status = .paused }
        case .sessionResumed:
            if status == .paused { status = .active }
        case .sessionEnded:
            if status == .active || status == .paused { status = .ended }
            endedAt = event.occurredAt
        case .consentGranted(let change):
            consent[change.consentType] = true
        case .consentRevoked(let change):
            consent[change.consentType] = false
        case .recordingStarted(let started):
            recordings[started.recording] = Recording(sampleRate: started.sampleRate, channels: started.channels, frames: 0)
        case .recordingChunk(let chunk):
            guard var recording = recordings[chunk.recording] else { return }
            if let frames = chunk.frames {
                recording.frames += frames
            } else if case .pcm(let bytes) = chunk.audio {
                recording.frames += UInt64(bytes.count) / UInt64(2 * max(1, recording.channels))
            }
            recordings[chunk.recording] = recording
        case .transcriptCommitted(let commit):
            segments += 1
            words += commit.words.isEmpty ? Self.wordCount(commit.text) : commit.words.count
        case .replayRun(let run):
            runOf = run.source
            runLabel = run.label
        default:
            return
        }
    }

    /// Words as runs of letters, digits and combining marks (Unicode properties, no Foundation).
    static func wordCount(_ text: String) -> Int {
        var count = 0
        var inWord = false
        for scalar in text.unicodeScalars {
            let wordy: Bool
            if scalar.isASCII {
                let value = scalar.value
                wordy = (value >= 48 && value <= 57) || (value >= 65 && value <= 90) || (value >= 97 && value <= 122)
            } else {
                let properties = scalar.properties
                wordy = properties.isAlphabetic || properties.numericType != nil
                    || properties.generalCategory == .nonspacingMark || properties.generalCategory == .spacingMark
            }
            if wordy, !inWord { count += 1 }
            inWord = wordy
        }
        return count
    }
}
