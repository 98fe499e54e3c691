internal import CSodium

/// SHA-256 through libsodium, incrementally over several pieces.
struct SHA256 {
    static let digestBytes = 32
    private var state = crypto_hash_sha256_state()

    init() {
        Sodium.initialise()
        crypto_hash_sha256_init(&state)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        crypto_hash_sha256_update(&state, bytes.bytes, UInt64(bytes.count))
    }

    mutating func update(byte: UInt8) {
        withUnsafeBytes(of: byte) { update($0) }
    }

    mutating func finish(into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count == Self.digestBytes)
        crypto_hash_sha256_final(&state, output.bytes)
    }

    static func hash(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        crypto_hash_sha256(output.bytes, bytes.bytes, UInt64(bytes.count))
    }
}
