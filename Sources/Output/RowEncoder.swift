/// Turns rows into the bytes of one output line (JSON object, NDJSON line, CSV record) on any
/// thread, so that formatting can run where the rows are made; ``RowWriter`` puts the lines together.
public struct RowEncoder<Row: OutputRow>: Sendable {
    /// A row's bytes, ready for ``RowWriter/write(_:)-(EncodedRow)``.
    public struct EncodedRow: Sendable {
        /// The line's bytes.
        public let bytes: [UInt8]
    }

    /// Room reserved for a line up front: growing a buffer from empty reallocates it several times.
    static var typicalLineBytes: Int { 512 }

    let format: OutputFormat
    let columnIndex: [String: Int]

    /// - Parameter format: `.json`, `.ndjson` or `.csv`. Tables need every row to size their columns:
    ///   write their rows with ``RowWriter/write(_:)-(Row)``.
    public init(format: OutputFormat) {
        precondition(format != .table && format != .text, "a table is sized from its rows; write them with RowWriter")
        self.init(anyFormat: format)
    }

    init(anyFormat format: OutputFormat) {
        self.format = format
        columnIndex = Dictionary(uniqueKeysWithValues: Row.columns.enumerated().map { ($1, $0) })
    }

    /// The row's line: without the separators a JSON array adds, with the line end NDJSON and CSV need.
    public func encode(_ row: Row) -> EncodedRow {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.typicalLineBytes)
        append(row, to: &bytes)
        return EncodedRow(bytes: bytes)
    }

    /// Appends the row's line to `out`, as ``encode(_:)`` makes it: for a caller that puts lines together.
    public func encode(_ row: Row, appendingTo out: inout [UInt8]) {
        append(row, to: &out)
    }

    func append(_ row: Row, to out: inout [UInt8]) {
        switch format {
        case .json:
            Fields.appendObject(row.write, to: &out)
        case .ndjson:
            Fields.appendObject(row.write, to: &out)
            out.append(UInt8(ascii: "\n"))
        case .csv, .table, .text:
            appendCSVLine(row, to: &out)
        }
    }

    /// The row's CSV line straight into `out`; from its cells when it writes a field out of column order.
    private func appendCSVLine(_ row: Row, to out: inout [UInt8]) {
        let start = out.count
        var fields = Fields(.csvLine, columns: Row.columns)
        swap(&fields.bytes, &out)
        row.write(to: &fields)
        fields.finishCSVLine()
        swap(&fields.bytes, &out)
        if fields.outOfOrder {
            out.removeSubrange(start...)
            CSV.appendRecord(cells(of: row), to: &out)
        }
    }

    func cells(of row: Row) -> [String] {
        var fields = Fields(.cells(columns: columnIndex), columns: Row.columns)
        row.write(to: &fields)
        return fields.cells
    }
}
