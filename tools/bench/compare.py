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
            results[(record["scenario"], record.get("pass") or record.get("appenders"))] = record
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
durable = c.get(("append-durable-one-per-txn", None))
for group in [r for (name, _), r in swift.items() if name == "group-commit"]:
    baseline = f"{durable['per_second']:,.0f}" if durable else ""
    ratio = f"{group['per_second'] / durable['per_second']:.1f}×" if durable else ""
    print(f"| durable appends, {group['appenders']} appenders of one event each (events/s); C: one sync per event | "
          f"{baseline} | {group['per_second']:,.0f} | {ratio} |")
    print(f"| acknowledgement latency, {group['appenders']} appenders: p50 / p99 / max (ms) | | "
          f"{group['p50_ms']:.2f} / {group['p99_ms']:.2f} / {group['max_ms']:.2f} | |")
opened = swift.get(("open-small", None))
if opened:
    print(f"| open a store of {opened['events']:,} events: median / max (ms) | | "
          f"{opened['median_ms']:.2f} / {opened['max_ms']:.2f} | |")
verified = swift.get(("verify-small", None))
scanned = c.get(("scan-small", "warm"))
if verified:
    ratio = f"{verified['per_second'] / scanned['per_second']:.2f}×" if scanned else ""
    print(f"| verify: leaf check, Merkle tree rebuilt and checked, decrypt, decompress, index (events/s); C: scan | "
          f"{scanned['per_second']:,.0f} | {verified['per_second']:,.0f} | {ratio} |")
tree = swift.get(("merkle-small", None))
if tree:
    print(f"| signed checkpoint of {tree['events']:,} events: median / max (ms) | | "
          f"{tree['anchor_median_ms']:.3f} / {tree['anchor_max_ms']:.3f} | |")
    print(f"| inclusion proof: median / max (ms); consistency proof: median (ms) | | "
          f"{tree['inclusion_median_ms']:.3f} / {tree['inclusion_max_ms']:.3f}; {tree['consistency_median_ms']:.3f} | |")
