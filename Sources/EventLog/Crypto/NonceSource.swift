internal import CSodium

/// Nonces for one batch of records without a syscall per record.
///
/// A 32-byte seed is drawn from the operating system once per batch and expanded with
/// `randombytes_buf_deterministic` (ChaCha20). Every batch has a fresh random seed, so the
/// nonces are as unpredictable and as unlikely to collide as independently drawn random
/// 192-bit nonces, which is what XChaCha20-Poly1305 is designed for.
struct NonceSource {
    static let nonceBytes = AEAD.nonceBytes
    private(set) var bytes: [UInt8]

    init(count: Int) {
        Sodium.initialise()
        var seed = [UInt8](repeating: 0, count: Int(randombytes_SEEDBYTES))
        seed.withUnsafeMutableBytes { Sodium.randomBytes($0) }
        bytes = [UInt8](repeating: 0, count: max(count, 1) * Self.nonceBytes)
        bytes.withUnsafeMutableBytes { out in
            randombytes_buf_deterministic(out.baseAddress!, out.count, seed)
        }
        seed.withUnsafeMutableBytes { sodium_memzero($0.baseAddress!, $0.count) }
    }

    func withNonce<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { all in
            try body(UnsafeRawBufferPointer(rebasing: all[(index * Self.nonceBytes)..<((index + 1) * Self.nonceBytes)]))
        }
    }
}
