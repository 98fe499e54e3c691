/// A row of output: a value that writes its fields, in order, for any ``OutputFormat``.
///
/// ```swift
/// struct StepRow: OutputRow {
///     static let columns = ["step", "type", "occurred_at"]
///     var step: Int, type: String, occurredAt: Int64?
///     func write(to fields: inout Fields) {
///         fields.field("step", step)
///         fields.field("type", type)
///         fields.field("occurred_at", time: occurredAt)   // null in JSON, empty in CSV when nil
///     }
/// }
/// ```
public protocol OutputRow {
    /// The columns of CSV and table output, in order. JSON output has the fields `write` writes.
    static var columns: [String] { get }

    /// Writes the row's fields; keys follow docs/OUTPUT.md.
    func write(to fields: inout Fields)
}

extension OutputRow {
    /// The row as one JSON object, as `--format json` writes it (no line end): for an HTTP answer.
    public var json: [UInt8] {
        var out: [UInt8] = []
        Fields.appendObject(write, to: &out)
        return out
    }
}
