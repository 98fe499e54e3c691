#!/usr/bin/env python3
"""An independent reader of a SessionStore store, written from docs/FORMAT.md alone.

It shares no code with the Swift implementation: py-lmdb for LMDB, psycopg for a store in PostgreSQL
(the same values in a table per database, §11), PyNaCl (libsodium) for XChaCha20-Poly1305, hashlib for
BLAKE2b and SHA-256, zstandard for zstd. It prints every event as
one JSON line (`position`, `stream`, `number`, `event_id`, `recorded_at_ms`, `type`, `data_hex`), or
`"erased": true` when the record's key was destroyed; then one line per stream from the stream index
and the unindexed tail (`stream`, `version`, `key_id`, `created_at_ms`, `first_position`,
`last_position`). It exits 2 on the first record that fails a check. With --keys USER_ID it prints
instead the store's checkpoint verifier key and USER_ID's subject hash, as the store derives or (after a
key rotation) keeps them.

    pip install pynacl zstandard lmdb        # and "psycopg[binary]" for a store in PostgreSQL
    python3 read_store.py STORE_DIRECTORY_OR_POSTGRESQL_URL KEY_FILE
    python3 read_store.py --keys STORE_DIRECTORY_OR_POSTGRESQL_URL KEY_FILE USER_ID
"""
import base64
import hashlib
import json
import struct
import sys
import uuid

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


def stable_subkeys(master: bytes, meta: dict, store_id: bytes):
    """Sub-keys 2 (subject hashing) and 3 (checkpoint signing): from meta/stable-keys after a rotation
    (FORMAT.md section 2), else derived from the master key."""
    if b"stable-keys" in meta:
        keys = open_box(meta[b"stable-keys"], b"stable-keys" + store_id, subkey(master, 1))
        return keys[:32], keys[32:64]
    return subkey(master, 2), subkey(master, 3)


def keys(location: str, key_file: str, user_id: str) -> int:
    """Prints the store's checkpoint verifier key and the subject hash of `user_id` (FORMAT.md section 3)."""
    master = open(key_file, "rb").read()
    meta = dict(open_store(location).items("meta"))
    store_id = meta[b"store-id"]
    open_box(meta[b"key-check"], b"key-check" + store_id, subkey(master, 4))  # raises on a wrong key
    hashing, signing_seed = stable_subkeys(master, meta, store_id)
    public_key, _ = sodium.crypto_sign_seed_keypair(signing_seed)
    name = "sessionstore/" + str(uuid.UUID(bytes=store_id))
    key_hash = hashlib.sha256(name.encode() + b"\n\x01" + public_key).digest()[:4].hex()
    encoded_key = base64.b64encode(b"\x01" + public_key).decode()
    verifier_key = f"{name}+{key_hash}+{encoded_key}"
    subject_hash = hashlib.blake2b(user_id.encode(), digest_size=32, key=hashing).digest()  # crypto_generichash
    print(json.dumps({"verifier_key": verifier_key, "subject_hash": subject_hash.hex()}))
    return 0


DATABASES = ["meta", "events", "streams", "stream-runs", "keys", "dictionaries", "nonce-bases"]


class LMDBStore:
    """The store's databases in an LMDB environment (§2), read in one read transaction."""

    def __init__(self, path: str):
        import lmdb
        env = lmdb.open(path, readonly=True, lock=False, max_dbs=8, subdir=True)
        self.dbs = {name: env.open_db(name.encode(), create=False) for name in DATABASES}
        self.txn = env.begin()

    def items(self, name: str, start: bytes = b""):
        """(key, value) pairs of a database in key order, from the first key >= start."""
        cursor = self.txn.cursor(db=self.dbs[name])
        if cursor.set_range(start):
            yield from cursor

    def get(self, name: str, key: bytes):
        return self.txn.get(key, db=self.dbs[name])


