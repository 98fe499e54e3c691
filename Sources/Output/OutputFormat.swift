/// The formats every command that prints data chooses from (docs/OUTPUT.md).
public enum OutputFormat: String, CaseIterable, Sendable {
    /// Columns aligned with spaces under a header line, for people.
    case table
    /// Plain lines in a command's own shape (a transcript's sentences, a verify report), for people.
    case text
    /// One JSON document: an array of rows, or one object.
    case json
    /// One JSON object per line (newline-delimited JSON).
    case ndjson
    /// RFC 4180 CSV: a header line, CRLF line ends, quoted where needed.
    case csv
}
