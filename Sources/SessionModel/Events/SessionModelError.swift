import Failures

/// A session event that cannot be decoded or built, with what and where.
public struct SessionModelError: CodedError, Sendable {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<SessionModelError>

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming the event's position and what is wrong.
    public var message: String
    /// The error that caused this one, when there was one.
    public var underlying: (any Error)? = nil
    /// The global position of the event concerned.
    public var position: UInt64?
}

extension SessionModelError {
    /// A failure of kind `code`, said in `message`.
    public init(_ code: Code, _ message: String) {
        self.init(code: code, message: message, position: nil)
    }
}

extension ErrorCode where Domain == SessionModelError {
    /// The payload bytes do not follow the event type's schema.
    public static let malformed = Self("malformed", .invalidData)
    /// The log holds an event type this build does not know.
    public static let unknownType = Self("unknown type", .invalidData)
    /// The event was written with a newer schema version than this build reads.
    public static let newerSchema = Self("newer schema", .invalidData)
    /// A session label, or a filter on labels, that breaks ``SessionLabels``' rules.
    public static let invalidLabel = Self("invalid label", .usage)
}
