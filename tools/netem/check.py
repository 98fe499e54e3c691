#!/usr/bin/env python3
"""A checker in the Jepsen style for SessionStoreClient: several apps record sessions through the network emulator
(proxy.py) under a seeded schedule of faults, then the store is read back and every event whose append returned must
be there exactly once, in its session's order, its audio byte-identical; every outbox empty; `verify` passes.

    check.py BIN_DIR [--schedules N] [--seed S] [--clients 16] [--chunks 30] [--pace-ms 100] [--profile P] [--report FILE]

BIN_DIR holds `sessionstore` and `ClientRecorder` (a debug or release build). Schedule i uses seed S+i: its profile
(unless --profile), its faults (the server SIGKILLed and started again, a client SIGKILLed and started again, HTTP
401, 429 and 500 answers, an outage) and their times all follow from it, so a failing seed replays with
`--schedules 1 --seed SEED`. Everything listens on loopback; each schedule is bounded in time. Prints one JSON line per
schedule and exits 1 when any event was lost or duplicated, or any check failed.
"""
import argparse
import asyncio
import base64
import datetime
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proxy import Network, run_profile, serve  # noqa: E402

MASK = (1 << 64) - 1
FAULT_PROFILES = ["3g", "handoff", "intermittent", "outage:4", "stall", "loopback"]


def script_uuid(*parts):
    """ClientRecorder's Script.uuid: the same id from the same parts."""
    state = 1469598103934665603
    for part in parts:
        state = ((state ^ (part & MASK)) * 1099511628211) & MASK
    out = b""
    for _ in range(2):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out += z.to_bytes(8, "big")
    b = bytearray(out)
    b[6] = b[6] & 0x0F | 0x40
    b[8] = b[8] & 0x3F | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def script_pcm(client, index):
    return b"".join(((n * 7 + index * 131 + client * 17) % 2000 - 1000).to_bytes(2, "little", signed=True) for n in range(1600))


