/// One-dimensional arrays in PostgreSQL's binary format (`array_send`): the header (dimensions, a
/// has-nulls flag, the element type's OID), the dimension (length, lower bound 1), then each element as
/// a four-byte length and its bytes, all big-endian.
enum PGArray {
    static let int8OID: Int32 = 20
    static let byteaOID: Int32 = 17

    static func int8(_ values: [Int64]) -> [UInt8] {
        var bytes = header(count: values.count, elementType: int8OID, payload: values.count * 12)
        for value in values {
            bytes += [UInt8](bigEndian: UInt32(8))
            bytes += [UInt8](bigEndian: UInt64(bitPattern: value))
        }
        return bytes
    }

    static func bytea(_ values: [[UInt8]]) -> [UInt8] {
        var bytes = header(count: values.count, elementType: byteaOID, payload: values.reduce(values.count * 4) { $0 + $1.count })
        for value in values {
            bytes += [UInt8](bigEndian: UInt32(value.count))
            bytes += value
        }
        return bytes
    }

    private static func header(count: Int, elementType: Int32, payload: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + payload)
        bytes += [UInt8](bigEndian: UInt32(1))  // dimensions
        bytes += [UInt8](bigEndian: UInt32(0))  // no NULL elements
        bytes += [UInt8](bigEndian: UInt32(bitPattern: elementType))
        bytes += [UInt8](bigEndian: UInt32(count))
        bytes += [UInt8](bigEndian: UInt32(1))  // lower bound
        return bytes
    }
}
