import Failures

/// An export that cannot be made as asked, with what is wrong.
///
/// Match on ``code``.
public struct ExportError: CodedError, Sendable {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<ExportError>

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming what is wrong.
    public var message: String
    /// The error that caused this one, when there was one.
    public var underlying: (any Error)?

    init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }
}

extension ErrorCode where Domain == ExportError {
    /// The export holds no session of this id.
    public static let unknownSession = Self("unknown session", .notFound)
    /// The request cannot be met as asked (several sessions in one subtitle file).
    public static let invalidRequest = Self("invalid request", .usage)
    /// The session has no recording of that id, or none at all.
    public static let unknownRecording = Self("unknown recording", .notFound)
    /// A recording's chunks have gaps or repeats: its samples cannot be given back whole.
    public static let incompleteRecording = Self("incomplete recording", .invalidData)
    /// The output file cannot be created or replaced.
    public static let cannotWrite = Self("cannot write", .invalidData)
    /// No session or consent event of the subject is stored.
    public static let unknownSubject = Self("unknown subject", .notFound)
}
