/// Output that could not be written, with the file it concerns.
///
/// Match on ``code``; `path` names the file (`nil` for standard output).
public struct OutputError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The output file could not be created or replaced.
        public static let cannotCreate = Code("cannot create")
        /// Writing failed (disk full, closed pipe, I/O error).
        public static let writeFailed = Code("write failed")
    }

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming the file and what went wrong.
    public var message: String
    /// The file concerned; `nil` for standard output.
    public var path: String?

    init(_ code: Code, _ message: String, path: String?) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { message }
}
