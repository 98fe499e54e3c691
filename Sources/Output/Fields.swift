import Foundation
import HexCoding
import TimeCoding

/// Where a row writes its fields: straight into JSON bytes, or into the cells of a CSV or table line.
///
/// Absent values (`nil`) are `null` in JSON and empty cells in CSV and tables. In CSV and tables a
/// nested value (a list, an object) is one cell holding its compact JSON text.
public struct Fields {
    enum Target {
        /// JSON object members appended to ``bytes``.
        case json
        /// Cells of a flat line; `columns` maps a key to its cell.
        case cells(columns: [String: Int])
        /// A CSV line written straight into ``bytes``, for a row that writes its fields in column order
        /// (skipping some is fine); one out of order sets ``outOfOrder`` and the line is written from cells.
        case csvLine
    }

    let target: Target
    private var memberCount = 0
    /// The column names in order, and the cell a row in column order writes next.
    private var order: [String] = []
    private var nextCell = 0
    /// A `.csvLine` row wrote a field before one it had already passed.
    private(set) var outOfOrder = false
    /// The cells of a flat line, by column.
    var cells: [String]
    /// The JSON written so far; the writer lends its buffer here and takes it back.
    var bytes: [UInt8]

    init(_ target: Target, columns: [String] = []) {
        self.target = target
        bytes = []
        order = columns
        cells = [String](repeating: "", count: columns.count)
    }

    /// True when the row becomes one line of cells (CSV, table) rather than a JSON object: a row may
    /// then render a value in a form people read in a cell.
    public var isFlat: Bool {
        if case .json = target { return false }
        return true
    }

    // MARK: Scalars

    /// A text field: a JSON string, or the cell's text.
    public mutating func field(_ key: String, _ value: String?) {
        put(key, isNil: value == nil, plain: false, cell: { value ?? "" }) { out in
            if let value { JSONText.appendString(value, to: &out) } else { JSONText.appendNull(to: &out) }
        }
    }

    /// A signed integer field.
    public mutating func field(_ key: String, _ value: Int64?) {
        put(key, isNil: value == nil, plain: true, cell: { value.map { String($0) } ?? "" }) { out in
            if let value { JSONText.appendInteger(value, to: &out) } else { JSONText.appendNull(to: &out) }
        }
    }

    /// An unsigned integer field.
    public mutating func field(_ key: String, _ value: UInt64?) {
        put(key, isNil: value == nil, plain: true, cell: { value.map { String($0) } ?? "" }) { out in
            if let value { JSONText.appendInteger(value, to: &out) } else { JSONText.appendNull(to: &out) }
        }
    }

    /// An integer field.
    public mutating func field(_ key: String, _ value: Int?) {
        field(key, value.map(Int64.init))
    }

    /// An unsigned integer field.
    public mutating func field(_ key: String, _ value: UInt32?) {
        field(key, value.map(UInt64.init))
    }

    /// A number field in its shortest round-tripping form; NaN and infinities are absent.
    public mutating func field(_ key: String, _ value: Double?) {
        put(key, isNil: value.map { !$0.isFinite } ?? true, plain: true,
            cell: { value.map { $0.isFinite ? $0.description : "" } ?? "" }) { out in
            if let value { JSONText.appendDouble(value, to: &out) } else { JSONText.appendNull(to: &out) }
        }
    }

    /// A `true`/`false` field.
    public mutating func field(_ key: String, _ value: Bool?) {
        put(key, isNil: value == nil, plain: true, cell: { value.map { $0 ? "true" : "false" } ?? "" }) { out in
            if let value { JSONText.appendBool(value, to: &out) } else { JSONText.appendNull(to: &out) }
        }
    }

    /// Bytes as standard base64 text (RFC 4648, padded): a JSON string, or the cell's text.
    public mutating func field(_ key: String, base64 bytes: [UInt8]?) {
        put(key, isNil: bytes == nil, plain: false, cell: { bytes.map(Base64.string) ?? "" },
            csv: { out in if let bytes { Base64.append(bytes, to: &out) } }) { out in
            guard let bytes else { JSONText.appendNull(to: &out); return }
            out.append(UInt8(ascii: "\""))
            Base64.append(bytes, to: &out)
            out.append(UInt8(ascii: "\""))
        }
    }

    /// A time as RFC 3339 UTC with milliseconds (`2026-11-21T10:00:00.250Z`); keys end in `_at`.
    public mutating func field(_ key: String, time milliseconds: Int64?) {
        put(key, isNil: milliseconds == nil, plain: false, cell: { milliseconds.map(RFC3339.string) ?? "" },
            csv: { out in if let milliseconds { RFC3339.append(milliseconds, to: &out) } }) { out in
            guard let milliseconds else { JSONText.appendNull(to: &out); return }
            out.append(UInt8(ascii: "\""))
            RFC3339.append(milliseconds, to: &out)
            out.append(UInt8(ascii: "\""))
        }
    }

