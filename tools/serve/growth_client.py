#!/usr/bin/env python3
"""One more event into a session that holds some already, as clients send it to `sessionstore serve`:
SAMPLES requests of `POST /v1/events` with one line each, then SAMPLES messages on the session's live
WebSocket, each awaited. Prints one JSON line: the p50 and p90 of each, in milliseconds.

    growth_client.py BASE_URL INGEST_TOKEN SESSION FIRST_MS SAMPLES
"""
import json
import statistics
import sys
import time
import uuid

import requests
from websockets.sync.client import connect

base, token, session, first_ms, samples = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/x-ndjson"}


def line(number):
    at = first_ms + number * 100
    seconds, millis = divmod(at, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return json.dumps({"type": "transcript.partial", "session": session, "id": str(uuid.uuid4()),
                       "at": f"2026-11-21T{10 + hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z",
                       "segment": f"g{number}", "revision": 1, "text": f"words of partial {number}",
                       "start_ms": number * 100, "end_ms": number * 100 + 90})


def percentiles(values):
    ordered = sorted(values)
    return {"p50_ms": statistics.median(ordered) * 1000, "p90_ms": ordered[int(len(ordered) * 0.9)] * 1000}


http = []
with requests.Session() as client:
    for number in range(samples):
        started = time.perf_counter()
        answer = client.post(f"{base}/v1/events", data=line(number).encode(), headers=headers, timeout=60)
        http.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.text

live = []
with connect(base.replace("http://", "ws://") + f"/v1/sessions/{session}/live",
             additional_headers={"Authorization": f"Bearer {token}"}) as socket:
    json.loads(socket.recv())  # what the store holds already
    for number in range(samples, 2 * samples):
        started = time.perf_counter()
        socket.send(line(number))
        answer = json.loads(socket.recv())
        live.append(time.perf_counter() - started)
        assert "position" in answer, answer

print(json.dumps({"http_post": percentiles(http), "live": percentiles(live)}))
