#!/usr/bin/env python3
"""An independent reader of a SessionStore store, written from docs/FORMAT.md alone.

It shares no code with the Swift implementation: py-lmdb for LMDB, PyNaCl (libsodium) for
XChaCha20-Poly1305, hashlib for BLAKE2b and SHA-256, zstandard for zstd. It prints every event as
one JSON line (`position`, `stream`, `number`, `event_id`, `recorded_at_ms`, `type`, `data_hex`), or
`"erased": true` when the record's key was destroyed; then one line per stream from the stream index
and the unindexed tail (`stream`, `version`, `key_id`, `created_at_ms`, `first_position`,
`last_position`). It exits 2 on the first record that fails a check.

    pip install lmdb pynacl zstandard
    python3 read_store.py STORE KEY_FILE
"""
import hashlib
import json
import struct
import sys
import uuid

import lmdb
import nacl.bindings as sodium
import zstandard


def subkey(master: bytes, key_id: int) -> bytes:
    # crypto_kdf_derive_from_key: BLAKE2b-256 keyed with the master key, salt = id LE ‖ 0*8, person = ctx ‖ 0*8.
    return hashlib.blake2b(b"", digest_size=32, key=master,
                           salt=struct.pack("<Q", key_id) + bytes(8),
                           person=b"SSTORE01" + bytes(8)).digest()


def open_box(box: bytes, ad: bytes, key: bytes) -> bytes:
    return sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(box[24:], ad, box[:24], key)


class Damaged(Exception):
    pass


def main(store: str, key_file: str) -> int:
    master = open(key_file, "rb").read()
    assert len(master) == 32, "a key file holds 32 bytes"
    env = lmdb.open(store, readonly=True, lock=False, max_dbs=8, subdir=True)
    dbs = {name: env.open_db(name.encode(), create=False)
           for name in ["meta", "events", "streams", "stream-runs", "keys", "dictionaries", "nonce-bases"]}
    with env.begin() as txn:
        meta = dict(txn.cursor(db=dbs["meta"]))
        assert struct.unpack(">I", meta[b"format"])[0] in (1, 2), "formats 1 and 2 only (their records are the same)"
        assert b"kdf" not in meta, "this reader takes key-file stores only"
        store_id = meta[b"store-id"]
        open_box(meta[b"key-check"], b"key-check" + store_id, subkey(master, 4))  # raises on a wrong key
        wrapping, metadata_key = subkey(master, 1), subkey(master, 5)
        dictionaries = {
            struct.unpack(">H", k)[0]: zstandard.ZstdCompressionDict(
                open_box(v, b"dictionary" + store_id + k, metadata_key))
            for k, v in txn.cursor(db=dbs["dictionaries"])
        }
        expected_position = 0
        for key, record in txn.cursor(db=dbs["events"]):
            position = struct.unpack(">Q", key)[0]
            if position != expected_position:
                raise Damaged(f"positions jump from {expected_position} to {position}")
            expected_position += 1
            header = record[:60]
            fmt, codec, dict_id, key_id = struct.unpack(">BBHI", header[:8])
            stream = uuid.UUID(bytes=header[8:24])
            number, recorded_at = struct.unpack(">Qq", header[24:40])
            event_id = uuid.UUID(bytes=header[40:56])
            body_length = struct.unpack(">I", header[56:60])[0]
            if fmt != 1 or codec > 2 or (codec == 2) != (dict_id != 0):
                raise Damaged(f"position {position}: bad header")
            base = nonce_base(txn, dbs, position)
            nonce = base[:16] + struct.pack(">Q", struct.unpack(">Q", base[16:])[0] ^ position)
            digest = hashlib.sha256(nonce + record[92:]).digest()
            leaf = hashlib.sha256(b"\x00" + key + header + digest).digest()
            if leaf != record[60:92]:
                raise Damaged(f"position {position}: leaf hash mismatch")
            wrapped = txn.get(struct.pack(">I", key_id), db=dbs["keys"])
            line = {"position": position, "stream": str(stream), "number": number,
                    "event_id": str(event_id), "recorded_at_ms": recorded_at}
            if wrapped is None:
                print(json.dumps({**line, "erased": True}))
                continue
            data_key = open_box(wrapped, b"key" + store_id + struct.pack(">I", key_id), wrapping)
            ad = store_id + key + header
            compressed = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(record[92:], ad, nonce, data_key)
            if codec == 0:
                body = compressed
            else:
                # Magicless zstd frames: the 4-byte magic number is not stored.
                decompressor = zstandard.ZstdDecompressor(
                    dict_data=dictionaries[dict_id] if codec == 2 else None, format=zstandard.FORMAT_ZSTD1_MAGICLESS)
                body = decompressor.decompress(compressed, max_output_size=body_length)
            if len(body) != body_length:
                raise Damaged(f"position {position}: body length mismatch")
            type_length = body[0]
            event_type = body[1:1 + type_length].decode("utf-8")
            print(json.dumps({**line, "type": event_type, "data_hex": body[1 + type_length:].hex()}))
        for stream in streams(txn, dbs, meta):
            print(json.dumps(stream))
    return 0


def nonce_base(txn, dbs, position):
    """The 24-byte base stored under the greatest first position <= position."""
    cursor = txn.cursor(db=dbs["nonce-bases"])
    key = struct.pack(">Q", position)
    if not (cursor.set_range(key) and cursor.key() == key):
        if not (cursor.prev() if cursor.key() else cursor.last()):
            raise Damaged(f"position {position}: no nonce base")
    return cursor.value()


def streams(txn, dbs, meta):
    """Every stream from `streams` and `stream-runs` (indexed part) and the tail's clear headers."""
    indexed_through = struct.unpack(">Q", meta[b"indexed-through"])[0] if b"indexed-through" in meta else 0
    found = {}
    for key, row in txn.cursor(db=dbs["streams"]):
        created, key_id, first = struct.unpack(">qIQ", row)
        found[key] = {"stream": str(uuid.UUID(bytes=key)), "version": 0, "key_id": key_id,
                      "created_at_ms": created, "first_position": first, "last_position": first}
    for key, value in txn.cursor(db=dbs["stream-runs"]):
        first_number = struct.unpack(">Q", key[16:])[0]
        first_position, count = struct.unpack(">QI", value)
        stream = found[key[:16]]
        if first_number != stream["version"]:
            raise Damaged(f"stream {stream['stream']}: runs do not cover its numbers in order")
        stream["version"] = first_number + count
        stream["last_position"] = first_position + count - 1
    cursor = txn.cursor(db=dbs["events"])
    if cursor.set_range(struct.pack(">Q", indexed_through)):
        for key, record in cursor:
            position = struct.unpack(">Q", key)[0]
            stream_key, number = record[8:24], struct.unpack(">Q", record[24:32])[0]
            if stream_key not in found:
                found[stream_key] = {"stream": str(uuid.UUID(bytes=stream_key)), "version": 0,
                                     "key_id": struct.unpack(">I", record[4:8])[0],
                                     "created_at_ms": struct.unpack(">q", record[32:40])[0],
                                     "first_position": position, "last_position": position}
            stream = found[stream_key]
            if number != stream["version"]:
                raise Damaged(f"position {position}: tail record out of sequence in its stream")
            stream["version"] = number + 1
            stream["last_position"] = position
    return found.values()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1], sys.argv[2]))
    except Damaged as damage:
        print(f"read_store: damaged: {damage}", file=sys.stderr)
        sys.exit(2)
