internal import CSodium

/// The master key and the sub-keys derived from it with `crypto_kdf_derive_from_key`
/// (BLAKE2b, context `SSTORE01`). Each purpose has its own sub-key id; see docs/FORMAT.md.
final class KeyHierarchy: Sendable {
    enum Purpose: UInt64 {
        case keyWrapping = 1
        case subjectHashing = 2
        case checkpointSigning = 3
        case keyCheck = 4
        case storeMetadata = 5
        case views = 6
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

    init(master: SecureBytes) {
        precondition(master.count == Self.masterKeyBytes)
        self.master = master
        keyWrapping = Self.derive(.keyWrapping, from: master)
        keyCheck = Self.derive(.keyCheck, from: master)
        storeMetadata = Self.derive(.storeMetadata, from: master)
        subjectHashing = Self.derive(.subjectHashing, from: master)
        views = Self.derive(.views, from: master)
        checkpointSigning = Self.derive(.checkpointSigning, from: master)
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
