extension UnsafeMutableRawBufferPointer {
    package func storeBigEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
    }
}

extension UnsafeRawBufferPointer {
    package func loadBigEndian<T: FixedWidthInteger & BitwiseCopyable>(at offset: Int, as type: T.Type = T.self) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension Array where Element == UInt8 {
    /// The big-endian bytes of an integer: how every integer key and field is written to disk.
    init<T: FixedWidthInteger>(bigEndian value: T) {
        self = Swift.withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// Appends the big-endian bytes of an integer, without an array of its own.
    package mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
