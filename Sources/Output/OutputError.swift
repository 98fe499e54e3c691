import Failures

/// Output that could not be written, with the file it concerns.
///
/// Match on ``code``; `path` names the file (`nil` for standard output).
public struct OutputError: CodedError, Sendable {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<OutputError>

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming the file and what went wrong.
    public var message: String
    /// The error that caused this one, when there was one.
    public var underlying: (any Error)?
    /// The file concerned; `nil` for standard output.
    public var path: String?

    init(_ code: Code, _ message: String, path: String?, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.path = path
    }
}

extension ErrorCode where Domain == OutputError {
    /// The output file could not be created or replaced.
    public static let cannotCreate = Self("cannot create", .usage)
    /// Writing failed (disk full, closed pipe, I/O error).
    public static let writeFailed = Self("write failed", .unexpected)
}
