#!/usr/bin/env python3
"""The round trip a profile gives, as a baseline for the client's acknowledgement latency in the same run: a 100-byte
message every 100 ms through the emulator to an echo server on loopback and back, for SECONDS (20 unless given).

    rtt.py PROFILE [SECONDS] [SEED]      prints {"profile": …, "round_trips": N, "p50_ms": …, "p95_ms": …}
"""
import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proxy import Network, run_profile, serve  # noqa: E402


async def main(profile, seconds, seed):
    asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)  # connections cut at the end
    async def echo(reader, writer):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()

    echo_server = await asyncio.start_server(echo, "127.0.0.1", 0)
    network = Network(seed)
    proxy = await serve(network, 0, "127.0.0.1", echo_server.sockets[0].getsockname()[1])
    port = proxy.sockets[0].getsockname()[1]
    until = time.monotonic() + seconds
    driver = asyncio.ensure_future(run_profile(network, profile, until))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    samples = []
    while time.monotonic() < until:
        sent = time.monotonic()
        writer.write(b"x" * 99 + b"\n")
        await writer.drain()
        await reader.readline()
        samples.append((time.monotonic() - sent) * 1000)
        await asyncio.sleep(max(0.0, 0.1 - (time.monotonic() - sent)))
    driver.cancel()
    samples.sort()
    print(json.dumps({"profile": profile, "round_trips": len(samples), "p50_ms": round(samples[len(samples) // 2], 1),
                      "p95_ms": round(samples[len(samples) * 95 // 100], 1)}))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    asyncio.run(main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 20, int(sys.argv[3]) if len(sys.argv) > 3 else 0))