def script_types(chunks):
    types = ["session.started", "consent.granted", "recording.started"]
    for index in range(chunks):
        types += ["recording.chunk", "transcript.partial"] + (["transcript.committed"] if index % 10 == 9 else [])
    return types + ["recording.stopped", "session.ended"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Schedule:
    def __init__(self, args, seed):
        self.args, self.seed = args, seed
        self.random = random.Random(seed)
        self.profile = args.profile or FAULT_PROFILES[seed % len(FAULT_PROFILES)]
        self.faults = []
        self.dir = tempfile.mkdtemp(prefix=f"netem-{seed}-")
        self.bin = os.path.abspath(args.bin_dir)
        self.server = None
        self.server_port = free_port()
        self.restarting = False

    def cli(self, *arguments, check=True):
        return subprocess.run([os.path.join(self.bin, "sessionstore"), *arguments], cwd=self.dir, capture_output=True, text=True,
                              check=check, timeout=300)

    def start_server(self):
        self.server = subprocess.Popen([os.path.join(self.bin, "sessionstore"), "serve", "--listen", f"127.0.0.1:{self.server_port}",
                                        "--rate-limit", "20", "--rate-burst", "40"],
                                       cwd=self.dir, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "serve.log"), "a"))
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.server_port}/healthz", timeout=1)
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("check.py: the server did not start")

    def kill_server(self):
        self.server.send_signal(signal.SIGKILL)
        self.server.wait()

    def start_client(self, k):
        c = self.clients[k]
        c["process"] = subprocess.Popen(
            [os.path.join(self.bin, "ClientRecorder"), f"http://127.0.0.1:{self.server_port if self.args.direct else self.proxy_port}", self.token, c["outbox"], c["key"], c["history"],
             str(k), str(self.args.sessions), str(self.args.chunks), str(self.args.pace_ms)],
            stdout=subprocess.PIPE, stderr=open(os.path.join(self.dir, f"client-{k}.log"), "a"), text=True)

    async def run(self):
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)  # connections the faults cut
        self.cli("init")
        self.token = self.cli("tokens", "create", "--scope", "ingest", "--name", "netem").stdout.strip()
        self.start_server()
        network = Network(self.seed)
        self.proxy_port = free_port()
        proxy = await serve(network, self.proxy_port, "127.0.0.1", self.server_port)
        self.clients = [{"outbox": os.path.join(self.dir, f"outbox-{k}"), "key": secrets.token_hex(32),
                         "history": os.path.join(self.dir, f"history-{k}")} for k in range(self.args.clients)]
        for k in range(self.args.clients):
            self.start_client(k)
        recording = self.args.sessions * self.args.chunks * self.args.pace_ms / 1000
        started = time.monotonic()
        profile = asyncio.ensure_future(run_profile(network, self.profile, started + recording + 2))
        faults = asyncio.ensure_future(self.inject(network, started + (0 if self.args.no_faults else recording)))
        deadline = started + recording + self.args.limit
        while (self.restarting or any(c["process"].poll() is None for c in self.clients)) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        faults.cancel()
        profile.cancel()
        network.restore()
        self.network_back = time.monotonic()
        while any(c["process"].poll() is None for c in self.clients) and time.monotonic() < deadline + 30:
            await asyncio.sleep(0.1)
        stuck = [k for k, c in enumerate(self.clients) if c["process"].poll() is None]
        for k in stuck:
            self.clients[k]["process"].kill()
        proxy.close()
        self.elapsed = time.monotonic() - started
        self.network = network
        return stuck

    async def inject(self, network, until):
        r = self.random
        # Every schedule kills the server and a client, in a seeded order; then faults drawn at random.
        first = ["server-kill", "client-kill"]
        r.shuffle(first)
        while time.monotonic() < until:
            await asyncio.sleep(r.uniform(0.3, 1.2))
            if time.monotonic() >= until:
                break
            kind = first.pop(0) if first else r.choice(["server-kill", "client-kill", "client-kill", "http-401", "http-429", "http-500", "reset"])
            self.faults.append((round(time.monotonic() - network.started, 2), kind))
            if kind == "server-kill":
                self.kill_server()
                await asyncio.sleep(r.uniform(0.3, 1.5))
                self.start_server()
            elif kind == "client-kill":
                k = r.randrange(len(self.clients))
                if self.clients[k]["process"].poll() is None:
                    self.restarting = True
                    self.clients[k]["process"].send_signal(signal.SIGKILL)
                    self.clients[k]["process"].wait()
                    await asyncio.sleep(r.uniform(0.1, 1.0))
                    self.start_client(k)
                    self.restarting = False
            elif kind.startswith("http-"):
                network.set(answer=int(kind[5:]))
                network.reset_all()
                await asyncio.sleep(r.uniform(0.5, 2.0))
                network.set(answer=None)
            elif kind == "reset":
                network.reset_all()

    def check(self, stuck):
        report = {"seed": self.seed, "profile": self.profile, "clients": self.args.clients, "faults": len(self.faults),
                  "fault_kinds": sorted({kind for _, kind in self.faults}), "stuck_clients": stuck}
        lost = duplicated = misordered = audio_wrong = events = 0
        recorded_at = []  # when the server stored each event (its clock: this machine's)
        stats = []
        for k, c in enumerate(self.clients):
            out = c["process"].stdout.read() if c["process"].stdout else ""
            line = [l for l in out.splitlines() if l.startswith("{")]
            stats.append(json.loads(line[-1]) if line else None)
            acknowledged_ok = {}
            if os.path.exists(c["history"]):
                for text in open(c["history"]):
                    parts = text.split()
                    if len(parts) == 4 and parts[0] == "ok":
                        acknowledged_ok[parts[3]] = (int(parts[1]), int(parts[2]))
            types = script_types(self.args.chunks)
            for number in range(self.args.sessions):
                session = script_uuid(k, number)
                expected = [script_uuid(k, number, i) for i in range(len(types))]
                listed = self.cli("events", session, "--with-audio", "--format", "ndjson", check=False)
                stored = [json.loads(l) for l in listed.stdout.splitlines() if l.strip()] if listed.returncode == 0 else []
                ids = [e.get("id") for e in stored]
                recorded_at += [datetime.datetime.fromisoformat(e["recorded_at"].replace("Z", "+00:00")).timestamp()
                                for e in stored if e.get("recorded_at")]
                events += len(ids)
                for event_id in ids:
                    if ids.count(event_id) > 1:
                        duplicated += 1
                wanted = [i for i in expected if i in acknowledged_ok]
                lost += sum(1 for i in wanted if i not in ids)
                # Order: what is stored is the session's events in the order the app appended them.
                positions = [expected.index(i) for i in ids if i in expected]
                if positions != sorted(positions) or len(positions) != len(ids):
                    misordered += 1
                for e in stored:
                    if e.get("type") == "recording.chunk":
                        if base64.b64decode(e.get("pcm", "")) != script_pcm(k, e.get("index", -1)):
                            audio_wrong += 1
        verify = self.cli("verify", check=False)
        # From each return of the network (the end of an outage, of a handoff's gap, of a stall) to each client's first
        # acknowledgement after it.
        returns = [wall for _, wall, what in self.network.events if what in ("down=False", "stalled=False") or what.startswith("down=False ")]
        first_acks = []
        for k in range(len(self.clients)):
            log = os.path.join(self.dir, f"client-{k}.log")
            times = [float(l.split()[0]) for l in open(log) if l.rstrip().endswith("first-ack")] if os.path.exists(log) else []
            for back in returns:
                after = [t for t in times if t >= back]
                if after:
                    first_acks.append(after[0] - back)
        first_acks.sort()
        # The backlog's drain: from the last return of the network to the last event stored, and how many were stored
        # in between (with the outage running to the recording's end, the backlog alone).
        last_return = max(returns, default=None)
        drained = [t for t in recorded_at if last_return is not None and t >= last_return]
        outboxes = [s["outbox_events"] if s else None for s in stats]
        done = [s for s in stats if s]
        latencies = sorted(s["latency_p95_ms"] for s in done)
        report.update({
            "events": events, "lost": lost, "duplicated": duplicated, "misordered_sessions": misordered, "audio_mismatches": audio_wrong,
            "outboxes_not_empty": sum(1 for o in outboxes if o != 0), "verify_exit": verify.returncode,
            "connections": sum(s["connections"] for s in done),
            "ack_latency_p50_ms_median": sorted(s["latency_p50_ms"] for s in done)[len(done) // 2] if done else None,
            "ack_latency_p95_ms_max": latencies[-1] if latencies else None,
            "ack_latency_p95_ms_median": latencies[len(latencies) // 2] if latencies else None,
            "steady_ack_latency_p95_ms_median": sorted(s.get("steady_latency_p95_ms", 0) for s in done)[len(done) // 2] if done else None,
            "steady_ack_latency_p95_ms_max": max((s.get("steady_latency_p95_ms", 0) for s in done), default=None),
            "outbox_peak_bytes_max": max((s["outbox_peak_bytes"] for s in done), default=None),
            "client_max_rss_kb_max": max((s["max_rss_kb"] for s in done), default=None),
            "seconds": round(self.elapsed, 1), "network_events": len(self.network.events),
            "network_returns": len(returns),
            "first_ack_after_return_p50_s": round(first_acks[len(first_acks) // 2], 3) if first_acks else None,
            "stored_after_last_return": len(drained),
            "last_stored_after_last_return_s": round(max(drained) - last_return, 3) if drained else None,
            "first_ack_after_return_p95_s": round(first_acks[min(len(first_acks) - 1, len(first_acks) * 95 // 100)], 3) if first_acks else None,
        })
        report["passed"] = (lost == 0 and duplicated == 0 and misordered == 0 and audio_wrong == 0 and not stuck
                            and report["outboxes_not_empty"] == 0 and verify.returncode == 0)
        if self.server and self.server.poll() is None:
            self.server.terminate()
            self.server.wait()
        return report


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bin_dir")
    parser.add_argument("--schedules", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--chunks", type=int, default=30)
    parser.add_argument("--pace-ms", type=int, default=100)
    parser.add_argument("--profile")
    parser.add_argument("--no-faults", action="store_true", help="the profile alone: for latency figures")
    parser.add_argument("--direct", action="store_true", help="clients connect to the server, not through the emulator (with --no-faults: "
                        "the loopback baseline)")
    parser.add_argument("--limit", type=float, default=120, help="seconds past the recording a schedule may take")
    parser.add_argument("--report")
    args = parser.parse_args()
    if args.direct and not args.no_faults:
        parser.error("--direct leaves the emulator out, so it takes --no-faults")
    reports = []
    for i in range(args.schedules):
        schedule = Schedule(args, args.seed + i)
        stuck = asyncio.run(schedule.run())
        report = schedule.check(stuck)
        report["faults_at"] = schedule.faults
        reports.append(report)
        print(json.dumps(report), flush=True)
    if args.report:
        with open(args.report, "w") as f:
            json.dump(reports, f, indent=1)
    sys.exit(0 if all(r["passed"] for r in reports) else 1)


if __name__ == "__main__":
    main()
