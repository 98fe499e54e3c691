/// Rows in the binary format of `COPY … FROM STDIN (FORMAT binary)`: after a header, each row is its
/// field count (two bytes) and each field as a four-byte length and its bytes, in the binary form of
/// the column's type, all big-endian; a count of −1 ends the rows.
enum PGCopy {
    /// The signature `PGCOPY\n\377\r\n\0`, no flags, no header extension.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
    static let trailer: [UInt8] = [0xFF, 0xFF]

    /// Appends a row of a bigint and a bytea column.
    static func append(_ key: Int64, _ value: [UInt8], to bytes: inout [UInt8]) {
        bytes.appendBigEndian(UInt16(2))
        bytes.appendBigEndian(UInt32(8))
        bytes.appendBigEndian(key)
        bytes.appendBigEndian(UInt32(value.count))
        bytes += value
    }
}
