
/// One thing wrong with an ingest file, precise enough to fix: the line, the field and why.
public struct IngestProblem: Hashable, Sendable, CustomStringConvertible {
    /// 1-based line number in the file.
    public var line: Int
    /// The field concerned, or nil for the line as a whole.
    public var field: String?
    /// What is wrong with the field, in words a client developer can act on.
    public var reason: String

    public var description: String {
        "line \(line)" + (field.map { ", field \"\($0)\"" } ?? "") + ": " + reason
    }
}
