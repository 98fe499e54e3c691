/// A compliance operation that cannot be done as asked, with what is wrong.
///
/// Match on ``code``.
public struct ComplianceError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// No session or consent event of the subject is stored.
        public static let unknownSubject = Code("unknown subject")
        /// No session has this id.
        public static let unknownSession = Code("unknown session")
        /// A duration, time or policy given is not acceptable.
        public static let invalidRequest = Code("invalid request")
        /// A record asked for is not there: an event a session does not have, or one a checkpoint does not cover.
        public static let outOfRange = Code("out of range")
    }

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming what is wrong.
    public var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
