import Compliance
import Foundation
import Projections
import SessionModel

/// Everything a session report shows, gathered from the store (``SessionReport/make(_:from:options:listedRuns:)``)
/// and drawn by ``SessionReportHTML``. Times on the timeline are milliseconds on the recording's axis:
/// 0 is when the recording started (the session's start when there is no recording).
public struct SessionReport: Sendable {
    /// What to put in the report.
    public struct Options: Sendable {
        /// Embed the recording as FLAC in a data URL (the file then holds the audio in clear).
        public var includeAudio = true
        /// Replace transcript text with `[REDACTED]`, as exports do.
        public var redact = false
        /// The time the report is as of (it names it, and the violation check uses it); none by default,
        /// so that the same store gives the same bytes.
        public var asOf: Int64?

        public init(includeAudio: Bool = true, redact: Bool = false, asOf: Int64? = nil) {
            self.includeAudio = includeAudio
            self.redact = redact
            self.asOf = asOf
        }
    }

    /// A committed segment and the partial guesses it settled from.
    public struct Segment: Sendable, Equatable {
        public var id: String
        /// The text to show (the correction, if there is one).
        public var text: String
        /// The committed text, when a correction replaced it.
        public var committedText: String?
        public var speaker: String?
        public var startMilliseconds: Int64
        public var endMilliseconds: Int64
        public var confidence: Double?
        /// The partial revisions before the commit, in the order they arrived.
        public var revisions: [Revision]
    }

    /// One partial guess of a segment.
    public struct Revision: Sendable, Equatable {
        public var revision: UInt32
        public var text: String
    }

    /// Something that happened at one moment of the timeline.
    public struct Marker: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case playbackStarted = "play", playbackPaused = "playback-pause", playbackSeeked = "seek"
            case playbackStopped = "stop", playbackCompleted = "complete"
            case consentGranted = "consent-granted", consentRevoked = "consent-revoked"
            case violation
        }

        public var kind: Kind
        public var atMilliseconds: Int64
        /// Where a seek went to, on the same axis.
        public var toMilliseconds: Int64?
        public var label: String
    }

    /// A stretch when the session was paused.
    public struct Pause: Sendable, Equatable {
        public var fromMilliseconds: Int64
        public var toMilliseconds: Int64
    }

    /// The embedded recording.
    public struct Audio: Sendable {
        public var mimeType: String
        public var bytes: [UInt8]
    }

    public var summary: SessionSummary
    /// The replay trace digest (`replay --digest`); nil for an erased or purged session.
    public var replayDigest: String?
    /// Whether `replay --verify` passed, and the first difference when it did not.
    public var replayDivergence: String?
    /// The session's records read, each authenticated (its leaf hash and AEAD tag checked).
    public var recordsAuthenticated = 0
    public var segments: [Segment] = []
    /// Partials of segments never committed: the last guess of each.
    public var uncommitted: [Segment] = []
    public var pauses: [Pause] = []
    public var markers: [Marker] = []
    public var violations: [Violation] = []
    /// The runs of this session (`replay --drive`), in the order they were driven, each scored against it.
    public var runs: [Run] = []

    /// A run of the session scored against it.
    public struct Run: Sendable, Equatable {
        public var run: UUID
        public var label: String?
        /// When its drive started (wall clock, milliseconds since 1970).
        public var drivenAt: Int64
        public var wordErrorRate: Double
        public var errors: Int
        public var referenceWords: Int
    }
    /// The session's consent changes, in log order.
    public var consent: [ConsentTrail.Entry] = []
    public var waveform: Waveform?
    /// How long the recording is (0 without one); the waveform spans this much of the timeline.
    public var audioMilliseconds: Int64 = 0
    /// How long the timeline is: the recording, or the last thing on it if later.
    public var durationMilliseconds: Int64 = 0
    public var audio: Audio?
    public var options: Options

    public var session: UUID { summary.session }
    public var isShredded: Bool { summary.isShredded }
}
