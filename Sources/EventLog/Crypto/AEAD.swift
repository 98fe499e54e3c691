internal import CSodium

/// XChaCha20-Poly1305 (IETF) in libsodium's combined mode: the 16-byte tag follows the ciphertext.
enum AEAD {
    static let keyBytes = 32
    static let nonceBytes = 24
    static let tagBytes = 16

    /// Encrypts `plaintext` into `output`, which must hold `plaintext.count + tagBytes` bytes.
    static func seal(
        _ plaintext: UnsafeRawBufferPointer, additionalData: UnsafeRawBufferPointer,
        nonce: UnsafeRawBufferPointer, key: SecureBytes, into output: UnsafeMutableRawBufferPointer
    ) {
        precondition(output.count == plaintext.count + tagBytes && nonce.count == nonceBytes)
        var written: UInt64 = 0
        crypto_aead_xchacha20poly1305_ietf_encrypt(
            output.bytes, &written, plaintext.bytes, UInt64(plaintext.count),
            additionalData.bytes, UInt64(additionalData.count), nil, nonce.bytes, key.baseAddress)
    }

    /// Decrypts and authenticates `ciphertext` into `output` (`ciphertext.count - tagBytes` bytes).
    /// Returns false, writing nothing usable, when the tag does not verify.
    static func open(
        _ ciphertext: UnsafeRawBufferPointer, additionalData: UnsafeRawBufferPointer,
        nonce: UnsafeRawBufferPointer, key: SecureBytes, into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard ciphertext.count >= tagBytes, output.count == ciphertext.count - tagBytes,
              nonce.count == nonceBytes else { return false }
        var written: UInt64 = 0
        return crypto_aead_xchacha20poly1305_ietf_decrypt(
            output.bytes, &written, nil, ciphertext.bytes, UInt64(ciphertext.count),
            additionalData.bytes, UInt64(additionalData.count), nonce.bytes, key.baseAddress) == 0
    }

    /// Seals a small value (a wrapped key, a dictionary) as `nonce ‖ ciphertext ‖ tag`.
    static func sealBox(_ plaintext: UnsafeRawBufferPointer, additionalData: [UInt8], key: SecureBytes) -> [UInt8] {
        let nonce = Sodium.randomBytes(count: nonceBytes)
        var box = nonce + [UInt8](repeating: 0, count: plaintext.count + tagBytes)
        additionalData.withUnsafeBytes { aad in
            nonce.withUnsafeBytes { nonce in
                box.withUnsafeMutableBytes { out in
                    seal(plaintext, additionalData: aad, nonce: nonce,
                         key: key, into: UnsafeMutableRawBufferPointer(rebasing: out[nonceBytes...]))
                }
            }
        }
        return box
    }

    /// Opens a box made by ``sealBox(_:additionalData:key:)`` into ordinary memory (for data, not keys:
    /// data keys are unwrapped straight into a ``KeySlab``); nil when it does not authenticate.
    static func openBox(_ box: UnsafeRawBufferPointer, additionalData: [UInt8], key: SecureBytes) -> [UInt8]? {
        guard box.count >= nonceBytes + tagBytes else { return nil }
        var ok = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: box.count - nonceBytes - tagBytes) { buffer, count in
            ok = additionalData.withUnsafeBytes { aad in
                open(UnsafeRawBufferPointer(rebasing: box[nonceBytes...]), additionalData: aad,
                     nonce: UnsafeRawBufferPointer(rebasing: box[..<nonceBytes]), key: key,
                     into: UnsafeMutableRawBufferPointer(buffer))
            }
            count = ok ? buffer.count : 0
        }
        return ok ? plaintext : nil
    }

}