class PostgresStore:
    """The same databases as tables of a PostgreSQL database (§11), read in one snapshot."""

    def __init__(self, url: str):
        import psycopg
        self.connection = psycopg.connect(url)
        self.connection.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        self.connection.read_only = True
        self.cursors = 0

    @staticmethod
    def table(name: str):
        """Table, key column and value column: events(position bigint, record bytea); the others
        (key bytea, value bytea) under the database's name with '-' as '_'."""
        return ("events", "position", "record") if name == "events" else (name.replace("-", "_"), "key", "value")

    @staticmethod
    def bound(name: str, key: bytes):
        """A key as its column holds it: a position (eight big-endian bytes) is a bigint."""
        return struct.unpack(">Q", key)[0] if name == "events" else key

    def items(self, name: str, start: bytes = b""):
        table, key, value = self.table(name)
        self.cursors += 1
        # A server-side cursor: rows arrive a few thousand at a time, never the whole table at once.
        with self.connection.cursor(name=f"read_{self.cursors}") as cursor:
            cursor.itersize = 2000
            where = f"WHERE {key} >= %s " if start else ""
            cursor.execute(f"SELECT {key}, {value} FROM {table} {where}ORDER BY {key}",
                           [self.bound(name, start)] if start else [])
            for found, stored in cursor:
                yield (struct.pack(">Q", found) if name == "events" else bytes(found)), bytes(stored)

    def get(self, name: str, key: bytes):
        table, column, value = self.table(name)
        row = self.connection.execute(f"SELECT {value} FROM {table} WHERE {column} = %s",
                                      [self.bound(name, key)]).fetchone()
        return None if row is None else bytes(row[0])


def open_store(location: str):
    if location.lower().startswith(("postgresql://", "postgres://")):
        return PostgresStore(location)
    return LMDBStore(location)


def main(location: str, key_file: str) -> int:
    master = open(key_file, "rb").read()
    assert len(master) == 32, "a key file holds 32 bytes"
    store = open_store(location)
    meta = dict(store.items("meta"))
    assert struct.unpack(">I", meta[b"format"])[0] in (1, 2, 3, 4), "formats 1 to 4 only (format 4 adds blocks of records)"
    assert b"kdf" not in meta, "this reader takes key-file stores only"
    store_id = meta[b"store-id"]
    open_box(meta[b"key-check"], b"key-check" + store_id, subkey(master, 4))  # raises on a wrong key
    wrapping, metadata_key = subkey(master, 1), subkey(master, 5)
    dictionaries = {
        struct.unpack(">H", k)[0]: zstandard.ZstdCompressionDict(open_box(v, b"dictionary" + store_id + k, metadata_key))
        for k, v in store.items("dictionaries")
    }
    nonce_bases = NonceBases(store.items("nonce-bases"))
    data_keys = {}  # key id -> unwrapped data key, or None when destroyed

    def data_key(key_id: int):
        if key_id not in data_keys:  # one lookup per key, not per record (a round trip on PostgreSQL)
            wrapped = store.get("keys", struct.pack(">I", key_id))
            data_keys[key_id] = wrapped and open_box(wrapped, b"key" + store_id + struct.pack(">I", key_id), wrapping)
        return data_keys[key_id]

    def parse(position: int, record: bytes) -> dict:
        header = record[:60]
        fmt, codec, dict_id, key_id = struct.unpack(">BBHI", header[:8])
        number, recorded_at = struct.unpack(">Qq", header[24:40])
        if fmt not in (1, 2, 3) or codec > 2 or (codec == 2) != (dict_id != 0):
            raise Damaged(f"position {position}: bad header")
        return {"position": position, "record": record, "header": header, "format": fmt, "codec": codec,
                "dict_id": dict_id, "key_id": key_id, "stream": header[8:24], "number": number,
                "recorded_at": recorded_at, "event_id": header[40:56], "body_length": struct.unpack(">I", header[56:60])[0]}

    def open_unit(unit: list):
        """One record sealed alone (format 1), or a block (§5.8): its first record (format 2) and the rest (format 3)."""
        first = unit[0]
        position = first["position"]
        base = nonce_bases.base(position)
        nonce = base[:16] + struct.pack(">Q", struct.unpack(">Q", base[16:])[0] ^ position)
        sealed = first["record"][92:] if first["format"] == 1 else first["record"][94:]
        digest = hashlib.sha256(nonce + sealed).digest()
        for index, r in enumerate(unit):
            if index > 0 and (r["format"] != 3 or len(r["record"]) != 94 or struct.unpack(">H", r["record"][92:94])[0] != index
                              or (r["stream"], r["key_id"], r["codec"], r["dict_id"]) != (first["stream"], first["key_id"], first["codec"], first["dict_id"])):
                raise Damaged(f"position {r['position']}: not record {index} of the block at {position}")
            leaf = hashlib.sha256(b"\x00" + struct.pack(">Q", r["position"]) + r["header"] + digest).digest()
            if leaf != r["record"][60:92]:
                raise Damaged(f"position {r['position']}: leaf hash mismatch")
        key = data_key(first["key_id"])
        lines = [{"position": r["position"], "stream": str(uuid.UUID(bytes=r["stream"])), "number": r["number"],
                  "event_id": str(uuid.UUID(bytes=r["event_id"])), "recorded_at_ms": r["recorded_at"]} for r in unit]
        if key is None:
            for line in lines:
                print(json.dumps({**line, "erased": True}))
            return
        ad = store_id + struct.pack(">Q", position) + b"".join(r["header"] for r in unit)
        compressed = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(sealed, ad, nonce, key)
        total = sum(r["body_length"] for r in unit)
        if first["codec"] == 0:
            plaintext = compressed
        else:
            # Magicless zstd frames: the 4-byte magic number is not stored.
            decompressor = zstandard.ZstdDecompressor(
                dict_data=dictionaries[first["dict_id"]] if first["codec"] == 2 else None, format=zstandard.FORMAT_ZSTD1_MAGICLESS)
            plaintext = decompressor.decompress(compressed, max_output_size=total)
        if len(plaintext) != total:
            raise Damaged(f"position {position}: body length mismatch")
        offset = 0
        for r, line in zip(unit, lines):
            body = plaintext[offset:offset + r["body_length"]]
            offset += r["body_length"]
            type_length = body[0]
            event_type = body[1:1 + type_length].decode("utf-8")
            print(json.dumps({**line, "type": event_type, "data_hex": body[1 + type_length:].hex()}))

    expected_position = 0
    unit, remaining = [], 0
    for key, record in store.items("events"):
        position = struct.unpack(">Q", key)[0]
        if position != expected_position:
            raise Damaged(f"positions jump from {expected_position} to {position}")
        expected_position += 1
        parsed = parse(position, record)
        if remaining == 0:
            if parsed["format"] == 3:
                raise Damaged(f"position {position}: a record of a block without its first record")
            unit, remaining = [], 1 if parsed["format"] == 1 else struct.unpack(">H", record[92:94])[0]
            if remaining < 1 or (parsed["format"] == 2 and remaining < 2):
                raise Damaged(f"position {position}: a block of {remaining} records")
        unit.append(parsed)
        remaining -= 1
        if remaining == 0:
            open_unit(unit)
    if remaining:
        raise Damaged(f"the log ends inside the block at position {unit[0]['position']}")
    for stream in streams(store, meta):
        print(json.dumps(stream))
    return 0


