/// One byte that empty buffers point at, for C functions that reject NULL even for zero lengths.
nonisolated(unsafe) private let emptyByte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

extension UnsafeRawBufferPointer {
    /// The bytes as `const unsigned char *`, never NULL.
    var bytes: UnsafePointer<UInt8> {
        baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(emptyByte)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The bytes as `unsigned char *`, never NULL.
    var bytes: UnsafeMutablePointer<UInt8> {
        baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyByte
    }
}
