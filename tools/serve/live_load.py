#!/usr/bin/env python3
"""WRITERS WebSocket streams to `sessionstore serve`'s /v1/sessions/{id}/live, each a session of its own,
sending one event per message and awaiting its acknowledgement before the next, for SECONDS: prints one
JSON object with events per second and acknowledgement latency percentiles (tools/serve/bench).

    live_load.py BASE_URL INGEST_TOKEN WRITERS SECONDS
"""
import asyncio
import json
import sys
import time
import uuid

from websockets.asyncio.client import connect

base, token, writers, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])


async def writer(number, deadline, latencies):
    session = str(uuid.uuid4())
    async with connect(f"{base.replace('http://', 'ws://')}/v1/sessions/{session}/live",
                       additional_headers={"Authorization": f"Bearer {token}"}, max_queue=None) as socket:
        await socket.recv()
        event = {"type": "session.started", "session": session, "id": str(uuid.uuid4()), "at": "2026-11-26T10:00:00.000Z",
                 "subject": f"live-{number}", "locale": "en-US"}
        segment = 0
        while True:
            started = time.monotonic()
            await socket.send(json.dumps(event))
            answer = json.loads(await socket.recv())
            if "position" not in answer:
                raise SystemExit(f"refused: {answer}")
            latencies.append(time.monotonic() - started)
            if time.monotonic() >= deadline:
                return
            segment += 1
            event = {"type": "transcript.committed", "session": session, "id": str(uuid.uuid4()), "at": "2026-11-26T10:00:00.000Z",
                     "segment": f"s{segment}", "text": f"word {segment}", "start_ms": segment * 10, "end_ms": segment * 10 + 5}


async def main():
    latencies = []
    began = time.monotonic()
    await asyncio.gather(*(writer(n, began + seconds, latencies) for n in range(writers)))
    elapsed = time.monotonic() - began
    latencies.sort()
    print(json.dumps({"writers": writers, "seconds": elapsed, "events": len(latencies), "events_per_second": len(latencies) / elapsed,
                      "p50_ms": latencies[len(latencies) // 2] * 1000, "p99_ms": latencies[int(0.99 * (len(latencies) - 1))] * 1000}))


asyncio.run(main())
