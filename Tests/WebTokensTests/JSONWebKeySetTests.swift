import Foundation
import Testing
import WebTokens

/// Tokens and keys made by PyPI's PyJWT and cryptography (tools/jwt/make-fixtures.py), checked at a time
/// when the valid ones are valid.
@Suite struct JSONWebKeySetTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/jwt")
    static let now = Date(timeIntervalSince1970: 1_795_737_600)  // 2026-11-27, as the fixtures were made for

    struct Fixture: Decodable, CustomTestStringConvertible, Sendable {
        var name: String
        var token: String
        var valid: Bool
        var testDescription: String { name }
    }

    struct Claims: Decodable {
        var sub: String
        var scope: String
    }

    static let tokens: [Fixture] = {
        let data = try! Data(contentsOf: fixtures.appendingPathComponent("tokens.json"))
        return try! JSONDecoder().decode([Fixture].self, from: data)
    }()

    static func keySet() throws -> JSONWebKeySet {
        try JSONWebKeySet(json: Data(contentsOf: fixtures.appendingPathComponent("jwks.json")))
    }

    @Test(arguments: tokens)
    func aTokenIsAcceptedExactlyWhenPyJWTSignedItValidly(_ fixture: Fixture) throws {
        let keys = try Self.keySet()
        if fixture.valid {
            let claims = try keys.verify(fixture.token, as: Claims.self, now: Self.now)
            #expect(claims.sub == "auditor-7")
            #expect(claims.scope == "read")
        } else {
            #expect(throws: WebTokenError.self) { try keys.verify(fixture.token, as: Claims.self, now: Self.now) }
        }
    }

    @Test func everyAlgorithmOfTheFixturesIsTriedBothWays() {
        #expect(Self.tokens.filter(\.valid).count >= 6)
        #expect(Self.tokens.filter { !$0.valid }.count >= 15)
    }

    @Test func unusableKeysAreLeftOutAndSaidWhy() throws {
        let keys = try Self.keySet()
        #expect(keys.skipped.count == 1)
        #expect(keys.skipped.first?.contains("rsa-1024") == true)
        #expect(keys.skipped.first?.contains("2048") == true)
    }

    @Test func aValidTokenIsRefusedOnceItHasExpired() throws {
        let keys = try Self.keySet()
        let token = try #require(Self.tokens.first { $0.name == "ES256" }).token
        let afterExpiry = Date(timeIntervalSince1970: 4_102_444_800)
        let error = #expect(throws: WebTokenError.self) { try keys.verify(token, as: Claims.self, now: afterExpiry) }
        #expect(error?.message == "the token expired")
    }

    @Test(arguments: [
        #"{"keys": []}"#,
        #"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#,
        #"{"keys": [{"kty": "RSA", "use": "enc", "n": "AQAB", "e": "AQAB"}]}"#,
        #"{"keys": [{"kty": "EC", "crv": "P-256", "x": "AAAA", "y": "AAAA"}]}"#,
        #"{"keys": [{"kty": "EC", "crv": "P-256", "alg": "RS256", "x": "AAAA", "y": "AAAA"}]}"#,
        #"{"no": "keys"}"#,
        "not json",
    ])
    func aKeySetWithoutAUsableSigningKeyIsRefused(_ document: String) {
        #expect(throws: WebTokenError.self) { try JSONWebKeySet(json: Data(document.utf8)) }
    }

    @Test func aPointOffTheCurveIsNoKey() throws {
        let jwks = try Data(contentsOf: Self.fixtures.appendingPathComponent("jwks.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: jwks) as? [String: [[String: Any]]])
        var ec = try #require(object["keys"]?.first { $0["kid"] as? String == "ec-1" })
        #expect(throws: Never.self) { try JSONWebKeySet(json: JSONSerialization.data(withJSONObject: ["keys": [ec]])) }
        let y = try #require(ec["y"] as? String)
        ec["y"] = (y.first == "A" ? "B" : "A") + y.dropFirst()
        let document = try JSONSerialization.data(withJSONObject: ["keys": [ec]])
        #expect(throws: WebTokenError.self) { try JSONWebKeySet(json: document) }
    }
}
