import Foundation

/// The signing keys an identity provider publishes (a JWKS document, RFC 7517 §5), and the check of a
/// compact JWS against them (RFC 7515 §5.2).
///
/// Keys that are not for signatures (`use` other than `sig`) and symmetric keys are left out; a signing
/// key that cannot be used (malformed, an algorithm not verified here, RSA under 2048 bits) is left out
/// and said why in ``skipped``; a document that leaves no key is refused.
///
/// ```swift
/// let keys = try JSONWebKeySet(json: Data(contentsOf: jwksFile))
/// let claims = try keys.verify(token, as: MyClaims.self)
/// ```
package struct JSONWebKeySet: Sendable {
    let keys: [VerificationKey]
    /// Why each signing key of the document that is not used was left out, one sentence each.
    package let skipped: [String]

    /// The usable keys of `json`; throws when it is not a JWKS document or when no usable key is left.
    package init(json: Data) throws {
        struct Document: Decodable { var keys: [JSONWebKey] }
        let document: Document
        do { document = try JSONDecoder().decode(Document.self, from: json) } catch {
            throw WebTokenError("the JWKS document is not a JSON object with a \"keys\" array of keys with a \"kty\"")
        }
        let signing = document.keys.filter { ($0.use ?? "sig") == "sig" && ["RSA", "EC", "OKP"].contains($0.kty) }
        var keys: [VerificationKey] = [], skipped: [String] = []
        for jwk in signing {
            do { keys.append(try VerificationKey(jwk: jwk)) } catch { skipped.append("\(error)") }
        }
        (self.keys, self.skipped) = (keys, skipped)
        guard !keys.isEmpty else {
            throw WebTokenError("the JWKS document holds no public signing key (RSA, EC or OKP with use \"sig\" or none)")
        }
    }

    /// The claims of `token` once its signature is one of these keys' and its times hold at `now`
    /// (`exp` required and after now, `nbf` when present not after now); throws otherwise.
    package func verify<Claims: Decodable>(_ token: String, as: Claims.Type, now: Date = Date()) throws -> Claims {
        let payload = try verifiedPayload(token, now: now)
        do { return try JSONDecoder().decode(Claims.self, from: payload) } catch {
            throw WebTokenError("the token's claims do not have the members and types expected: \(error)")
        }
    }

    /// The payload of `token` once its signature and times are checked.
    private func verifiedPayload(_ token: String, now: Date) throws -> Data {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else {
            throw WebTokenError("the token is not three base64url parts joined by dots")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw WebTokenError("the token's header is not a JSON object with an \"alg\"")
        }
        guard let algorithm = SignatureAlgorithm(rawValue: header.alg) else {
            throw WebTokenError("the token is signed with \(header.alg), which is not verified here")
        }
        guard header.crit == nil else {
            throw WebTokenError("the token's header has critical extensions, none of which is understood here")
        }
        let candidates = keys.filter { header.kid == nil || $0.keyID == header.kid }
        let message = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        guard candidates.contains(where: { $0.verifies(signature, of: message, with: algorithm) }) else {
            throw WebTokenError("the token's signature is not one of the provider's keys'")
        }
        guard let times = try? JSONDecoder().decode(Times.self, from: Data(payload)) else {
            throw WebTokenError("the token's claims are not a JSON object with a numeric \"exp\"")
        }
        let seconds = now.timeIntervalSince1970
        guard seconds < times.exp else { throw WebTokenError("the token expired") }
        if let nbf = times.nbf, seconds < nbf { throw WebTokenError("the token is not valid yet") }
        return Data(payload)
    }
}

/// The JOSE header members read here (RFC 7515 §4.1).
private struct Header: Decodable {
    var alg: String
    var kid: String?
    var crit: [String]?
}

/// The registered time claims (RFC 7519 §4.1.4-5), in seconds since 1970.
private struct Times: Decodable {
    var exp: Double
    var nbf: Double?
}
