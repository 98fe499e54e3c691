/// An export that cannot be made as asked, with what is wrong.
///
/// Match on ``code``.
public struct ExportError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// No session has this id or id prefix.
        public static let unknownSession = Code("unknown session")
        /// The prefix names more than one session, or is shorter than 8 characters.
        public static let ambiguousSession = Code("ambiguous session")
        /// The request cannot be met as asked (several sessions in one subtitle file).
        public static let invalidRequest = Code("invalid request")
        /// The session has no recording of that id, or none at all.
        public static let unknownRecording = Code("unknown recording")
        /// A recording's chunks have gaps or repeats: its samples cannot be given back whole.
        public static let incompleteRecording = Code("incomplete recording")
        /// The output file cannot be created or replaced.
        public static let cannotWrite = Code("cannot write")
        /// No session or consent event of the subject is stored.
        public static let unknownSubject = Code("unknown subject")
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
