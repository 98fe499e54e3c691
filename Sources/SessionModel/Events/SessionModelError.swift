/// A session event that cannot be decoded or built, with what and where.
public struct SessionModelError: Error, Sendable, CustomStringConvertible {
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

    public var code: Code
    public var message: String
    /// The global position of the event concerned.
    public var position: UInt64?

    public var description: String { message }
}
