#!/usr/bin/env python3
"""Reads a `sessionstore export` file with the parsers people use, and prints what they saw as JSON.

    python3 read_export.py json FILE     json module + jsonschema (Draft 2020-12) against docs/export.schema.json
    python3 read_export.py csv FILE      csv module and pandas (utf-8-sig, so a BOM is accepted and reported)
    python3 read_export.py vtt FILE      webvtt-py
    python3 read_export.py srt FILE      srt
    python3 read_export.py zip FILE      zipfile: a subject bundle, every manifest hash checked, FLAC decoded

Output: {"cues" or "rows": [...], ...}; a parser that refuses the file exits non-zero with its message.

    pip install jsonschema pandas webvtt-py srt
"""
import csv
import html
import json
import os
import sys


def read_json(path):
    import jsonschema
    schema_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "export.schema.json")
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=lambda e: list(e.path))
    return {"valid": not errors, "errors": [f"{list(e.path)}: {e.message}" for e in errors[:20]], "document": document}


def read_csv(path):
    import pandas
    with open(path, "rb") as f:
        bom = f.read(3) == b"\xef\xbb\xbf"
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f, strict=True))
    frame = pandas.read_csv(path, encoding="utf-8-sig", dtype=str, keep_default_na=False)
    return {"bom": bom, "rows": rows, "pandas_columns": list(frame.columns),
            "pandas_rows": frame.values.tolist()}


def read_vtt(path):
    import webvtt
    cues = []
    for caption in webvtt.read(path):
        cues.append({"start": caption.start, "end": caption.end, "text": html.unescape(caption.text),
                     "voice": html.unescape(caption.voice) if getattr(caption, "voice", None) else None})
    return {"cues": cues}


def read_srt(path):
    import srt
    with open(path, encoding="utf-8") as f:
        subtitles = list(srt.parse(f.read()))
    return {"cues": [{"index": s.index, "start_ms": int(s.start.total_seconds() * 1000 + 0.5),
                      "end_ms": int(s.end.total_seconds() * 1000 + 0.5), "text": s.content} for s in subtitles]}


def read_zip(path):
    import hashlib
    import io
    import tempfile
    import zipfile
    with zipfile.ZipFile(path) as archive:
        if archive.testzip() is not None:
            raise SystemExit("a damaged member in " + path)
        names = archive.namelist()
        manifest = json.loads(archive.read("manifest.json"))
        checked = []
        for entry in manifest["files"]:
            data = archive.read(entry["path"])
            checked.append({"path": entry["path"], "size_ok": len(data) == entry["bytes"],
                            "sha256_ok": hashlib.sha256(data).hexdigest() == entry["sha256"]})
        pcm = {}
        for name in names:
            if name.endswith(".flac"):
                import soundfile
                samples, rate = soundfile.read(io.BytesIO(archive.read(name)), dtype="int16", always_2d=False)
                pcm[name] = {"sha256": hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest(), "rate": rate}
        inner = {}
        with tempfile.TemporaryDirectory() as directory:
            for name in names:
                if name.startswith("sessions/"):
                    file = os.path.join(directory, name.replace("/", "_"))
                    with open(file, "wb") as f:
                        f.write(archive.read(name))
                    inner[name] = read_json(file)["valid"] if name.endswith(".json") else len(read_vtt(file)["cues"])
        return {"names": names, "manifest": manifest, "checked": checked, "flac": pcm, "inner": inner,
                "consent": json.loads(archive.read("consent.json"))}


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    result = {"json": read_json, "csv": read_csv, "vtt": read_vtt, "srt": read_srt, "zip": read_zip}[kind](path)
    json.dump(result, sys.stdout, ensure_ascii=False)
