internal import CCrypto

/// The JWS algorithms verified here (RFC 7518 §3, RFC 8037): asymmetric only, since a published key
/// set holds no secrets; `none` and the HMAC algorithms are refused by name.
enum SignatureAlgorithm: String, CaseIterable, Sendable {
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512"
    case edDSA = "EdDSA"

    /// The key type (`kty`) and, for EC and OKP keys, the curve (`crv`) the algorithm needs.
    var keyType: (kty: String, crv: String?) {
        switch self {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: ("RSA", nil)
        case .es256: ("EC", "P-256")
        case .es384: ("EC", "P-384")
        case .es512: ("EC", "P-521")
        case .edDSA: ("OKP", "Ed25519")
        }
    }

    var usesPSSPadding: Bool { [.ps256, .ps384, .ps512].contains(self) }

    /// The byte length of r and of s in an ECDSA signature (RFC 7518 §3.4); nil for other algorithms.
    var ecdsaCoordinateBytes: Int? {
        switch self {
        case .es256: 32
        case .es384: 48
        case .es512: 66
        default: nil
        }
    }

    /// The message digest; nil for EdDSA, which hashes inside the signature scheme.
    var digest: OpaquePointer? {
        switch self {
        case .rs256, .ps256, .es256: EVP_sha256()
        case .rs384, .ps384, .es384: EVP_sha384()
        case .rs512, .ps512, .es512: EVP_sha512()
        case .edDSA: nil
        }
    }
}
