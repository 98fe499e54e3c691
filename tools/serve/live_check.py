#!/usr/bin/env python3
"""Records a session live over `sessionstore serve`'s WebSocket (/v1/sessions/{id}/live) with PyPI's
`websockets`, as a mobile app's backend would: sends events one message each and waits for their
acknowledgements, drops the connection with events still unacknowledged, reconnects, resumes from
what the server says it holds, and checks that every event is stored once, in order.

    live_check.py BASE_URL INGEST_TOKEN READ_TOKEN

Prints one line per check; exits 1 at the first that fails.
"""
import base64
import json
import sys
import uuid

import requests
from websockets.sync.client import connect

from checking import check

base, ingest, read = sys.argv[1:4]
live_base = base.replace("http://", "ws://")
session = str(uuid.uuid4())
headers = {"Authorization": f"Bearer {ingest}"}




def event(kind, at_ms, **fields):
    seconds, millis = divmod(at_ms, 1000)
    return {"type": kind, "session": session, "id": str(uuid.uuid4()), "at": f"2026-11-21T10:00:{seconds:02d}.{millis:03d}Z", **fields}


silence = base64.b64encode(bytes(3200)).decode()  # 100 ms of 16 kHz mono 16-bit
events = [event("session.started", 0, subject="dana", locale="en-US"),
          event("consent.granted", 100, subject="dana", consent_type="audio_recording", method="in_app_prompt"),
          event("recording.started", 200, recording="mic", sample_rate=16000, channels=1)]
events += [event("recording.chunk", 300 + 100 * i, recording="mic", index=i, pcm=silence) for i in range(6)]
events += [event("transcript.partial", 1000, segment="1", revision=0, text="hello", start_ms=0, end_ms=500),
           event("transcript.committed", 1100, segment="1", text="hello live world", start_ms=0, end_ms=900),
           event("recording.stopped", 1200, recording="mic"),
           event("session.ended", 1300)]

acknowledged = []  # positions, in the order sent
with connect(f"{live_base}/v1/sessions/{session}/live", additional_headers=headers) as socket:
    hello = json.loads(socket.recv(timeout=10))
    check(hello["session"] == session and hello["stored"] == 0 and hello["last_event_id"] is None, "the server says it holds nothing yet", hello)
    for number, item in enumerate(events[:7], start=1):
        socket.send(json.dumps(item))
        answer = json.loads(socket.recv(timeout=30))
        check(answer["seq"] == number and not answer["duplicate"], f"event {number} is acknowledged", answer)
        acknowledged.append(answer["position"])
    socket.send("this is not JSON")
    refused = json.loads(socket.recv(timeout=30))
    check(refused["seq"] == 8 and refused["problem"]["status"] == 422, "a bad message is refused and the stream stays open", refused)
    socket.send(json.dumps(dict(events[7], session=str(uuid.uuid4()))))
    refused = json.loads(socket.recv(timeout=30))
    check(refused["seq"] == 9 and refused["problem"]["status"] == 422 and refused["problem"]["problems"][0]["field"] == "session",
          "an event of another session is refused, naming its field", refused)
    socket.send(json.dumps(events[7]))
    socket.send(json.dumps(events[8]))
    # The connection drops with events 8 and 9 sent but not acknowledged here.
    socket.socket.close()
check(acknowledged == sorted(acknowledged) and len(set(acknowledged)) == 7, "acknowledged positions increase")

with connect(f"{live_base}/v1/sessions/{session}/live", additional_headers=headers) as socket:
    hello = json.loads(socket.recv(timeout=10))
    check(hello["stored"] >= 7, "after the drop the server says what it holds", hello)
    stored_ids = [item["id"] for item in events]
    resume_from = stored_ids.index(hello["last_event_id"]) + 1
    check(resume_from >= 7, "the last stored event is one the client sent", hello)
    # Resend everything not acknowledged: an event the server stored before or while the connection dropped
    # (an append in flight finishes) is acknowledged again as a duplicate, not stored twice; later ones are new.
    for item in events[7:]:
        socket.send(json.dumps(item))
        answer = json.loads(socket.recv(timeout=30))
        check("position" in answer, f"event {item['type']} is acknowledged after the reconnect", answer)
        number = events.index(item)
        if number < resume_from:
            check(answer["duplicate"], "an event the server held at the reconnect is a duplicate", answer)
        if number >= 9:
            check(not answer["duplicate"], "an event never sent before is new", answer)

listed = requests.get(f"{base}/v1/sessions/{session}", headers={"Authorization": f"Bearer {read}"}, timeout=10).json()
check(listed["status"] == "ended" and listed["segments"] == 1 and listed["audio_ms"] == 600, "the session is whole: every event once", listed)
transcript = requests.get(f"{base}/v1/sessions/{session}/transcript", headers={"Authorization": f"Bearer {read}"}, timeout=10).json()
check(transcript["segments"][0]["text"] == "hello live world", "the transcript reads back")

# A refused upgrade is answered 400 with no body (the WebSocket library's answer to every refused
# handshake); the same request without Upgrade gets the problem that says why.
try:
    with connect(f"{live_base}/v1/sessions/{session}/live", additional_headers={"Authorization": f"Bearer {read}"}) as socket:
        socket.recv(timeout=5)
    check(False, "a read token cannot open a live stream")
except Exception as error:  # websockets raises InvalidStatus for the refused handshake
    check("400" in str(error), "a read token cannot open a live stream", error)
plain = requests.get(f"{base}/v1/sessions/{session}/live", headers={"Authorization": f"Bearer {read}"}, timeout=10)
check(plain.status_code == 403, "without Upgrade, the refusal says why", plain.text)
plain = requests.get(f"{base}/v1/sessions/{session}/live", headers=headers, timeout=10)
check(plain.status_code == 400 and "not-a-websocket-handshake" in plain.text, "a plain GET of the live route is told to upgrade", plain.text)
print("all checks passed")
