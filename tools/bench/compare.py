#!/usr/bin/env python3
"""Prints the EventLog results beside the C reference's as a Markdown table, with ratios.

    compare.py --c C1.jsonl [C2.jsonl …] --swift S1.jsonl [S2.jsonl …] [--one-core S.jsonl …]
               [--peer P1.jsonl …]

Each file is one run. With several runs per side (tools/bench/run alternates them), each cell is the
median and, in brackets, the range over the runs; a ratio is the median of the per-round ratios
(round i of EventLog over round i of C) with their range. --one-core adds the EventLog runs pinned to
one core (taskset), which show per-record efficiency apart from parallel scaling. --peer adds the
runs of other stores on the same workload (grdb-bench, sqlcipher-bench), grouped by the name each
prints, in a second table of EventLog against each.
"""
import json
import os
import statistics
import sys


def load(path):
    results = {}
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            record = json.loads(line)
            results[(record["scenario"], record.get("pass") or record.get("appenders"))] = record
    return results


def arguments():
    groups, current = {"--c": [], "--swift": [], "--one-core": [], "--peer": []}, None
    for argument in sys.argv[1:]:
        if argument in groups:
            current = argument
        elif current is None:
            sys.exit(__doc__)
        else:
            groups[current].append(load(argument))
    if not groups["--c"] or not groups["--swift"]:
        sys.exit(__doc__)
    peers = {}
    for run in groups["--peer"]:
        peers.setdefault(run[("peer", None)]["name"], []).append(run)
    return groups["--c"], groups["--swift"], groups["--one-core"], peers


def values(runs, scenario, field="per_second"):
    return [run[scenario][field] for run in runs if scenario in run]


def cell(numbers, digits=0):
    if not numbers:
        return ""
    text = f"{statistics.median(numbers):,.{digits}f}"
    if len(numbers) > 1:
        text += f" ({min(numbers):,.{digits}f}–{max(numbers):,.{digits}f})"
    return text


def ratio(swift, c):
    pairs = [s / b for s, b in zip(swift, c) if b]
    if not pairs:
        return ""
    text = f"{statistics.median(pairs):.2f}×"
    if len(pairs) > 1:
        text += f" ({min(pairs):.2f}–{max(pairs):.2f})"
    return text


def machine():
    model, cores = "unknown CPU", os.cpu_count()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return model, cores


c, swift, one_core, peers = arguments()
model, cores = machine()
print(f"Machine: {model}, {cores} cores. Runs: {len(c)} of the C reference and {len(swift)} of EventLog, alternating"
      + (f"; {len(one_core)} of EventLog on one core" if one_core else "") + ".")
print("Each cell: the median (and range) over the runs.\n")
header = "| measurement | C reference | EventLog | EventLog / C |"
rule = "|---|---|---|---|"
if one_core:
    header += " EventLog, one core | one core / C |"
    rule += "---|---|"
print(header)
print(rule)
for scenario, label in [(("append-small", None), "batched append, ~180-byte events (events/s)"),
                        (("scan-small", "warm"), "full scan, decrypt + decompress, small (events/s, warm)"),
                        (("append-pcm", None), "batched append, 3,200-byte PCM chunks (chunks/s)"),
                        (("scan-pcm", "warm"), "full scan, PCM chunks (chunks/s, warm)")]:
    a, b = values(c, scenario), values(swift, scenario)
    if a and b:
        row = f"| {label} | {cell(a)} | {cell(b)} | {ratio(b, a)} |"
        if one_core:
            o = values(one_core, scenario)
            row += f" {cell(o)} | {ratio(o, a)} |"
        print(row)
for name in ["small", "pcm"]:
    key = (f"append-{name}", None)
    if values(c, key) and values(swift, key):
        raw = swift[0][key]["raw_bytes"]
        print(f"| bytes on disk / raw payload, {name} | {c[0][key]['bytes_on_disk'] / raw:.3f} | "
              f"{swift[0][key]['bytes_on_disk'] / raw:.3f} | |" + (" | |" if one_core else ""))
