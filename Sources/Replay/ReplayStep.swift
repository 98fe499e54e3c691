import HexCoding
import Output
import SessionModel

/// One event re-driven by a replay, with the virtual time it happened at and the views after it.
public struct ReplayStep: Sendable {
    /// 1-based.
    public var number: Int
    /// Virtual milliseconds since the session's first event.
    public var virtualMilliseconds: Int64
    /// The virtual wait before this step (0 when the recorded clock went backwards).
    public var waitMilliseconds: Int64
    /// How far the recorded time went back before this event, if it did (the wait is clamped to 0).
    public var clockWentBackwardsBy: Int64?
    /// The event this step delivered.
    public var event: RecordedSessionEvent
    /// SHA-256 of the views after this step, chained over the steps before: it depends only on the
    /// session's content.
    public var viewsDigestBytes: [UInt8]

    /// ``viewsDigestBytes`` as 64 lowercase hex characters.
    public var viewsDigest: String { Hex.string(viewsDigestBytes) }
}
