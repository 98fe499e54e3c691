#!/usr/bin/env python3
"""Drives `sessionstore serve` the way an app backend in another language would, with Python's
`requests` and raw sockets (no SessionStore code): appends a session, resends it, reads it back with
a read token and the consent trail with an auditor's token, tails the log over Server-Sent Events and
resumes with Last-Event-ID, and sends malformed requests, checking that each is answered and that the
server keeps serving.

    client_check.py BASE_URL INGEST_TOKEN READ_TOKEN AUDIT_TOKEN

Prints one line per check; exits 1 at the first that fails.
"""
import json
import socket
import sys
import time
import uuid
from urllib.parse import urlparse

import requests

from checking import check

base, ingest, read, audit = sys.argv[1:5]


def bearer(token):
    return {"Authorization": f"Bearer {token}"}




session = str(uuid.uuid4())
ids = [str(uuid.uuid4()) for _ in range(4)]
lines = [
    {"type": "session.started", "session": session, "id": ids[0], "at": "2026-11-21T10:00:00.000Z", "subject": "dana", "locale": "en-US"},
    {"type": "consent.granted", "session": session, "id": ids[1], "at": "2026-11-21T10:00:00.100Z", "subject": "dana",
     "consent_type": "transcription", "method": "in_app_prompt"},
    {"type": "transcript.committed", "session": session, "id": ids[2], "at": "2026-11-21T10:00:02.000Z", "segment": "1",
     "text": "Hello from Python", "start_ms": 0, "end_ms": 1200},
]
body = "".join(json.dumps(line) + "\n" for line in lines)
ndjson = {"Content-Type": "application/x-ndjson"}

check(requests.get(f"{base}/healthz", timeout=10).status_code == 200, "healthz answers")

first = requests.post(f"{base}/v1/events", data=body, headers={**bearer(ingest), **ndjson}, timeout=30)
check(first.status_code == 200, "a session is appended", first.text)
positions = first.json()["positions"]
check(len(positions) == 3 and positions == sorted(positions), "each line gets its position", positions)

again = requests.post(f"{base}/v1/events", data=body, headers={**bearer(ingest), **ndjson}, timeout=30)
check(again.status_code == 200 and again.json()["positions"] == positions and again.json()["appended"] == 0,
      "a resend answers the same positions and stores nothing", again.text)

bad = requests.post(f"{base}/v1/events", data='{"type": "transcript.committed", "session": \n', headers={**bearer(ingest), **ndjson}, timeout=30)
problem = bad.json()
check(bad.status_code == 422 and bad.headers["Content-Type"] == "application/problem+json" and problem["problems"][0]["line"] == 1,
      "invalid JSON is a problem naming the line", bad.text)

check(requests.get(f"{base}/v1/sessions", headers=bearer("sst_wrong"), timeout=10).status_code == 401, "a wrong token is refused")
check(requests.get(f"{base}/v1/sessions", headers=bearer(ingest), timeout=10).status_code == 403, "an ingest token cannot read")

listed = requests.get(f"{base}/v1/sessions", headers=bearer(read), params={"limit": 10}, timeout=10).json()
check(session in [row["session"] for row in listed["sessions"]], "the session is listed")

transcript = requests.get(f"{base}/v1/sessions/{session}/transcript", headers=bearer(read), params={"purpose": "qa"}, timeout=10)
check(transcript.status_code == 200 and transcript.json()["segments"][0]["text"] == "Hello from Python", "the transcript reads back", transcript.text)

trail = requests.get(f"{base}/v1/subjects/dana/consent", headers=bearer(audit), timeout=10)
check(trail.status_code == 200 and trail.json()["entries"][0]["status"] == "granted", "the auditor reads the consent trail", trail.text)


def sse_events(headers, count, after):
    """The first `count` events of the tail after position `after`, as (id, event, data)."""
    events, current = [], {}
    with requests.get(f"{base}/v1/events", headers=headers, params={"after": after}, stream=True, timeout=30) as stream:
        check(stream.headers["Content-Type"].startswith("text/event-stream"), "the tail is an event stream")
        for raw in stream.iter_lines(decode_unicode=True):
            if raw == "":
                if "id" in current:
                    events.append(current)
                    if len(events) == count:
                        return events
                current = {}
            elif not raw.startswith(":"):
                field, _, value = raw.partition(": ")
                current[field] = value
    return events


