import Compliance
import EventLog
import Foundation
import JWTKit
import SessionModel

/// JWTs from an identity provider, verified with its published keys (a JWKS document: RS256, ES256,
/// EdDSA, … as jwt-kit verifies them). Claims (docs/SERVER.md, "Access"): `sub` (who, required), `exp`
/// (required), `nbf`, `iss` and `aud` (checked against the configuration when it names them), `scope`
/// (space-separated, OAuth style: `ingest`, `read`, `audit`, `admin`; others are ignored) and
/// `sessionstore_subjects` (raw user ids a read is limited to, hashed here as everywhere).
public struct IdentityTokens: Sendable {
    /// The provider's keys, as its `/.well-known/jwks.json` publishes them.
    public var jwks: String
    /// The `iss` a token must carry, when set.
    public var issuer: String?
    /// An `aud` a token must include, when set.
    public var audience: String?

    public init(jwks: String, issuer: String? = nil, audience: String? = nil) {
        self.jwks = jwks
        self.issuer = issuer
        self.audience = audience
    }

    /// The keys, checked once when the server starts: a document that holds no key is an error.
    func keys() async throws -> JWTKeyCollection {
        let document = try? JSONSerialization.jsonObject(with: Data(jwks.utf8)) as? [String: Any]
        guard let keys = document?["keys"] as? [Any], !keys.isEmpty else {
            throw ServerSetupError(message: "the JWKS document holds no key (a JSON object with a non-empty \"keys\" array)")
        }
        return try await JWTKeyCollection().add(jwksJSON: jwks)
    }

    /// The principal `token` stands for, or nil when it is not a valid JWT of this provider (bad
    /// signature, expired, not yet valid, another issuer or audience, no scope of ours, no subject).
    func principal(_ token: String, keys: JWTKeyCollection, log: EventLog) async -> Principal? {
        guard let claims = try? await keys.verify(token, as: IdentityClaims.self) else { return nil }
        if let issuer, claims.iss?.value != issuer { return nil }
        if let audience, (try? claims.aud?.verifyIntendedAudience(includes: audience)) == nil { return nil }
        let scopes = Set((claims.scope ?? "").split(separator: " ").compactMap { TokenScope(rawValue: String($0)) })
        guard !scopes.isEmpty, !claims.sub.value.isEmpty else { return nil }
        let subjects = (claims.subjects ?? []).map { SubjectHash(bytes: log.identifierHash($0))! }
        guard subjects.isEmpty || scopes == [.read] else { return nil }  // as with store tokens: only a read is limited to people
        return Principal(actor: "jwt \(claims.iss?.value ?? "-") \(claims.sub.value)", scopes: scopes, subjects: subjects)
    }
}

/// The claims this server reads.
struct IdentityClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var nbf: NotBeforeClaim?
    var iss: IssuerClaim?
    var aud: AudienceClaim?
    var scope: String?
    var subjects: [String]?

    enum CodingKeys: String, CodingKey {
        case sub, exp, nbf, iss, aud, scope
        case subjects = "sessionstore_subjects"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        try nbf?.verifyNotBefore()
    }
}
