#!/usr/bin/env python3
"""Writes the ingest benchmark's NDJSON: SESSIONS sessions of LINES lines each (session.started,
consent.granted, transcript.partial events of about 200 bytes, session.ended), deterministic.
   make-ingest.py OUT.ndjson [SESSIONS=100] [LINES=1000] [SEED=7]"""
import json, sys, uuid, random

out = sys.argv[1]
sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 100
lines = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 7)
words = "please schedule a follow up visit for next tuesday and send the lab results to doctor patel".split()

def at(ms):
    return "2026-11-21T%02d:%02d:%02d.%03dZ" % (10 + ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000)

with open(out, "w") as f:
    for s in range(sessions):
        session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        subject = "user-%d" % s
        f.write(json.dumps({"type": "session.started", "session": session, "at": at(0), "subject": subject, "locale": "en-GB"}) + "\n")
        f.write(json.dumps({"type": "consent.granted", "session": session, "at": at(1), "subject": subject,
                            "consent_type": "transcription", "method": "in_app_prompt"}) + "\n")
        for n in range(lines - 3):
            text = " ".join(rng.choice(words) for _ in range(8))
            f.write(json.dumps({"type": "transcript.partial", "session": session, "at": at(100 * n + 2),
                                "segment": n // 10, "revision": n % 10, "text": text,
                                "start_ms": 100 * (n // 10) * 10, "end_ms": 100 * n + 100}, ensure_ascii=False) + "\n")
        f.write(json.dumps({"type": "session.ended", "session": session, "at": at(100 * lines)}) + "\n")
