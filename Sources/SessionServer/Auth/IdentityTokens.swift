import Compliance
import EventLog
import Foundation
import SessionLog
import SessionModel
import WebTokens

/// JWTs from an identity provider, verified with its published keys (a JWKS document: RS256-512,
/// PS256-512, ES256-512, EdDSA; see ``JSONWebKeySet``). Claims (docs/SERVER.md, "Access"): `sub` (who,
/// required), `exp` (required), `nbf`, `iss` and `aud` (checked against the configuration when it names
/// them), `scope` (space-separated, OAuth style: `ingest`, `read`, `audit`, `admin`; others are ignored)
/// and `sessionstore_subjects` (raw user ids a read is limited to, hashed here as everywhere).
package struct IdentityTokens: Sendable {
    /// The provider's keys, as its `/.well-known/jwks.json` publishes them.
    package var jwks: String
    /// The `iss` a token must carry, when set.
    package var issuer: String?
    /// An `aud` a token must include, when set.
    package var audience: String?

    package init(jwks: String, issuer: String? = nil, audience: String? = nil) {
        self.jwks = jwks
        self.issuer = issuer
        self.audience = audience
    }

    /// The keys, checked once when the server starts: a document that holds no usable key is an error.
    func keys() throws -> JSONWebKeySet {
        do { return try JSONWebKeySet(json: Data(jwks.utf8)) } catch {
            throw ServerSetupError(message: "the identity provider's key set cannot be used: \(error)")
        }
    }

    /// The principal `token` stands for, or nil when it is not a valid JWT of this provider (bad
    /// signature, expired, not yet valid, another issuer or audience, no scope of ours, no subject).
    func principal(_ token: String, keys: JSONWebKeySet, log: EventLog) -> Principal? {
        guard let claims = try? keys.verify(token, as: IdentityClaims.self) else { return nil }
        if let issuer, claims.iss != issuer { return nil }
        if let audience, !(claims.aud?.values.contains(audience) ?? false) { return nil }
        let scopes = Set((claims.scope ?? "").split(separator: " ").compactMap { TokenScope(rawValue: String($0)) })
        guard !scopes.isEmpty, !claims.sub.isEmpty else { return nil }
        let subjects = (claims.subjects ?? []).map { log.subject($0) }
        guard subjects.isEmpty || scopes == [.read] else { return nil }  // as with store tokens: only a read is limited to people
        return Principal(actor: "jwt \(claims.iss ?? "-") \(claims.sub)", scopes: scopes, subjects: subjects)
    }
}

/// The claims this server reads (`exp` and `nbf` are checked by ``JSONWebKeySet/verify(_:as:now:)``).
struct IdentityClaims: Decodable {
    var sub: String
    var iss: String?
    var aud: Audience?
    var scope: String?
    var subjects: [String]?

    enum CodingKeys: String, CodingKey {
        case sub, iss, aud, scope
        case subjects = "sessionstore_subjects"
    }

    /// `aud`: one string or an array of them (RFC 7519 §4.1.3).
    struct Audience: Decodable {
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) { values = [one] } else { values = try container.decode([String].self) }
        }
    }
}
