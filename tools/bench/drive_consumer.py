#!/usr/bin/env python3
"""A light system under test for measuring `replay --drive` (docs/history/performance.md): reads the events on
standard input, parses each line and decodes each chunk's PCM, writes nothing, and says how many frames
it got on standard error.
   sessionstore replay SESSION --drive 'python3 tools/bench/drive_consumer.py' --with-transcript --no-store
   sessionstore events SESSION --with-audio > hour.ndjson; python3 tools/bench/drive_consumer.py < hour.ndjson"""
import base64, json, sys

frames = 0
for line in sys.stdin:
    event = json.loads(line)
    if event["type"] == "recording.chunk":
        frames += len(base64.b64decode(event["pcm"])) // 2
print(f"drive_consumer: {frames} frames", file=sys.stderr)