durable = values(c, ("append-durable-one-per-txn", None))
appender_counts = sorted({count for run in swift for (name, count) in run if name == "group-commit"})
for count in appender_counts:
    key = ("group-commit", count)
    group = values(swift, key)
    print(f"| durable appends, {count} appenders of one event each (events/s); C: one sync per event | "
          f"{cell(durable)} | {cell(group)} | {ratio(group, durable) if durable else ''} |" + (" | |" if one_core else ""))
    p50, p99, worst = values(swift, key, "p50_ms"), values(swift, key, "p99_ms"), values(swift, key, "max_ms")
    print(f"| acknowledgement latency, {count} appenders: p50 / p99 / max (ms) | | "
          f"{cell(p50, 2)} / {cell(p99, 2)} / {cell(worst, 2)} | |" + (" | |" if one_core else ""))
opened = values(swift, ("open-small", None), "median_ms")
if opened:
    events = swift[0][("open-small", None)]["events"]
    print(f"| open a store of {events:,} events: median (ms) | | {cell(opened, 2)} | |" + (" | |" if one_core else ""))
verified, scanned = values(swift, ("verify-small", None)), values(c, ("scan-small", "warm"))
if verified:
    row = (f"| verify: leaf check, Merkle tree rebuilt and checked, decrypt, decompress, index (events/s); C: scan | "
           f"{cell(scanned)} | {cell(verified)} | {ratio(verified, scanned)} |")
    if one_core:
        o = values(one_core, ("verify-small", None))
        row += f" {cell(o)} | {ratio(o, scanned)} |"
    print(row)
tree = [run[("merkle-small", None)] for run in swift if ("merkle-small", None) in run]
if tree:
    print(f"| signed checkpoint of {tree[0]['events']:,} events: median (ms) | | "
          f"{cell([t['anchor_median_ms'] for t in tree], 3)} | |" + (" | |" if one_core else ""))
    print(f"| inclusion proof / consistency proof: median (ms) | | "
          f"{cell([t['inclusion_median_ms'] for t in tree], 3)} / {cell([t['consistency_median_ms'] for t in tree], 3)} | |"
          + (" | |" if one_core else ""))


def peer_table():
    names = list(peers)
    print("\nThe same workload in other stores, in the same rounds (--peer). EventLog / peer above 1 is EventLog faster.\n")
    for index, name in enumerate(names, 1):
        print(f"{index}. {name}")
    print()
    print("| measurement | EventLog | " + " | ".join(f"peer {i} | EventLog / peer {i}" for i in range(1, len(names) + 1)) + " |")
    print("|---|---|" + "---|---|" * len(names))

    def row(label, key, field="per_second", digits=0, lower_is_better=False):
        ours = values(swift, key, field)
        cells = [label, cell(ours, digits)]
        for name in names:
            theirs = values(peers[name], key, field)
            cells.append(cell(theirs, digits))
            cells.append(ratio(theirs, ours) if lower_is_better else ratio(ours, theirs))
        print("| " + " | ".join(cells) + " |")

    row("batched append, ~180-byte events (events/s)", ("append-small", None))
    row("full scan with decryption, small (events/s, warm)", ("scan-small", "warm"))
    row("transcript read: every event of one session of 1,000, opened (sessions/s)", ("transcript-small", None))
    row("transcript read: one session, p50 (ms)", ("transcript-small", None), "p50_ms", 2, lower_is_better=True)
    row("batched append, 3,200-byte PCM chunks (chunks/s)", ("append-pcm", None))
    row("full scan, PCM chunks (chunks/s, warm)", ("scan-pcm", "warm"))
    row("durable appends, 64 appenders of one event each (events/s)", ("group-commit", 64))
    row("durable appends, 64 appenders: p99 acknowledgement (ms)", ("group-commit", 64), "p99_ms", 2, lower_is_better=True)
    for name in ["small", "pcm"]:
        key = (f"append-{name}", None)
        cells = [f"bytes on disk / raw payload, {name}"]
        for runs in [swift] + [peers[n] for n in names]:
            record = runs[0].get(key)
            cells.append(f"{record['bytes_on_disk'] / record['raw_bytes']:.3f}" if record else "")
            if runs is not swift:
                cells.append("")
        print("| " + " | ".join(cells) + " |")


if peers:
    peer_table()
