#!/usr/bin/env python3
"""Times the session list's answers from a running `sessionstore serve` (tools/console/bench).

usage: list_latency.py URL READ_TOKEN [REQUESTS]

For each request (a floor: /healthz and one session's row; then pages of the list, filtered and sorted,
through the API and as the console's HTML page), sends 3 unmeasured requests, then REQUESTS (default 30)
timed ones over one keep-alive connection, and prints one JSON line: the median, 90th percentile and
maximum in milliseconds, and the bytes of the answer.
"""
import json
import statistics
import sys
import time

import requests

url, token = sys.argv[1].rstrip("/"), sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 30
session = requests.Session()
session.headers["Authorization"] = "Bearer " + token

started = time.perf_counter()
first = session.get(url + "/v1/sessions?limit=1", timeout=600)
first.raise_for_status()
print(json.dumps({"request": "first list request after start (reads the list into memory)",
                  "ms": round((time.perf_counter() - started) * 1000, 1), "matching": first.json()["matching"]}), flush=True)
some = first.json()["sessions"][0]["session"]
# A cursor 41% of the way through the list (41,000 of 100,000 sessions), walked to in pages of up to 1,000.
cursor, left = "", first.json()["matching"] * 41 // 100
while left > 0:
    page = session.get(url + f"/v1/sessions?limit={min(1000, left)}" + (f"&after={cursor}" if cursor else ""), timeout=60).json()
    cursor, left = page["next"], left - min(1000, left)

requests_to_time = [
    ("healthz (the HTTP floor)", "/healthz", False),
    ("one session's row", "/v1/sessions/" + some, False),
    ("API: first page of 100, start order", "/v1/sessions", False),
    ("API: page of 100 after 41% of the sessions", "/v1/sessions?after=" + cursor, False),
    ("API: newest 100 first", "/v1/sessions?order=desc", False),
    ("API: 100 with most words (sorted per request)", "/v1/sessions?sort=words&order=desc", False),
    ("API: one subject's sessions (hashed on the server)", "/v1/sessions?subject=user-7", False),
    ("API: id prefix of 3 digits", "/v1/sessions?q=" + some[:3], False),
    ("console: sessions page (50 newest, HTML)", "/ui/sessions", True),
    ("console: sorted by duration, status ended", "/ui/sessions?sort=duration&status=ended", True),
]
for name, path, console in requests_to_time:
    headers = {"Cookie": "sessionstore_token=" + token} if console else {}
    times, size = [], 0
    for index in range(count + 3):
        start = time.perf_counter()
        answer = session.get(url + path, headers=headers, timeout=60)
        elapsed = (time.perf_counter() - start) * 1000
        if answer.status_code != 200:
            sys.exit(f"{path}: {answer.status_code} {answer.text[:200]}")
        size = len(answer.content)
        if index >= 3:
            times.append(elapsed)
    times.sort()
    print(json.dumps({"request": name, "median_ms": round(statistics.median(times), 2),
                      "p90_ms": round(times[int(len(times) * 0.9) - 1], 2), "max_ms": round(times[-1], 2), "bytes": size}), flush=True)
