internal import CSodium

/// Keyed BLAKE2b-256 of identifiers (such as a person's user id) with the store's subject-hashing
/// sub-key: the same identifier always gives the same hash in one store, and no one without the
/// master key can compute or reverse it.
struct IdentifierHasher: Sendable {
    static let hashBytes = 32
    let key: SecureBytes

    func hash(_ identifier: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.hashBytes) { out, count in
            identifier.withUnsafeBytes { input in
                _ = crypto_generichash(out.baseAddress!, Self.hashBytes, UnsafeRawBufferPointer(input).bytes,
                                       UInt64(input.count), key.baseAddress, key.count)
            }
            count = Self.hashBytes
        }
    }
}
