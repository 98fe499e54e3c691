import Failures

/// Why a condition suite cannot be made as asked, in one sentence naming the condition or session.
public struct ConditionError: CodedError, Sendable {
    public typealias Code = ErrorCode<ConditionError>

    public var code: Code
    public var message: String
    /// The error that caused this one, when there was one.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }
}

extension ErrorCode where Domain == ConditionError {
    /// A condition that is not one of the kinds, or a number out of its range.
    public static let invalidCondition = Self("invalid condition", .usage)
    /// A source session that cannot be derived from: no recording, no transcript, erased, a run, or
    /// its subject's consent to recording or transcription not granted.
    public static let unusableSource = Self("unusable source", .usage)
    /// A named source session the store does not hold.
    public static let unknownSource = Self("unknown source", .notFound)
}
