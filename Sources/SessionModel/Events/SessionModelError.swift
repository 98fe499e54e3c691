/// A session event that cannot be decoded or built, with what and where.
public struct SessionModelError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The payload bytes do not follow the event type's schema.
        public static let malformed = Code("malformed")
        /// The log holds an event type this build does not know.
        public static let unknownType = Code("unknown type")
        /// The event was written with a newer schema version than this build reads.
        public static let newerSchema = Code("newer schema")
    }

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming the event's position and what is wrong.
    public var message: String
    /// The global position of the event concerned.
    public var position: UInt64?

    public var description: String { message }
}
