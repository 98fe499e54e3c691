/// One entry of a JWKS document's `keys` (RFC 7517 §4), the members a public signing key uses.
struct JSONWebKey: Decodable {
    var kty: String
    var kid: String?
    var alg: String?
    var use: String?
    var crv: String?
    var n: String?
    var e: String?
    var x: String?
    var y: String?

    /// How messages name the key: its `kid`, or its type.
    var name: String { kid.map { "\"\($0)\"" } ?? "of type \(kty)" }

    /// A base64url member of the key, decoded.
    func number(_ member: String) throws -> [UInt8] {
        let text: String?
        switch member {
        case "n": text = n
        case "e": text = e
        case "x": text = x
        default: text = y
        }
        guard let text, let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw WebTokenError("key \(name) has no base64url \"\(member)\"")
        }
        return bytes
    }
}
