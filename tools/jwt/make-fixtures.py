#!/usr/bin/env python3
"""Writes Fixtures/jwt: a JWKS document and tokens signed with PyPI's PyJWT and cryptography (no
SessionStore code), for the WebTokens tests. Keys are random: rerunning makes new fixtures.

    tools/jwt/make-fixtures.py [DIR]   (default Fixtures/jwt)

tokens.json: [{"name", "token", "valid"}]; a valid token is valid at 2026-11-27T00:00:00Z (it expires in
2100). "valid" is about the signature and times only; issuer and audience are the caller's to check.
"""
import base64
import hashlib
import hmac
import json
import os
import sys

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

EXP, NOW = 4102444800, 1795737600  # 2100-01-01, 2026-11-27


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main(directory):
    os.makedirs(directory, exist_ok=True)
    p256, p384 = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP384R1())
    rsa_key, pss_key = (rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(2))
    small_rsa = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    ed = ed25519.Ed25519PrivateKey.generate()
    stranger = ec.generate_private_key(ec.SECP256R1())

    def jwk(text, **extra):
        return {**json.loads(text), **extra}

    keys = [
        jwk(ECAlgorithm.to_jwk(p256.public_key()), kid="ec-1", alg="ES256", use="sig"),
        jwk(ECAlgorithm.to_jwk(p384.public_key()), kid="ec-384", alg="ES384"),
        jwk(RSAAlgorithm.to_jwk(rsa_key.public_key()), kid="rsa-1", alg="RS256", use="sig"),
        jwk(RSAAlgorithm.to_jwk(pss_key.public_key()), kid="pss-1", alg="PS256"),
        jwk(OKPAlgorithm.to_jwk(ed.public_key()), kid="ed-1", alg="EdDSA"),
        jwk(RSAAlgorithm.to_jwk(small_rsa.public_key()), kid="rsa-1024", alg="RS256"),
        jwk(RSAAlgorithm.to_jwk(rsa_key.public_key()), kid="rsa-enc", use="enc"),
        {"kty": "oct", "kid": "secret", "k": b64(b"a shared secret is no public key")},
    ]
    with open(os.path.join(directory, "jwks.json"), "w") as file:
        json.dump({"keys": keys}, file, indent=1)

    claims = {"sub": "auditor-7", "iss": "https://idp.test", "aud": "sessionstore", "exp": EXP, "scope": "read"}

    def sign(key, alg, kid, payload=None, headers=None):
        return jwt.encode(payload if payload is not None else claims, key, algorithm=alg,
                          headers={"kid": kid, **(headers or {})} if kid else headers)

    good = sign(p256, "ES256", "ec-1")
    head, body, signature = good.split(".")
    rsa_pem = rsa_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    confused_head = b64(json.dumps({"alg": "HS256", "kid": "rsa-1", "typ": "JWT"}).encode())
    confused = confused_head + "." + body
    confused += "." + b64(hmac.new(rsa_pem, confused.encode(), hashlib.sha256).digest())
    der = p256.sign(f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))

    tokens = [
        ("ES256", good, True),
        ("ES256 without kid", sign(p256, "ES256", None), True),
        ("ES384", sign(p384, "ES384", "ec-384"), True),
        ("RS256", sign(rsa_key, "RS256", "rsa-1"), True),
        ("PS256", sign(pss_key, "PS256", "pss-1"), True),
        ("EdDSA", sign(ed, "EdDSA", "ed-1"), True),
        ("audience as a list", sign(p256, "ES256", "ec-1", {**claims, "aud": ["x", "sessionstore"]}), True),
        ("not valid before a past time", sign(p256, "ES256", "ec-1", {**claims, "nbf": NOW - 60}), True),
        ("expired", sign(p256, "ES256", "ec-1", {**claims, "exp": NOW - 60}), False),
        ("not valid yet", sign(p256, "ES256", "ec-1", {**claims, "nbf": NOW + 600}), False),
        ("without exp", sign(p256, "ES256", "ec-1", {k: v for k, v in claims.items() if k != "exp"}), False),
        ("a tampered payload", head + "." + b64(json.dumps({**claims, "scope": "admin"}).encode()) + "." + signature, False),
        ("a tampered signature", head + "." + body + "." + b64(bytes([base64.urlsafe_b64decode(signature + "==")[0] ^ 1]) +
                                                          base64.urlsafe_b64decode(signature + "==")[1:]), False),
        ("the none algorithm", jwt.encode(claims, None, algorithm="none"), False),
        ("HS256 keyed with the RSA public key", confused, False),
        ("a key the provider does not publish", sign(stranger, "ES256", "ec-1"), False),
        ("an unknown kid", sign(p256, "ES256", "ec-9"), False),
        ("RS256 claimed for an EC key", sign(rsa_key, "RS256", "ec-1"), False),
        ("PS256 claimed for an RS256 key", sign(rsa_key, "PS256", "rsa-1"), False),
        ("an RSA key of 1024 bits", sign(small_rsa, "RS256", "rsa-1024"), False),
        ("a key meant for encryption", sign(rsa_key, "RS256", "rsa-enc"), False),
        ("an ECDSA signature in DER", head + "." + body + "." + b64(der), False),
        ("two parts", head + "." + body, False),
        ("a payload that is not JSON", head + "." + b64(b"not json") + "." + signature, False),
        ("padding in base64url", good + "=", False),
    ]
    with open(os.path.join(directory, "tokens.json"), "w") as file:
        json.dump([{"name": name, "token": token, "valid": valid} for name, token, valid in tokens], file, indent=1)


main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../Fixtures/jwt"))
