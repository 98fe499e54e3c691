import Compliance
import Foundation
import Projections
import SessionModel

/// Everything a session report shows, gathered from the store (``SessionReport/make(_:from:options:listedRuns:)``)
/// and drawn by ``SessionReportHTML``. Times on the timeline are milliseconds on the recording's axis:
/// 0 is when the recording started (the session's start when there is no recording).
package struct SessionReport: Sendable {
    /// What to put in the report.
    package struct Options: Sendable {
        /// Embed the recording as FLAC in a data URL (the file then holds the audio in clear).
        package var includeAudio = true
        /// Replace transcript text with `[REDACTED]`, as exports do.
        package var redact = false
        /// The time the report is as of (it names it, and the violation check uses it); none by default,
        /// so that the same store gives the same bytes.
        package var asOf: Int64?

        package init(includeAudio: Bool = true, redact: Bool = false, asOf: Int64? = nil) {
            self.includeAudio = includeAudio
            self.redact = redact
            self.asOf = asOf
        }
    }

    /// A committed segment and the partial guesses it settled from.
    package struct Segment: Sendable, Equatable {
        package var id: String
        /// The text to show (the correction, if there is one).
        package var text: String
        /// The committed text, when a correction replaced it.
        package var committedText: String?
        package var speaker: String?
        package var startMilliseconds: Int64
        package var endMilliseconds: Int64
        package var confidence: Double?
        /// The partial revisions before the commit, in the order they arrived.
        package var revisions: [Revision]
    }

    /// One partial guess of a segment.
    package struct Revision: Sendable, Equatable {
        package var revision: UInt32
        package var text: String
    }

    /// Something that happened at one moment of the timeline.
    package struct Marker: Sendable, Equatable {
        package enum Kind: String, Sendable {
            case playbackStarted = "play", playbackPaused = "playback-pause", playbackSeeked = "seek"
            case playbackStopped = "stop", playbackCompleted = "complete"
            case consentGranted = "consent-granted", consentRevoked = "consent-revoked"
            case violation
        }

        package var kind: Kind
        package var atMilliseconds: Int64
        /// Where a seek went to, on the same axis.
        package var toMilliseconds: Int64?
        package var label: String
    }

    /// A stretch when the session was paused.
    package struct Pause: Sendable, Equatable {
        package var fromMilliseconds: Int64
        package var toMilliseconds: Int64
    }

    /// The embedded recording.
    package struct Audio: Sendable {
        package var mimeType: String
        package var bytes: [UInt8]
    }

    package var summary: SessionSummary
    /// The replay trace digest (`replay --digest`); nil for an erased or purged session.
    package var replayDigest: String?
    /// Whether `replay --verify` passed, and the first difference when it did not.
    package var replayDivergence: String?
    /// The session's records read, each authenticated (its leaf hash and AEAD tag checked).
    package var recordsAuthenticated = 0
    package var segments: [Segment] = []
    /// Partials of segments never committed: the last guess of each.
    package var uncommitted: [Segment] = []
    package var pauses: [Pause] = []
    package var markers: [Marker] = []
    package var violations: [Violation] = []
    /// The runs of this session (`replay --drive`), in the order they were driven, each scored against it.
    package var runs: [Run] = []

    /// A run of the session scored against it.
    package struct Run: Sendable, Equatable {
        package var run: UUID
        package var label: String?
        /// When its drive started (wall clock, milliseconds since 1970).
        package var drivenAt: Int64
        package var wordErrorRate: Double
        package var errors: Int
        package var referenceWords: Int
    }
    /// The session's consent changes, in log order.
    package var consent: [ConsentTrail.Entry] = []
    package var waveform: Waveform?
    /// How long the recording is (0 without one); the waveform spans this much of the timeline.
    package var audioMilliseconds: Int64 = 0
    /// How long the timeline is: the recording, or the last thing on it if later.
    package var durationMilliseconds: Int64 = 0
    package var audio: Audio?
    package var options: Options

    package var session: UUID { summary.session }
    package var isShredded: Bool { summary.isShredded }
}
