internal import CSodium

/// The master key and the sub-keys derived from it with `crypto_kdf_derive_from_key`
/// (BLAKE2b, context `SSTORE01`). Each purpose has its own sub-key id; see docs/FORMAT.md.
///
/// Two sub-keys must outlive a change of master key, because what they made is kept in records that
/// are never rewritten or by auditors: the subject-hashing key (subject hashes, consent stream ids)
/// and the checkpoint signing seed. After a rotation they come from `meta/stable-keys`, wrapped
/// under the current master key, instead of being derived from it.
final class KeyHierarchy: Sendable {
    enum Purpose: UInt64 {
        case keyWrapping = 1
        case subjectHashing = 2
        case checkpointSigning = 3
        case keyCheck = 4
        case storeMetadata = 5
        case views = 6
        case pushOutbox = 7
    }

    static let masterKeyBytes = 32
    private static let context = Array("SSTORE01".utf8).map { CChar(bitPattern: $0) }

    let master: SecureBytes
    let keyWrapping: SecureBytes
    let keyCheck: SecureBytes
    let storeMetadata: SecureBytes
    let subjectHashing: SecureBytes
    let views: SecureBytes
    let checkpointSigning: SecureBytes
    let pushOutbox: SecureBytes

    init(master: SecureBytes, stable: (subjectHashing: SecureBytes, checkpointSigning: SecureBytes)? = nil) {
        precondition(master.count == Self.masterKeyBytes)
        self.master = master
        keyWrapping = Self.derive(.keyWrapping, from: master)
        keyCheck = Self.derive(.keyCheck, from: master)
        storeMetadata = Self.derive(.storeMetadata, from: master)
        subjectHashing = stable?.subjectHashing ?? Self.derive(.subjectHashing, from: master)
        views = Self.derive(.views, from: master)
        pushOutbox = Self.derive(.pushOutbox, from: master)
        checkpointSigning = stable?.checkpointSigning ?? Self.derive(.checkpointSigning, from: master)
    }

    /// `"stable-keys" | store id`
    static func stableKeysAdditionalData(_ storeID: [UInt8]) -> [UInt8] { Array("stable-keys".utf8) + storeID }

    /// The hierarchy of `master` in a store: with the stable keys from `meta/stable-keys` when a
    /// rotation left them there. Check the key (`StoreOpening.checkKey`) first.
    static func load(master: SecureBytes, storeID: [UInt8], in txn: StoreTransaction) throws -> KeyHierarchy {
        let derived = KeyHierarchy(master: master)
        guard let box = try txn.get(StoreLayout.meta, StoreLayout.stableKeysKey) else { return derived }
        guard let keys = AEAD.openBox(box, additionalData: stableKeysAdditionalData(storeID), key: derived.keyWrapping),
              keys.count == 64 else {
            throw EventLogError(.integrity, "the store's stable keys do not authenticate")
        }
        return KeyHierarchy(master: master, stable: (SecureBytes(count: 32) { $0.copyBytes(from: keys[0..<32]) },
                                                      SecureBytes(count: 32) { $0.copyBytes(from: keys[32..<64]) }))
    }

    /// The two stable keys, wrapped under this hierarchy's key-wrapping sub-key.
    func wrappedStableKeys(storeID: [UInt8]) -> [UInt8] {
        var plain = [UInt8](repeating: 0, count: 64)
        subjectHashing.withUnsafeBytes { plain.replaceSubrange(0..<32, with: $0) }
        checkpointSigning.withUnsafeBytes { plain.replaceSubrange(32..<64, with: $0) }
        defer { for index in plain.indices { plain[index] = 0 } }
        return plain.withUnsafeBytes { AEAD.sealBox($0, additionalData: Self.stableKeysAdditionalData(storeID), key: keyWrapping) }
    }

    private static func derive(_ purpose: Purpose, from master: SecureBytes) -> SecureBytes {
        SecureBytes(count: 32) { out in
            let code = context.withUnsafeBufferPointer { context in
                crypto_kdf_derive_from_key(out.bytes, 32, purpose.rawValue, context.baseAddress!, master.baseAddress)
            }
            precondition(code == 0, "crypto_kdf_derive_from_key rejected a 32-byte sub-key")
        }
    }
}
