#!/usr/bin/env python3
"""One more event into a session that holds some already, as clients send it to `sessionstore serve`:
SAMPLES requests of `POST /v1/events` with one line each, then SAMPLES messages on the session's live
WebSocket, each awaited; each alternating with the same into SMALL_SESSION, which holds one event in the
same store. Prints one JSON line: the p50 and p90 of each, in milliseconds.

    growth_client.py BASE_URL INGEST_TOKEN SESSION SMALL_SESSION FIRST_MS SAMPLES
"""
import json
import statistics
import sys
import time
import uuid

import requests
from websockets.sync.client import connect

base, token, session, small_session = sys.argv[1:5]
first_ms, samples = int(sys.argv[5]), int(sys.argv[6])
headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/x-ndjson"}


def line(number, session):
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


def post(client, number, session):
    started = time.perf_counter()
    answer = client.post(f"{base}/v1/events", data=line(number, session).encode(), headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    return time.perf_counter() - started


def send(socket, number, session):
    started = time.perf_counter()
    socket.send(line(number, session))
    answer = json.loads(socket.recv())
    assert "position" in answer, answer
    return time.perf_counter() - started


def live_url(session):
    return base.replace("http://", "ws://") + f"/v1/sessions/{session}/live"


results = {"http_post": [], "http_post_small_session": [], "live": [], "live_small_session": []}
with requests.Session() as client:
    for number in range(samples):
        results["http_post"].append(post(client, number, session))
        results["http_post_small_session"].append(post(client, number, small_session))
auth = {"Authorization": f"Bearer {token}"}
with connect(live_url(session), additional_headers=auth) as big, connect(live_url(small_session), additional_headers=auth) as small:
    json.loads(big.recv()), json.loads(small.recv())  # what the store holds of each already
    for number in range(samples, 2 * samples):
        results["live"].append(send(big, number, session))
        results["live_small_session"].append(send(small, number, small_session))

print(json.dumps({name: percentiles(values) for name, values in results.items()}))
