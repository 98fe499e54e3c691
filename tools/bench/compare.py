#!/usr/bin/env python3
"""Prints the EventLog results beside the C reference's as a Markdown table, with ratios."""
import json
import sys


def load(path):
    results = {}
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            record = json.loads(line)
            results[(record["scenario"], record.get("pass"))] = record
    return results


c, swift = load(sys.argv[1]), load(sys.argv[2])
print("| measurement | C reference | EventLog | EventLog / C |")
print("|---|---|---|---|")
for scenario, label in [(("append-small", None), "batched append, ~180-byte events (events/s)"),
                        (("scan-small", "warm"), "full scan, decrypt + decompress, small (events/s, warm)"),
                        (("append-pcm", None), "batched append, 3,200-byte PCM chunks (chunks/s)"),
                        (("scan-pcm", "warm"), "full scan, PCM chunks (chunks/s, warm)")]:
    if scenario in c and scenario in swift:
        a, b = c[scenario]["per_second"], swift[scenario]["per_second"]
        print(f"| {label} | {a:,.0f} | {b:,.0f} | {b / a:.2f}× |")
for name in ["small", "pcm"]:
    key = (f"append-{name}", None)
    if key in c and key in swift:
        raw = swift[key]["raw_bytes"]
        print(f"| bytes on disk / raw payload, {name} | {c[key]['bytes_on_disk'] / raw:.3f} | "
              f"{swift[key]['bytes_on_disk'] / raw:.3f} | |")
group, durable = swift.get(("group-commit", None)), c.get(("append-durable-one-per-txn", None))
if group and durable:
    print(f"| durable appends: C one sync per event vs EventLog group commit, {group['appenders']} appenders (events/s) | "
          f"{durable['per_second']:,.0f} | {group['per_second']:,.0f} | {group['per_second'] / durable['per_second']:.1f}× |")
    print(f"| group commit acknowledgement latency p50 / p99 / max (ms) | | "
          f"{group['p50_ms']:.2f} / {group['p99_ms']:.2f} / {group['max_ms']:.2f} | |")
opened = swift.get(("open-small", None))
if opened:
    print(f"| open a store of {opened['events']:,} events: median / max (ms) | | "
          f"{opened['median_ms']:.2f} / {opened['max_ms']:.2f} | |")
