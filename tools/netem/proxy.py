#!/usr/bin/env python3
"""A user-space network between a client and a server (this machine's kernel has no netem): a TCP proxy that
delays, caps bandwidth, resets, drops and stalls, by named profiles, from a seed.

    proxy.py LISTEN_PORT TARGET_HOST:TARGET_PORT PROFILE [SEED]

Profiles (docs/CLIENT.md, "The networks"):
  loopback          nothing added
  3g                1 Mbps each way, 150 ms each way plus 50-250 ms jitter (a 300 ms round trip, 100-500 ms jitter)
  handoff           every 8-15 s: every connection reset, 1-3 s without a path, then a path with another latency (20-200 ms)
  intermittent      up 2-10 s, down 0.5-5 s, over and over
  outage:SECONDS    one outage of SECONDS, 2 s after the start
  stall             the server stops answering for 5-12 s every 15-25 s: connections stay open, nothing comes back
Everything listens on and connects to loopback only. The checker (check.py) imports Network and drives it.
"""
import asyncio
import random
import socket
import struct
import sys
import time


class Network:
    """The emulated path now: what every connection through the proxy meets. A schedule changes it."""

    def __init__(self, seed=0):
        self.random = random.Random(seed)
        self.latency = 0.0          # seconds, each way
        self.jitter = (0.0, 0.0)    # extra seconds each way, uniform
        self.bandwidth = None       # bytes a second, each way
        self.down = False           # no path: new connections are reset, bytes are dropped
        self.stalled = False        # the server's bytes are held back
        self.answer = None          # an HTTP status every new connection is answered with instead (401, 429, 500)
        self.connections = set()
        self.events = []            # (seconds since start, wall-clock time, what happened)
        self.started = time.monotonic()
        self.changed = asyncio.Event()

    def note(self, what):
        self.events.append((round(time.monotonic() - self.started, 3), time.time(), what))

    def set(self, **changes):
        for name, value in changes.items():
            setattr(self, name, value)
        self.note(" ".join(f"{k}={v}" for k, v in changes.items()))
        self.changed.set()
        self.changed = asyncio.Event()

    def restore(self):
        """Back to loopback: no delay, no cap, a path, nothing held or answered."""
        was_out = self.down or self.stalled
        self.down, self.stalled, self.answer = False, False, None
        self.latency, self.jitter, self.bandwidth = 0.0, (0.0, 0.0), None
        self.note("down=False (restored)" if was_out else "restored")
        self.changed.set()
        self.changed = asyncio.Event()

    def reset_all(self):
        """Every open connection reset (RST, SO_LINGER 0), both sides."""
        self.note(f"reset {len(self.connections)} connections")
        for connection in list(self.connections):
            connection.reset()

    def delay(self):
        return self.latency + self.random.uniform(*self.jitter)


class Connection:
    def __init__(self, network, client_reader, client_writer, server_reader, server_writer):
        self.network = network
        self.client = (client_reader, client_writer)
        self.server = (server_reader, server_writer)
        self.tasks = []

    def reset(self):
        for writer in (self.client[1], self.server[1]):
            sock = writer.get_extra_info("socket")
            try:
                if sock is not None:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
            except OSError:
                pass
        for task in self.tasks:
            task.cancel()

    async def pump(self, reader, writer, from_server):
        """Reads as bytes come, delivers each piece after the path's delay, in order, at the path's bandwidth."""
        queue = asyncio.Queue()
        deliver = asyncio.ensure_future(self.deliver(queue, writer, from_server))
        self.tasks.append(deliver)
        last = time.monotonic()
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                if self.network.down:
                    continue
                now = time.monotonic()
                due = max(last, now + self.network.delay())
                if self.network.bandwidth:
                    due = max(due, last) + len(data) / self.network.bandwidth
                last = due
                await queue.put((due, data))
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass
        await queue.put(None)

    async def deliver(self, queue, writer, from_server):
        try:
            while True:
                item = await queue.get()
                if item is None:
                    break
                due, data = item
                while from_server and self.network.stalled:
                    await self.network.changed.wait()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if self.network.down:
                    continue
                writer.write(data)
                await writer.drain()
            writer.close()
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass


async def serve(network, listen_port, target_host, target_port):
    async def accept(client_reader, client_writer):
        if network.down:
            Connection(network, client_reader, client_writer, client_reader, client_writer).reset()
            return
        if network.answer:
            status = network.answer
            try:
                await asyncio.wait_for(client_reader.readuntil(b"\r\n\r\n"), 5)
                body = b'{"status": %d, "title": "injected by the network emulator"}' % status
                client_writer.write(b"HTTP/1.1 %d Injected\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\n"
                                    b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (status, len(body), body))
                await client_writer.drain()
            except (asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError, OSError):
                pass
            client_writer.close()
            return
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.transport.abort()
            return
        connection = Connection(network, client_reader, client_writer, server_reader, server_writer)
        network.connections.add(connection)
        try:
            await asyncio.gather(connection.pump(client_reader, server_writer, False), connection.pump(server_reader, client_writer, True))
        finally:
            network.connections.discard(connection)

    return await asyncio.start_server(accept, "127.0.0.1", listen_port)


async def run_profile(network, profile, until):
    """Drives `network` by `profile` until the loop's time reaches `until` (monotonic seconds)."""
    r = network.random

    async def sleep(seconds):
        await asyncio.sleep(max(0.0, min(seconds, until - time.monotonic())))
        return time.monotonic() < until

    if profile == "loopback":
        return
    if profile == "3g":
        network.set(latency=0.150, jitter=(0.05, 0.25), bandwidth=125_000)
        return
    if profile.startswith("outage:"):
        seconds = float(profile.split(":", 1)[1])
        if await sleep(2):
            network.set(down=True)
            network.reset_all()
            await asyncio.sleep(seconds)
            network.set(down=False)
        return
    while time.monotonic() < until:
        if profile == "handoff":
            if not await sleep(r.uniform(8, 15)):
                break
            network.set(down=True)
            network.reset_all()
            await asyncio.sleep(r.uniform(1, 3))
            network.set(down=False, latency=r.uniform(0.02, 0.2))
        elif profile == "intermittent":
            if not await sleep(r.uniform(2, 10)):
                break
            network.set(down=True)
            network.reset_all()
            await asyncio.sleep(r.uniform(0.5, 5))
            network.set(down=False)
        elif profile == "stall":
            if not await sleep(r.uniform(15, 25)):
                break
            network.set(stalled=True)
            await asyncio.sleep(r.uniform(5, 12))
            network.set(stalled=False)
        else:
            raise SystemExit(f"proxy.py: unknown profile {profile}")


PROFILES = ["loopback", "3g", "handoff", "intermittent", "outage:SECONDS", "stall"]


def main():
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    port, target, profile = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    host, target_port = target.rsplit(":", 1)
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("proxy.py: the target must be on loopback")

    async def go():
        network = Network(int(sys.argv[4]) if len(sys.argv) == 5 else 0)
        server = await serve(network, port, host, int(target_port))
        print(f"proxy on 127.0.0.1:{server.sockets[0].getsockname()[1]} → {target}, profile {profile}", flush=True)
        await run_profile(network, profile, float("inf"))
        await asyncio.Event().wait()

    asyncio.run(go())


if __name__ == "__main__":
    main()
