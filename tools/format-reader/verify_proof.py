#!/usr/bin/env python3
"""Verifies SessionStore inclusion proofs against a signed checkpoint, and consistency proofs between two
checkpoints, written from docs/COMPLIANCE.md alone.

It shares no code with SessionStore: hashlib for SHA-256, PyNaCl for Ed25519. It needs nothing but
the checkpoint files, the verifier key (`sessionstore anchor --public-key`), and the proofs
(`sessionstore prove SESSION --anchor FILE --format json`, or `sessionstore prove --from OLD --anchor
NEW --format json`). It prints one line per proof and exits 0 when every proof holds, 1 when any does
not, 2 when a checkpoint's signature does not verify.

    pip install pynacl
    python3 verify_proof.py CHECKPOINT_FILE VERIFIER_KEY PROOFS.json
    python3 verify_proof.py --consistency OLD_CHECKPOINT NEW_CHECKPOINT VERIFIER_KEY PROOF.json
    python3 verify_proof.py --cosignature CHECKPOINT WITNESS_KEY

With --cosignature it checks a witness's C2SP tlog-cosignature/v1 (Ed25519) line on the checkpoint: the
witness key is NAME+KEYID+BASE64(0x04 || public key), KEYID the first 4 bytes of SHA-256(NAME || "\n" ||
0x04 || public key); the line is `— NAME BASE64(key ID || timestamp u64 || signature)`, the signature over
"cosignature/v1\ntime TIMESTAMP\n" and the checkpoint's body. Exits 0 when it verifies, 1 when not.
"""
import base64
import hashlib
import json
import struct
import sys

import nacl.exceptions
import nacl.signing


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def read_checkpoint(text: str, verifier_key: str):
    """The checkpoint's origin, size and root, once its signed-note signature verifies with the key."""
    name, key_hash_hex, key_b64 = verifier_key.strip().split("+", 2)
    key = base64.b64decode(key_b64)
    assert len(key) == 33 and key[0] == 0x01, "an Ed25519 verifier key is 0x01 and 32 bytes"
    key_hash = sha256(name.encode() + b"\n" + key)[:4]
    assert key_hash.hex() == key_hash_hex, "the verifier key's hash does not match"
    body, _, signatures = text.partition("\n\n")
    body += "\n"
    origin, size, root = body.split("\n")[:3]
    for line in signatures.splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != "\u2014" or parts[1] != name:
            continue
        blob = base64.b64decode(parts[2])
        if blob[:4] != key_hash:
            continue
        try:
            nacl.signing.VerifyKey(key[1:]).verify(body.encode(), blob[4:])
            return origin, int(size), base64.b64decode(root)
        except nacl.exceptions.BadSignatureError:
            pass
    return None


def root_from_inclusion(index: int, size: int, leaf: bytes, path):
    """RFC 9162 section 2.1.3.2."""
    if index >= size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = sha256(b"\x01" + p + r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = sha256(b"\x01" + r + p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def consistent(old_size: int, old_root: bytes, new_size: int, new_root: bytes, proof) -> bool:
    """RFC 9162 section 2.1.4.2: whether `proof` shows the tree (new_size, new_root) extends (old_size, old_root)."""
    if old_size > new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is the first node
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = sha256(b"\x01" + c + fr)
            sr = sha256(b"\x01" + c + sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = sha256(b"\x01" + sr + c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


def main_consistency(old_file: str, new_file: str, verifier_key: str, proof_file: str) -> int:
    old = read_checkpoint(open(old_file, encoding="utf-8").read(), verifier_key)
    new = read_checkpoint(open(new_file, encoding="utf-8").read(), verifier_key)
    if old is None or new is None:
        print("a checkpoint's signature does not verify")
        return 2
    proofs = json.load(open(proof_file, encoding="utf-8"))
    proof = proofs[0] if isinstance(proofs, list) else proofs
    path = [base64.b64decode(p) for p in proof["consistency_path"]]
    holds = (old[0] == new[0] and proof["old_size"] == old[1] and proof["new_size"] == new[1]
             and consistent(old[1], old[2], new[1], new[2], path))
    print(f"{new[0]} tree of {new[1]} extends tree of {old[1]}: {'consistent' if holds else 'NOT PROVEN'}")
    return 0 if holds else 1


def leaf_hash(position: int, record: bytes, nonce: bytes) -> bytes:
    """FORMAT.md section 5.4: SHA-256(0x00 || position u64 || header (60) || SHA-256(nonce || ciphertext and tag))."""
    return sha256(b"\x00" + struct.pack(">Q", position) + record[:60] + sha256(nonce + record[92:]))


def main(checkpoint_file: str, verifier_key: str, proofs_file: str) -> int:
    checkpoint = read_checkpoint(open(checkpoint_file, encoding="utf-8").read(), verifier_key)
    if checkpoint is None:
        print("the checkpoint's signature does not verify")
        return 2
    origin, size, root = checkpoint
    failed = 0
    for proof in json.load(open(proofs_file, encoding="utf-8")):
        record, nonce = base64.b64decode(proof["record"]), base64.b64decode(proof["nonce"])
        position = proof["leaf_index"]
        leaf = leaf_hash(position, record, nonce)
        path = [base64.b64decode(p) for p in proof["audit_path"]]
        holds = (leaf == record[60:92] and proof["tree_size"] == size
                 and root_from_inclusion(position, size, leaf, path) == root)
        failed += not holds
        print(f"{origin} record {position} of {size}: {'included' if holds else 'NOT PROVEN'}")
    return 1 if failed else 0


def main_cosignature(checkpoint_file: str, witness_key: str) -> int:
    name, key_id_hex, key_b64 = witness_key.strip().split("+", 2)
    key = base64.b64decode(key_b64)
    assert len(key) == 33 and key[0] == 0x04, "a cosignature key is 0x04 and 32 bytes"
    key_id = sha256(name.encode() + b"\n" + key)[:4]
    assert key_id.hex() == key_id_hex, "the witness key's ID does not match"
    body, _, signatures = open(checkpoint_file, encoding="utf-8").read().partition("\n\n")
    body += "\n"
    for line in signatures.splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != "\u2014" or parts[1] != name:
            continue
        blob = base64.b64decode(parts[2])
        if len(blob) != 76 or blob[:4] != key_id:
            continue
        timestamp = struct.unpack(">Q", blob[4:12])[0]
        message = f"cosignature/v1\ntime {timestamp}\n{body}".encode()
        try:
            nacl.signing.VerifyKey(key[1:]).verify(message, blob[12:])
            print(f"cosigned by {name} at {timestamp}")
            return 0
        except nacl.exceptions.BadSignatureError:
            pass
    print(f"no valid cosignature by {name}")
    return 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--cosignature"]:
        sys.exit(main_cosignature(*sys.argv[2:4]))
    if sys.argv[1:2] == ["--consistency"]:
        sys.exit(main_consistency(*sys.argv[2:6]))
    sys.exit(main(*sys.argv[1:4]))
