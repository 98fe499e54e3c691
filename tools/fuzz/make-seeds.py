#!/usr/bin/env python3
"""Writes the seed corpora of Fixtures/fuzz/ from the repository's own fixtures: ingest lines, fixture
scripts, audio files, FLAC chunks cut from them, stored records and sealed-body inputs, wire payloads.
Run from the repository root: python3 tools/fuzz/make-seeds.py (needs lmdb, zstandard, soundfile)."""
import glob, hashlib, io, json, os, struct, uuid
import lmdb, soundfile, zstandard

out = "Fixtures/fuzz"

def write(target, name, data):
    os.makedirs(f"{out}/{target}", exist_ok=True)
    with open(f"{out}/{target}/{name}", "wb") as f:
        f.write(data)

# Ingest lines: every line of the sample session, and the JSON parser gets them too.
lines = [l for l in open("Fixtures/outputs/session.ndjson", "rb").read().split(b"\n") if l.strip()]
seen = set()
for line in lines:
    kind = json.loads(line)["type"]
    if kind in seen: continue
    seen.add(kind)
    write("ndjson-line", kind, line)
    write("json", kind, line)
for i, text in enumerate([b'{"a":[1,2.5e-3,true,false,null,"\\u00e9\\ud83d\\ude00"]}', b"[]", b'"\\n"', b"-0.0e+10", b'{"x":{"y":{"z":[[[]]]}}}']):
    write("json", f"value-{i}", text)

# Fixture scripts and audio files.
for path in sorted(glob.glob("Fixtures/audio/*.json"))[:3]:
    write("fixture", os.path.basename(path), open(path, "rb").read())
for path in sorted(glob.glob("Fixtures/audio/*.flac"))[:2]:
    data, rate = soundfile.read(path, dtype="int16")
    short = data[: rate // 10]
    for fmt, sub in (("WAV", "PCM_16"), ("FLAC", "PCM_16"), ("WAV", "FLOAT"), ("OGG", "VORBIS")):
        buffer = io.BytesIO()
        soundfile.write(buffer, short, rate, format=fmt, subtype=sub)
        write("audio-file", f"{os.path.basename(path)}.{fmt.lower()}-{sub.lower()}", buffer.getvalue())
        if fmt == "FLAC":
            write("flac", os.path.basename(path), buffer.getvalue())

# Stored records (mode byte 0) and header + plaintext bodies to be sealed (mode byte 1).
env = lmdb.open("Fixtures/stores/format0", readonly=True, lock=False, max_dbs=16, subdir=True)
events = env.open_db(b"events")
with env.begin() as txn:
    for i, (key, record) in enumerate(txn.cursor(db=events)):
        if i >= 6: break
        write("record", f"stored-{i}", b"\x00" + bytes(record))
header = bytearray(60)
header[0] = 1
struct.pack_into(">HI", header, 2, 0, 1)
header[8:24] = uuid.UUID(int=1).bytes
struct.pack_into(">Qq", header, 24, 0, 1_795_255_200_000)
header[40:56] = uuid.UUID(int=2).bytes
for name, data in (("note", b"hello"), ("transcript.committed", b"\x0a\x01s\x12\x05Hello")):
    body = bytes([len(name)]) + name.encode() + data
    stored, packed = bytearray(header), bytearray(header)
    struct.pack_into(">I", stored, 56, len(body)); stored[1] = 0
    struct.pack_into(">I", packed, 56, len(body)); packed[1] = 1
    write("record", f"sealed-stored-{name}", b"\x01" + bytes(stored) + body)
    write("record", f"sealed-zstd-{name}", b"\x01" + bytes(packed) + zstandard.ZstdCompressor().compress(body))

# Wire payloads: the first byte picks the event type (EventType.allCases order), the rest is protobuf.
for i, payload in enumerate([b"", b"\x0a\x05en-GB", b"\x0a\x01s\x12\x05Hello\x18\x00\x20\xe8\x07", b"\x08\x01\x12\x03abc"]):
    write("wire", f"payload-{i}", bytes([i * 3]) + payload)
