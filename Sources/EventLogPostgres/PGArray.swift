/// One-dimensional arrays in PostgreSQL's binary format (`array_send`): the header (dimensions, a
/// has-nulls flag, the element type's OID), the dimension (length, lower bound 1), then each element as
/// a four-byte length and its bytes, all big-endian.
enum PGArray {
    static let int8OID: Int32 = 20
    static let byteaOID: Int32 = 17

    static func int8(_ values: [Int64]) -> [UInt8] {
        var bytes = header(count: values.count, elementType: int8OID, payload: values.count * 12)
        for value in values {
            bytes.appendBigEndian(UInt32(8))
            bytes.appendBigEndian(value)
        }
        return bytes
    }

    static func bytea(_ values: [[UInt8]]) -> [UInt8] {
        var bytes = header(count: values.count, elementType: byteaOID, payload: values.reduce(values.count * 4) { $0 + $1.count })
        for value in values {
            bytes.appendBigEndian(UInt32(value.count))
            bytes += value
        }
        return bytes
    }

    private static func header(count: Int, elementType: Int32, payload: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + payload)
        bytes.appendBigEndian(UInt32(1))  // dimensions
        bytes.appendBigEndian(UInt32(0))  // no NULL elements
        bytes.appendBigEndian(elementType)
        bytes.appendBigEndian(UInt32(count))
        bytes.appendBigEndian(UInt32(1))  // lower bound
        return bytes
    }
}
