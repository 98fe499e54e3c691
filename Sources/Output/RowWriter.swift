/// Writes rows of one type as they are produced, in a JSON array, NDJSON, CSV or an aligned table.
///
/// Nothing is collected: each row goes into the sink's bounded buffer, which is handed to the system as
/// it fills (a table holds its first rows back to size its columns).
///
/// ```swift
/// let sink = OutputSink.standardOutput()
/// var writer = RowWriter<StepRow>(format: .csv, sink: sink)
/// for step in steps { try writer.write(step) }
/// try writer.finish()
/// try sink.close()
/// ```
public struct RowWriter<Row: OutputRow> {
    private let format: OutputFormat
    private let sink: OutputSink
    private let encoder: RowEncoder<Row>
    private var table: TextTable?
    private var rowCount = 0

    /// - Parameters:
    ///   - format: `.json`, `.ndjson`, `.csv` or `.table` (`.text` writes a table without its header).
    ///   - header: Whether CSV and tables start with the column names.
    public init(format: OutputFormat, sink: OutputSink, header: Bool = true) {
        self.format = format
        self.sink = sink
        encoder = RowEncoder(anyFormat: format)
        switch format {
        case .table, .text: table = TextTable(sink: sink, header: header && format == .table ? Row.columns : nil)
        case .csv: if header { CSV.appendRecord(Row.columns, to: &sink.buffer) }
        case .json, .ndjson: break
        }
    }

    /// Writes one row.
    public mutating func write(_ row: Row) throws(OutputError) {
        if table != nil {
            let cells = encoder.cells(of: row)
            try table?.write(cells)
        } else {
            beginRow()
            encoder.append(row, to: &sink.buffer)
        }
        rowCount += 1
        try sink.flushIfFull()
    }

    /// Writes one row encoded ahead by a ``RowEncoder`` of the same format.
    public mutating func write(_ row: RowEncoder<Row>.EncodedRow) throws(OutputError) {
        precondition(table == nil, "a table is sized from its rows: write them, not encoded lines")
        beginRow()
        sink.buffer.append(contentsOf: row.bytes)
        rowCount += 1
        try sink.flushIfFull()
    }

    /// Ends the output (closes a JSON array, writes a table's held-back rows).
    public mutating func finish() throws(OutputError) {
        switch format {
        case .json: sink.buffer.append(contentsOf: rowCount == 0 ? "[]\n".utf8 : "\n]\n".utf8)
        case .table, .text: try table?.finish()
        case .ndjson, .csv: break
        }
        try sink.flushIfFull()
    }

    private func beginRow() {
        if format == .json { sink.buffer.append(contentsOf: rowCount == 0 ? "[\n".utf8 : ",\n".utf8) }
    }
}

extension OutputSink {
    /// Writes `row` alone as one JSON object and, unless `lineEnd` is false, a line end (for commands
    /// whose JSON is one object, and for documents that wrap objects in their own text).
    public func writeObject(_ row: some OutputRow, lineEnd: Bool = true) throws(OutputError) {
        Fields.appendObject(row.write, to: &buffer)
        if lineEnd { buffer.append(UInt8(ascii: "\n")) }
        try flushIfFull()
    }
}
