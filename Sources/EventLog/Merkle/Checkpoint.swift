internal import CSodium
import Foundation
import HexCoding

/// A signed tree head in the C2SP tlog-checkpoint form: the origin line, the tree size in decimal,
/// the root hash in base64, each ending in a newline, then a blank line and one Ed25519 signed-note
/// signature line, `— NAME BASE64(key hash (4) ‖ signature (64))`.
///
/// ```text
/// sessionstore/5f0c2b9e-8a41-4d7e-9c33-0b1d2e3f4a5b
/// 1000000
/// x5Yc0bq2gGm0QmX0cHc0mT3Xc1Xo8h2Q3l6kqgH6nJg=
///
/// — sessionstore/5f0c2b9e-8a41-4d7e-9c33-0b1d2e3f4a5b 3d2o8d2v…
/// ```
public struct Checkpoint: Hashable, Sendable {
    /// Names the log: `sessionstore/` followed by the store id.
    public var origin: String
    /// The number of leaves (records) the tree covers.
    public var size: UInt64
    /// The RFC 9162 root hash of the first `size` leaves.
    public var rootHash: [UInt8]
    /// The whole signed note, as written to a file.
    public var text: String

    /// The note body the signature covers: three lines, each ending in a newline.
    static func body(origin: String, size: UInt64, rootHash: [UInt8]) -> String {
        "\(origin)\n\(size)\n\(Data(rootHash).base64EncodedString())\n"
    }

    /// Reads a signed checkpoint and checks its signature with `verifierKey`
    /// (`NAME+KEYHASH+BASE64(0x01 ‖ public key)`, as ``EventLog/checkpointVerifierKey`` prints it).
    /// - Throws: ``EventLogError/Code/invalidArgument`` for a malformed note or key,
    ///   ``EventLogError/Code/integrity`` when no signature line verifies.
    public static func verified(_ text: String, verifierKey: String) throws -> Checkpoint {
        let key = try CheckpointVerifierKey(verifierKey)
        guard let split = text.range(of: "\n\n") else { throw malformed("it has no blank line before its signatures") }
        let body = String(text[..<split.lowerBound]) + "\n"
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard lines.count >= 3, let size = UInt64(lines[1]), String(size) == lines[1],
              let root = Data(base64Encoded: String(lines[2])), root.count == SHA256.digestBytes else {
            throw malformed("its body is not an origin line, a decimal tree size and a base64 SHA-256 root hash")
        }
        let signatures = text[split.upperBound...].split(separator: "\n")
        let verified = signatures.contains { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "—", parts[1] == key.name,
                  let blob = Data(base64Encoded: String(parts[2])), blob.count == 4 + 64,
                  Array(blob.prefix(4)) == key.keyHash else { return false }
            return key.verify(signature: Array(blob.dropFirst(4)), message: Array(body.utf8))
        }
        guard verified else {
            throw EventLogError(.foreignCheckpoint, "the checkpoint's signature does not verify with key \(key.name) (altered, or signed by another store)")
        }
        return Checkpoint(origin: String(lines[0]), size: size, rootHash: Array(root), text: text)
    }

    private static func malformed(_ reason: String) -> EventLogError {
        EventLogError(.invalidArgument, "the checkpoint is malformed: \(reason)")
    }
}

/// An Ed25519 signed-note verifier key: `NAME+KEYHASH+BASE64(0x01 ‖ public key)`, where the key hash
/// is the first 4 bytes of `SHA-256(NAME ‖ "\n" ‖ 0x01 ‖ public key)` in hex.
struct CheckpointVerifierKey {
    let name: String
    let publicKey: [UInt8]

    var keyHash: [UInt8] { Self.keyHash(name: name, publicKey: publicKey) }

    static func keyHash(name: String, publicKey: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(Array(name.utf8) + [0x0A, 0x01] + publicKey).prefix(4))
    }

    static func string(name: String, publicKey: [UInt8]) -> String {
        let hash = Hex.string(keyHash(name: name, publicKey: publicKey))
        return "\(name)+\(hash)+\(Data([0x01] + publicKey).base64EncodedString())"
    }

    init(_ text: String) throws {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "+", maxSplits: 2)
        guard parts.count == 3, let blob = Data(base64Encoded: String(parts[2])), blob.count == 33, blob.first == 0x01 else {
            throw EventLogError(.invalidArgument, "the verifier key is not NAME+KEYHASH+BASE64 of an Ed25519 key")
        }
        name = String(parts[0])
        publicKey = Array(blob.dropFirst())
        let expected = Hex.string(Self.keyHash(name: name, publicKey: publicKey))
        guard parts[1] == expected else { throw EventLogError(.invalidArgument, "the verifier key's hash does not match its name and key") }
    }

    func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        Sodium.initialise()
        return crypto_sign_ed25519_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }
}

/// The store's checkpoint signing key: Ed25519 from the seed sub-key 3 (FORMAT.md §3).
struct CheckpointSigner {
    let name: String
    let publicKey: [UInt8]
    private let secretKey: SecureBytes

    init(seed: SecureBytes, name: String) {
        Sodium.initialise()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_ed25519_PUBLICKEYBYTES))
        secretKey = SecureBytes(count: Int(crypto_sign_ed25519_SECRETKEYBYTES)) { secret in
            precondition(crypto_sign_ed25519_seed_keypair(&publicKey, secret.bytes, seed.baseAddress) == 0)
        }
        self.publicKey = publicKey
        self.name = name
    }

    var verifierKey: String { CheckpointVerifierKey.string(name: name, publicKey: publicKey) }

    func sign(size: UInt64, rootHash: [UInt8]) -> Checkpoint {
        let body = Checkpoint.body(origin: name, size: size, rootHash: rootHash)
        let message = Array(body.utf8)
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_ed25519_BYTES))
        precondition(crypto_sign_ed25519_detached(&signature, nil, message, UInt64(message.count), secretKey.baseAddress) == 0)
        let blob = CheckpointVerifierKey.keyHash(name: name, publicKey: publicKey) + signature
        let text = body + "\n— \(name) \(Data(blob).base64EncodedString())\n"
        return Checkpoint(origin: name, size: size, rootHash: rootHash, text: text)
    }
}