class NonceBases:
    """The nonce bases, walked in position order beside the records: a record's base is the one stored
    under the greatest first position <= its position."""

    def __init__(self, items):
        self.items = iter(items)
        self.current = None
        self.following = next(self.items, None)

    def base(self, position: int) -> bytes:
        key = struct.pack(">Q", position)
        while self.following is not None and self.following[0] <= key:
            self.current, self.following = self.following, next(self.items, None)
        if self.current is None:
            raise Damaged(f"position {position}: no nonce base")
        return self.current[1]


def streams(store, meta):
    """Every stream from `streams` and `stream-runs` (indexed part) and the tail's clear headers."""
    indexed_through = struct.unpack(">Q", meta[b"indexed-through"])[0] if b"indexed-through" in meta else 0
    found = {}
    for key, row in store.items("streams"):
        created, key_id, first = struct.unpack(">qIQ", row)
        found[key] = {"stream": str(uuid.UUID(bytes=key)), "version": 0, "key_id": key_id,
                      "created_at_ms": created, "first_position": first, "last_position": first}
    for key, value in store.items("stream-runs"):
        first_number = struct.unpack(">Q", key[16:])[0]
        first_position, count = struct.unpack(">QI", value)
        stream = found[key[:16]]
        if first_number != stream["version"]:
            raise Damaged(f"stream {stream['stream']}: runs do not cover its numbers in order")
        stream["version"] = first_number + count
        stream["last_position"] = first_position + count - 1
    for key, record in store.items("events", struct.pack(">Q", indexed_through)):
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
        if sys.argv[1:2] == ["--keys"]:
            sys.exit(keys(sys.argv[2], sys.argv[3], sys.argv[4]))
        sys.exit(main(sys.argv[1], sys.argv[2]))
    except Damaged as damage:
        print(f"read_store: damaged: {damage}", file=sys.stderr)
        sys.exit(2)
