internal import CSodium

/// libsodium's one-time initialisation, done before the first use of any of its functions.
enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0  // 1 means "already initialised"

    static func initialise() {
        precondition(initialised, "libsodium could not initialise (no source of randomness)")
    }

    /// Fills `buffer` with random bytes from the operating system (one syscall).
    static func randomBytes(_ buffer: UnsafeMutableRawBufferPointer) {
        initialise()
        randombytes_buf(buffer.bytes, buffer.count)
    }

    static func randomBytes(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialised in
            randomBytes(UnsafeMutableRawBufferPointer(buffer))
            initialised = count
        }
    }
}
