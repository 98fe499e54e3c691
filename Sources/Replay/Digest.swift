import CSodium

/// SHA-256 over bytes fed in pieces (libsodium).
public struct Digest {
    private var state = crypto_hash_sha256_state()

    public init() {
        _ = sodium_init()
        crypto_hash_sha256_init(&state)
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var array = Array(bytes)
        crypto_hash_sha256_update(&state, &array, UInt64(array.count))
    }

    public mutating func update(_ string: String) {
        update(Array(string.utf8))
    }

    /// Length-prefixed, so that ("ab", "c") and ("a", "bc") differ.
    public mutating func updateField(_ bytes: [UInt8]) {
        update(withUnsafeBytes(of: UInt64(bytes.count).bigEndian) { Array($0) })
        update(bytes)
    }

    public mutating func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        crypto_hash_sha256_final(&state, &out)
        return out
    }
}
