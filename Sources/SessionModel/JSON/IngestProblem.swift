/// One thing wrong with an ingest file, precise enough to fix: the line, the field and why.
public struct IngestProblem: Hashable, Sendable, CustomStringConvertible {
    /// 1-based line number in the file.
    public var line: Int
    /// The field concerned, or nil for the line as a whole.
    public var field: String?
    /// What is wrong with the field, in words a client developer can act on.
    public var reason: String

    /// A problem with `field` (nil: the line as a whole) of `line`.
    public init(line: Int, field: String?, reason: String) {
        self.line = line
        self.field = field
        self.reason = reason
    }

    public var description: String {
        "line \(line)" + (field.map { ", field \"\($0)\"" } ?? "") + ": " + reason
    }
}
