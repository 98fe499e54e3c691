internal import CSodium
import Foundation
import HexCoding

/// A witness's Ed25519 key as C2SP tlog-cosignature/v1 uses it: it cosigns a checkpoint with a
/// signed-note line `— NAME BASE64(key ID (4) ‖ timestamp u64 (8) ‖ Ed25519 signature (64))` over
///
/// ```text
/// cosignature/v1
/// time TIMESTAMP
/// <the checkpoint's note body>
/// ```
///
/// The key ID is `SHA-256(NAME ‖ "\n" ‖ 0x04 ‖ public key)[:4]`; the verifier key (vkey) is
/// `NAME+KEYID+BASE64(0x04 ‖ public key)`.
public struct Cosigner: Sendable {
    /// The witness's name, a schema-less URL such as `witness.example/w1`.
    public let name: String
    /// The Ed25519 public key.
    public let publicKey: [UInt8]
    private let secretKey: SecureBytes

    /// The cosigner with `name` and the Ed25519 key pair made from a 32-byte `seed`.
    public init(name: String, seed: [UInt8]) throws {
        guard seed.count == 32 else { throw EventLogError(.invalidArgument, "a witness key's seed is 32 bytes, not \(seed.count)") }
        guard CosignatureVerifier.isValidName(name) else {
            throw EventLogError(.invalidArgument, "a witness name is one word of printable characters without + (such as witness.example/w1)")
        }
        Sodium.initialise()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_ed25519_PUBLICKEYBYTES))
        secretKey = SecureBytes(count: Int(crypto_sign_ed25519_SECRETKEYBYTES)) { secret in
            precondition(crypto_sign_ed25519_seed_keypair(&publicKey, secret.bytes, seed) == 0)
        }
        self.publicKey = publicKey
        self.name = name
    }

    /// 32 random bytes for ``init(name:seed:)``.
    public static func randomSeed() -> [UInt8] {
        Sodium.initialise()
        var seed = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&seed, 32)
        return seed
    }

    /// The verifier key that checks this cosigner's cosignatures.
    public var verifierKey: String {
        "\(name)+\(Hex.string(CosignatureVerifier.keyID(name: name, publicKey: publicKey)))+"
            + Data([0x04] + publicKey).base64EncodedString()
    }

    /// The cosignature line (ending in a newline) of the checkpoint whose note body is `body`, at
    /// `timestamp` (seconds since 1970).
    public func cosign(body: String, at timestamp: UInt64) -> String {
        let message = Array(CosignatureVerifier.message(body: body, timestamp: timestamp).utf8)
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_ed25519_BYTES))
        precondition(crypto_sign_ed25519_detached(&signature, nil, message, UInt64(message.count), secretKey.baseAddress) == 0)
        let blob = CosignatureVerifier.keyID(name: name, publicKey: publicKey) + [UInt8](bigEndian: timestamp) + signature
        return "— \(name) \(Data(blob).base64EncodedString())\n"
    }
}

/// Checks cosignatures of one witness (its vkey: `NAME+KEYID+BASE64(0x04 ‖ public key)`).
public struct CosignatureVerifier: Hashable, Sendable {
    public let name: String
    public let publicKey: [UInt8]

    /// Reads a witness's verifier key.
    /// - Throws: ``EventLogError/Code/invalidArgument`` for anything else.
    public init(_ vkey: String) throws {
        let parts = vkey.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "+", maxSplits: 2)
        guard parts.count == 3, Self.isValidName(String(parts[0])), let blob = Data(base64Encoded: String(parts[2])), blob.count == 33,
              blob.first == 0x04 else {
            throw EventLogError(.invalidArgument, "\(vkey) is not a witness key: NAME+KEYID+BASE64(0x04 ‖ Ed25519 public key)")
        }
        name = String(parts[0])
        publicKey = Array(blob.dropFirst())
        guard parts[1] == Hex.string(Self.keyID(name: name, publicKey: publicKey)) else {
            throw EventLogError(.invalidArgument, "the witness key \(vkey) has a key ID that does not match its name and key")
        }
    }

    /// The timestamp of the first line of `lines` that is a valid cosignature by this witness of the
    /// checkpoint whose note body is `body`; nil when none is.
    public func timestamp(ofCosignatureIn lines: some Sequence<Substring>, body: String) -> UInt64? {
        let keyID = Self.keyID(name: name, publicKey: publicKey)
        for line in lines {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "—", parts[1] == name, let blob = Data(base64Encoded: String(parts[2])),
                  blob.count == 4 + 8 + 64, Array(blob.prefix(4)) == keyID else { continue }
            let timestamp = blob.dropFirst(4).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard timestamp <= UInt64(Int64.max) else { continue }
            let message = Array(Self.message(body: body, timestamp: timestamp).utf8)
            Sodium.initialise()
            if crypto_sign_ed25519_verify_detached(Array(blob.suffix(64)), message, UInt64(message.count), publicKey) == 0 {
                return timestamp
            }
        }
        return nil
    }

    static func message(body: String, timestamp: UInt64) -> String {
        "cosignature/v1\ntime \(timestamp)\n" + body
    }

    static func keyID(name: String, publicKey: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(Array(name.utf8) + [0x0A, 0x04] + publicKey).prefix(4))
    }

    /// A signed-note key name: non-empty, no spaces, no `+`, printable.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "+" }
    }
}

extension Checkpoint {
    /// The note body the log's signature and the witnesses' cosignatures cover: the text before the blank line, with its newline.
    public var body: String {
        text.range(of: "\n\n").map { String(text[..<$0.lowerBound]) + "\n" } ?? Checkpoint.body(origin: origin, size: size, rootHash: rootHash)
    }

    /// The checkpoint with `lines` (cosignature lines, each ending in a newline) added after its signatures.
    public func adding(signatureLines lines: [String]) -> Checkpoint {
        var copy = self
        copy.text = text + lines.joined()
        return copy
    }

    /// The signature lines of the note.
    public var signatureLines: [Substring] {
        guard let split = text.range(of: "\n\n") else { return [] }
        return text[split.upperBound...].split(separator: "\n")
    }
}
