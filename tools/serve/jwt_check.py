#!/usr/bin/env python3
"""JWTs of an identity provider against `sessionstore serve --jwks`, made with PyPI's PyJWT and
cryptography (no SessionStore code):

    jwt_check.py keys DIR            writes DIR/jwks.json (an ES256 key and an RS256 key) and their private keys
    jwt_check.py check BASE_URL DIR  signs tokens with them and checks what the server accepts

The server runs with --jwks DIR/jwks.json --jwt-issuer https://idp.test --jwt-audience sessionstore.
Prints one line per check; exits 1 at the first that fails.
"""
import json
import os
import sys
import time
import uuid

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from checking import check

ISSUER, AUDIENCE = "https://idp.test", "sessionstore"


def private_pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def keys(directory):
    os.makedirs(directory, exist_ok=True)
    ec_key, rsa_key = ec.generate_private_key(ec.SECP256R1()), rsa.generate_private_key(public_exponent=65537, key_size=2048)
    stranger = ec.generate_private_key(ec.SECP256R1())
    jwks = {"keys": [
        {**json.loads(ECAlgorithm.to_jwk(ec_key.public_key())), "kid": "ec-1", "alg": "ES256", "use": "sig"},
        {**json.loads(RSAAlgorithm.to_jwk(rsa_key.public_key())), "kid": "rsa-1", "alg": "RS256", "use": "sig"},
    ]}
    with open(os.path.join(directory, "jwks.json"), "w") as file:
        json.dump(jwks, file)
    for name, key in [("ec.pem", ec_key), ("rsa.pem", rsa_key), ("stranger.pem", stranger)]:
        with open(os.path.join(directory, name), "wb") as file:
            file.write(private_pem(key))


def check_server(base, directory):
    def key(name):
        with open(os.path.join(directory, name), "rb") as file:
            return serialization.load_pem_private_key(file.read(), password=None)

    def token(scope="read", key_name="ec.pem", kid="ec-1", alg="ES256", **overrides):
        claims = {"sub": "auditor-7", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 300, "scope": scope, **overrides}
        claims = {name: value for name, value in claims.items() if value is not None}
        return jwt.encode(claims, key(key_name), algorithm=alg, headers={"kid": kid})

    def get(path, bearer):
        return requests.get(f"{base}{path}", headers={"Authorization": f"Bearer {bearer}"}, timeout=10)

    check(get("/v1/sessions", token()).status_code == 200, "an ES256 token with scope read lists sessions")
    check(get("/v1/sessions", token(key_name="rsa.pem", kid="rsa-1", alg="RS256")).status_code == 200, "an RS256 token is accepted too")
    check(get("/v1/sessions", token(scope="openid profile audit")).status_code == 200, "a scope list with ours among others is accepted")
    refused = {
        "an expired token": token(exp=int(time.time()) - 60),
        "a token not valid yet": token(nbf=int(time.time()) + 600),
        "another issuer": token(iss="https://evil.test"),
        "another audience": token(aud="someone-else"),
        "a key the provider does not publish": token(key_name="stranger.pem"),
        "no scope of ours": token(scope="openid profile"),
        "no subject": token(sub=None),
        "a tampered payload": (lambda parts: parts[0] + "." + jwt.utils.base64url_encode(
            json.dumps({"sub": "x", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 300, "scope": "admin"}).encode()).decode()
            + "." + parts[2])(token().split(".")),
        "the none algorithm": jwt.encode({"sub": "x", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 300, "scope": "admin"},
                                         None, algorithm="none"),
    }
    for what, bearer in refused.items():
        answer = get("/v1/sessions", bearer)
        check(answer.status_code == 401 and answer.headers.get("WWW-Authenticate") == "Bearer", f"{what} is refused", answer.status_code)
    check(get("/v1/sessions", token(scope="ingest")).status_code == 403, "an ingest token cannot read")
    session = str(uuid.uuid4())
    line = json.dumps({"type": "session.started", "session": session, "at": "2026-11-26T10:00:00.000Z", "subject": "zoe", "locale": "en"})
    posted = requests.post(f"{base}/v1/events", data=line + "\n", timeout=10,
                           headers={"Authorization": f"Bearer {token(scope='ingest')}", "Content-Type": "application/x-ndjson"})
    check(posted.status_code == 200, "an ingest token appends", posted.text)
    limited = token(sessionstore_subjects=["somebody-else"])
    check(get(f"/v1/sessions/{session}", limited).status_code == 404, "a token limited to other people does not see the session")
    check(get(f"/v1/sessions/{session}", token(sessionstore_subjects=["zoe"])).status_code == 200, "a token limited to its person sees it")
    print("all checks passed")


if sys.argv[1] == "keys":
    keys(sys.argv[2])
else:
    check_server(sys.argv[2], sys.argv[3])
