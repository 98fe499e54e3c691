/// Lines of cells aligned in columns with two spaces between them, written as they come.
///
/// Column widths are taken from the header and the first ``sampleRows`` lines; a later cell wider
/// than its column pushes the rest of its own line right and changes nothing else.
struct TextTable {
    static let sampleRows = 256

    private let sink: OutputSink
    private var pending: [[String]] = []
    private var widths: [Int]?

    init(sink: OutputSink, header: [String]?) {
        self.sink = sink
        if let header { pending.append(header) }
    }

    mutating func write(_ cells: [String]) throws(OutputError) {
        guard let widths else {
            pending.append(cells)
            if pending.count > Self.sampleRows { try release() }
            return
        }
        append(cells, widths: widths)
        try sink.flushIfFull()
    }

    /// Writes the lines held back to size the columns.
    mutating func finish() throws(OutputError) {
        if widths == nil { try release() }
    }

    private mutating func release() throws(OutputError) {
        let columns = pending.map(\.count).max() ?? 0
        let found = (0..<columns).map { column in pending.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        widths = found
        for cells in pending { append(cells, widths: found) }
        pending = []
        try sink.flushIfFull()
    }

    private func append(_ cells: [String], widths: [Int]) {
        var pad = 0
        for (index, cell) in cells.enumerated() {
            if index > 0 { pad += 2 }
            if !cell.isEmpty {
                sink.buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: pad))
                sink.buffer.append(contentsOf: cell.utf8)
                pad = 0
            }
            if index < widths.count { pad += max(0, widths[index] - cell.count) }
        }
        sink.buffer.append(UInt8(ascii: "\n"))
    }
}
