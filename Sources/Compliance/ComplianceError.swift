import Failures

/// A compliance operation that cannot be done as asked, with what is wrong.
///
/// Match on ``code``.
public struct ComplianceError: CodedError, Sendable {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<ComplianceError>

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming what is wrong.
    public var message: String
    /// The error that caused this one, when there was one.
    public var underlying: (any Error)?

    package init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }
}

extension ErrorCode where Domain == ComplianceError {
    /// No session or consent event of the subject is stored.
    public static let unknownSubject = Self("unknown subject", .notFound)
    /// No session has this id.
    public static let unknownSession = Self("unknown session", .notFound)
    /// A duration, time or policy given is not acceptable.
    public static let invalidRequest = Self("invalid request", .usage)
    /// A record asked for is not there: an event a session does not have, or one a checkpoint does not cover.
    public static let outOfRange = Self("out of range", .notFound)
    /// Two checkpoints, or a checkpoint and the log, do not fit together: history was rewritten.
    public static let inconsistent = Self("inconsistent", .inconsistent)
    /// No legal hold has this id.
    public static let unknownHold = Self("unknown hold", .notFound)
    /// No access token has this id.
    public static let unknownToken = Self("unknown token", .notFound)
    /// A legal hold in force keeps the data asked to be destroyed: release it first.
    public static let held = Self("held", .held)
    /// The store's access policy requires a purpose for every read, and none was given.
    public static let purposeRequired = Self("purpose required", .usage)
    /// A checkpoint lacks the witness cosignatures asked for: fewer witnesses vouch for it than needed.
    public static let notWitnessed = Self("not witnessed", .integrity)
    /// Too few witnesses cosigned because the others could not be reached or refused for a reason of
    /// their own (not because they saw the log otherwise).
    public static let witnessesUnavailable = Self("witnesses unavailable", .unavailable)
}