tail = sse_events(bearer(read), 3, after=positions[0] - 1)
check([int(e["id"]) for e in tail] == positions, "the tail sends the session's events with their positions as ids", tail)
check(json.loads(tail[2]["data"])["text"] == "Hello from Python", "each event's data is the event")
more = {"type": "transcript.committed", "session": session, "id": ids[3], "at": "2026-11-21T10:00:03.000Z", "segment": "2",
        "text": "and more", "start_ms": 1300, "end_ms": 1900}
check(requests.post(f"{base}/v1/events", data=json.dumps(more) + "\n", headers={**bearer(ingest), **ndjson}, timeout=30).status_code == 200,
      "a later event is appended")
resumed = sse_events({**bearer(read), "Last-Event-ID": tail[0]["id"]}, 3, after=0)  # the header wins over the parameter
check([int(e["id"]) for e in resumed][:2] == positions[1:] and json.loads(resumed[2]["data"])["text"] == "and more",
      "a client resuming with Last-Event-ID gets what follows, nothing twice", resumed)

host, port = urlparse(base).hostname, urlparse(base).port


def raw(request):
    """What the server answers before it closes the connection (b"" for a close without an answer),
    or None when it neither answers nor closes within 5 seconds: a connection held open by garbage."""
    with socket.create_connection((host, port), timeout=5) as connection:
        try:
            connection.sendall(request)
            return connection.recv(4096)
        except (ConnectionResetError, BrokenPipeError):
            return b""
        except socket.timeout:
            return None


answer = raw(b"NOT HTTP AT ALL\r\n\r\n")
check(answer is not None and (answer == b"" or answer.startswith(b"HTTP/1.1 4")), "malformed HTTP is refused at once", answer)
answer = raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
check(answer is not None and (answer == b"" or answer.startswith(b"HTTP/1.1 4")), "oversized headers are refused at once", answer)
check(requests.get(f"{base}/healthz", timeout=10).status_code == 200, "the server keeps serving")

# A client that trickles its request head, a byte a second, is closed after the header timeout (the test
# serves with --header-timeout 3 and --idle-timeout 2: the idle timer alone would never fire).
with socket.create_connection((host, port), timeout=30) as slow:
    opened, closed = time.monotonic(), False
    for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40:
        try:
            slow.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        slow.settimeout(1.0)
        try:
            if slow.recv(1) == b"":
                closed = True
                break
        except socket.timeout:
            pass
        except ConnectionResetError:  # the server closed with bytes of ours unread: a reset, not an end of file
            closed = True
            break
    check(closed and time.monotonic() - opened < 15, "a trickled request head is cut off by the header timeout",
          f"{time.monotonic() - opened:.1f} s")

# A client that connects and sends nothing is closed after the idle timeout (the test serves with --idle-timeout 2).
with socket.create_connection((host, port), timeout=30) as silent:
    opened = time.monotonic()
    closed = silent.recv(1) == b""
    check(closed and time.monotonic() - opened < 20, "a silent connection is closed by the idle timeout",
          f"{time.monotonic() - opened:.1f} s")

# A client that drops its connection half-way through a body leaves nothing of it.
cut = str(uuid.uuid4())
partial = (json.dumps({"type": "session.started", "session": cut, "at": "2026-11-21T11:00:00.000Z", "subject": "eli"}) + "\n").encode()
with socket.create_connection((host, port), timeout=10) as connection:
    connection.sendall(b"POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ingest.encode()
                       + b"\r\nContent-Type: application/x-ndjson\r\nContent-Length: 100000\r\n\r\n" + partial)
time.sleep(1)  # the server sees the connection end; a server that appended what it had would have done so by now
check(requests.get(f"{base}/v1/sessions/{cut}", headers=bearer(read), timeout=10).status_code == 404,
      "a body cut off by a dropped connection appends nothing")
print("all checks passed")
