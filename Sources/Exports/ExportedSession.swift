import Foundation
import Projections
import SessionModel

/// What an export knows of one session: its summary, its transcript and its consent changes, all
/// from the persisted views.
public struct ExportedSession: Sendable {
    /// The session list's row: status, times, subject, recordings.
    public var summary: SessionSummary
    /// The committed segments (with corrections) and the current partials.
    public var transcript: TranscriptView
    /// The grants and revocations made in this session, in log order.
    public var consent: [ConsentTrail.Entry]

    /// A session with these parts.
    public init(summary: SessionSummary, transcript: TranscriptView, consent: [ConsentTrail.Entry]) {
        self.summary = summary
        self.transcript = transcript
        self.consent = consent
    }

    /// The session id.
    public var session: UUID { summary.session }
}
