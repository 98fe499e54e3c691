internal import CCrypto

/// One public key of a JWKS document in OpenSSL's form, and the signature check with it.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is built once in `init` and never changed after; OpenSSL 3
/// allows a key that is not modified to be used by many threads at once, and every verification makes
/// its own `EVP_MD_CTX`.
final class VerificationKey: @unchecked Sendable {
    let keyID: String?
    /// The one algorithm the key may be used with: its `alg`, or every algorithm of its type when absent.
    let algorithms: Set<SignatureAlgorithm>
    private let key: OpaquePointer

    /// The smallest RSA modulus accepted (NIST SP 800-131A).
    static let minimumRSABits: Int32 = 2048

    init(jwk: JSONWebKey) throws {
        keyID = jwk.kid
        let fitting = SignatureAlgorithm.allCases.filter { $0.keyType.kty == jwk.kty && $0.keyType.crv == jwk.crv }
        if let alg = jwk.alg {
            guard let named = SignatureAlgorithm(rawValue: alg), fitting.contains(named) else {
                throw WebTokenError("key \(jwk.name) names the algorithm \(alg), which is not one for a \(jwk.kty) key verified here")
            }
            algorithms = [named]
        } else {
            algorithms = Set(fitting)
        }
        guard !algorithms.isEmpty else { throw WebTokenError("key \(jwk.name) is of a type that signs nothing verified here (\(jwk.kty))") }
        switch jwk.kty {
        case "RSA": key = try Self.rsaKey(jwk)
        case "EC": key = try Self.ecKey(jwk)
        default: key = try Self.edwardsKey(jwk)
        }
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Whether `signature` is this key's signature of `message` under `algorithm`.
    func verifies(_ signature: [UInt8], of message: [UInt8], with algorithm: SignatureAlgorithm) -> Bool {
        guard algorithms.contains(algorithm) else { return false }
        var signature = signature
        if let coordinate = algorithm.ecdsaCoordinateBytes {
            guard signature.count == 2 * coordinate, let der = Self.derECDSASignature(raw: signature) else { return false }
            signature = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &keyContext, algorithm.digest, nil, key) == 1 else { return false }
        if algorithm.usesPSSPadding {
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, ccrypto_rsa_pss_saltlen_digest()) == 1 else { return false }
        }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    private static func rsaKey(_ jwk: JSONWebKey) throws -> OpaquePointer {
        let modulus = try jwk.number("n"), exponent = try jwk.number("e")
        guard let key = ccrypto_rsa_public_key(modulus, modulus.count, exponent, exponent.count) else {
            throw WebTokenError("key \(jwk.name) is not a valid RSA public key")
        }
        guard EVP_PKEY_get_bits(key) >= minimumRSABits else {
            EVP_PKEY_free(key)
            throw WebTokenError("key \(jwk.name) is an RSA key of fewer than \(minimumRSABits) bits")
        }
        return key
    }

    private static func ecKey(_ jwk: JSONWebKey) throws -> OpaquePointer {
        let x = try jwk.number("x"), y = try jwk.number("y")
        let group: String, coordinate: Int
        switch jwk.crv {
        case "P-256": (group, coordinate) = ("prime256v1", 32)
        case "P-384": (group, coordinate) = ("secp384r1", 48)
        default: (group, coordinate) = ("secp521r1", 66)
        }
        guard x.count == coordinate, y.count == coordinate else {
            throw WebTokenError("key \(jwk.name): x and y of a \(jwk.crv ?? "") key are \(coordinate) bytes each")
        }
        let point = [0x04] + x + y  // SEC 1 uncompressed point; OpenSSL checks that it lies on the curve
        guard let key = ccrypto_ec_public_key(group, point, point.count) else {
            throw WebTokenError("key \(jwk.name) is not a point on \(jwk.crv ?? "its curve")")
        }
        return key
    }

    private static func edwardsKey(_ jwk: JSONWebKey) throws -> OpaquePointer {
        let x = try jwk.number("x")
        guard x.count == 32, let key = EVP_PKEY_new_raw_public_key(ccrypto_evp_pkey_ed25519(), nil, x, x.count) else {
            throw WebTokenError("key \(jwk.name) is not an Ed25519 public key of 32 bytes")
        }
        return key
    }

    /// JWS writes an ECDSA signature as r ‖ s, each of fixed length; OpenSSL reads DER.
    private static func derECDSASignature(raw: [UInt8]) -> [UInt8]? {
        let half = raw.count / 2
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, Int32(half), nil)
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