    /// An id as a lowercase hyphenated UUID.
    public mutating func field(_ key: String, id: UUID?) {
        put(key, isNil: id == nil, plain: false, cell: { id.map(Hex.uuid) ?? "" },
            csv: { out in if let id { Hex.appendUUID(id, to: &out) } }) { out in
            guard let id else { JSONText.appendNull(to: &out); return }
            out.append(UInt8(ascii: "\""))
            Hex.appendUUID(id, to: &out)
            out.append(UInt8(ascii: "\""))
        }
    }

    // MARK: Nested values

    /// A list of strings.
    public mutating func field(_ key: String, strings: [String]?) {
        nested(key, isNull: strings == nil) { out in
            out.append(UInt8(ascii: "["))
            for (index, string) in (strings ?? []).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(string, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// A list of unsigned integers (log positions, say).
    public mutating func field(_ key: String, numbers: [UInt64]?) {
        nested(key, isNull: numbers == nil) { out in
            out.append(UInt8(ascii: "["))
            for (index, number) in (numbers ?? []).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendInteger(number, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// A list of rows, each a JSON object.
    public mutating func field<Row: OutputRow>(_ key: String, rows: [Row]?) {
        nested(key, isNull: rows == nil) { out in
            out.append(UInt8(ascii: "["))
            for (index, row) in (rows ?? []).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Fields.appendObject(row.write, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// A session's labels, `labels`: an object of name to value in JSON (null when there are none), and
    /// `name=value` pairs joined by `; ` in a cell; ordered by name.
    public mutating func field(labels: [String: String]) {
        let sorted = labels.sorted { $0.key < $1.key }
        if sorted.isEmpty {
            field("labels", nil as String?)
        } else if isFlat {
            field("labels", sorted.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        } else {
            field("labels", object: { for (name, value) in sorted { $0.field(name, value) } })
        }
    }

    /// An object whose members `members` writes.
    public mutating func field(_ key: String, object members: (inout Fields) -> Void) {
        nested(key, isNull: false) { out in Fields.appendObject(members, to: &out) }
    }

    // MARK: Writing

    /// Writes one member: its JSON into ``bytes``, its cell text into ``cells``, or its CSV cell into
    /// ``bytes``. `plain`: the JSON text of the value is also its CSV cell (numbers, booleans).
    private mutating func put(_ key: String, isNil: Bool, plain: Bool, cell: () -> String,
                              csv: ((inout [UInt8]) -> Void)? = nil, json: (inout [UInt8]) -> Void) {
        switch target {
        case .json:
            Fields.appendKey(key, first: memberCount == 0, to: &bytes)
            json(&bytes)
        case .cells(let columns):
            // Rows mostly write their fields in column order: try the next column before hashing the key.
            let column: Int
            if nextCell < order.count, order[nextCell] == key {
                column = nextCell
            } else if let found = columns[key] {
                column = found
            } else {
                assertionFailure("\(key) is not one of the row's columns")
                return
            }
            cells[column] = cell()
            nextCell = column + 1
        case .csvLine:
            let next = nextCell < order.count && order[nextCell] == key ? nextCell : nil
            guard !outOfOrder, let column = next ?? order[nextCell...].firstIndex(of: key) else {
                outOfOrder = true
                return
            }
            for skipped in nextCell..<column where skipped > 0 { bytes.append(0x2C) }
            if column > 0 { bytes.append(0x2C) }
            if !isNil {
                if let csv { csv(&bytes) } else if plain { json(&bytes) } else { CSV.appendField(cell(), to: &bytes) }
            }
            nextCell = column + 1
        }
        memberCount += 1
    }

    /// Ends a `.csvLine` row: the commas of the columns it did not write, and the line end.
    mutating func finishCSVLine() {
        for column in nextCell..<order.count where column > 0 { bytes.append(0x2C) }
        bytes.append(contentsOf: [0x0D, 0x0A])
    }

    private mutating func nested(_ key: String, isNull: Bool, _ json: (inout [UInt8]) -> Void) {
        put(key, isNil: isNull, plain: false, cell: {
            guard !isNull else { return "" }
            var bytes: [UInt8] = []
            json(&bytes)
            return String(decoding: bytes, as: UTF8.self)
        }, json: { out in isNull ? JSONText.appendNull(to: &out) : json(&out) })
    }

    private static func appendKey(_ key: String, first: Bool, to out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        JSONText.appendString(key, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    /// `{…}` with the members `write` writes, appended to `out`. The buffer is swapped into the fields
    /// and back, never assigned: a second reference to it, even for a moment, would make the next
    /// append copy everything written so far.
    static func appendObject(_ write: (inout Fields) -> Void, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var fields = Fields(.json)
        swap(&fields.bytes, &out)
        write(&fields)
        swap(&fields.bytes, &out)
        out.append(UInt8(ascii: "}"))
    }
}
