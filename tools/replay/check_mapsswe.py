#!/usr/bin/env python3
"""Runs NIST sclite's sc_stats (SCTK, Debian's sctk) MAPSSWE test on the alignments `sessionstore compare`
made, and checks that its segment count and statistic are those `compare --baseline A --candidate B` reports.

Reads the label comparison's JSON on standard input. For each session row it asks `sessionstore compare
SOURCE RUN --format json` for the word-by-word alignment of the baseline's and the candidate's run, writes
both systems' alignments as sclite SGML (the format `sclite -o sgml` writes and `sc_stats -p` reads), runs
`sc_stats -t mapsswe -v` on them, and compares its "# segs" and "Z Stat" with `mapsswe_segments` and
`mapsswe_statistic`. The alignments are sessionstore's (jiwer's choice among equally short alignments), so
this checks the segmentation and the statistic; sclite aligning the words itself may choose other
equally short alignments, and so other segments (docs/REPLAY.md).

    sessionstore compare --baseline v1 --candidate v2 --format json \\
        | python3 tools/replay/check_mapsswe.py --sessionstore sessionstore --store S --key-file K
"""
import argparse, json, os, re, subprocess, sys, tempfile

SC_STATS = "/usr/lib/sctk/bin/sc_stats"
CODES = {"equal": "C", "substitute": "S", "delete": "D", "insert": "I"}


def alignment(options, source, run):
    command = [options.sessionstore, "compare", source, run, "--format", "json", "--max-wer", "1000000"]
    if options.store:
        command += ["--store", options.store]
    if options.key_file:
        command += ["--key-file", options.key_file]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"check_mapsswe: {' '.join(command)} failed: {result.stderr.strip()}")
    return [step for segment in json.loads(result.stdout)["segments"] for step in segment["alignment"]]


def quoted(word):
    return "" if word is None else '"' + word + '"'


def sgml(title, paths):
    lines = [f'<SYSTEM title="{title}" ref_fname="ref" hyp_fname="{title}" creation_date="" format="2.4" '
             'frag_corr="FALSE" opt_del="FALSE" weight_ali="FALSE" weight_filename="">']
    for index, steps in enumerate(paths):
        lines.append(f'<SPEAKER id="spk{index}">')
        lines.append(f'<PATH id="(spk{index}_1)" word_cnt="{len(steps)}" sequence="{index}">')
        lines.append(":".join(f'{CODES[step["op"]]},{quoted(step["reference"])},{quoted(step["hypothesis"])}' for step in steps))
        lines.append("</PATH>")
        lines.append("</SPEAKER>")
    lines.append("</SYSTEM>")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessionstore", default="sessionstore")
    parser.add_argument("--store")
    parser.add_argument("--key-file")
    options = parser.parse_args()
    document = json.load(sys.stdin)
    baseline = [alignment(options, row["source"], row["baseline_run"]) for row in document["sessions"]]
    candidate = [alignment(options, row["source"], row["candidate_run"]) for row in document["sessions"]]
    with tempfile.TemporaryDirectory() as directory:
        text = sgml("base", baseline) + sgml("cand", candidate)
        result = subprocess.run([SC_STATS, "-p", "-t", "mapsswe", "-v", "-n", "result", "-O", directory],
                                input=text.encode(), capture_output=True)
        report_path = os.path.join(directory, "result.stats.mapsswe")
        if result.returncode != 0 or not os.path.exists(report_path):
            sys.exit(f"check_mapsswe: sc_stats failed: {result.stdout.decode(errors='replace')} {result.stderr.decode(errors='replace')}")
        report = open(report_path, encoding="utf-8", errors="replace").read()
    found = re.search(r"\(# segs: (\d+)\).*\(Z Stat: +(-?[\d.]+)\)", report)
    if not found:
        sys.exit("check_mapsswe: no MTCH_PR_RESULTS line in sc_stats' report:\n" + report)
    segments, statistic = int(found.group(1)), float(found.group(2))
    agrees = segments == document["mapsswe_segments"] and abs(statistic - document["mapsswe_statistic"]) <= 0.0005 + 1e-9
    print(f"segments: sessionstore {document['mapsswe_segments']}, sc_stats {segments}")
    print(f"statistic: sessionstore {document['mapsswe_statistic']}, sc_stats {statistic}" + ("" if agrees else "  DISAGREES"))
    sys.exit(0 if agrees else 1)


if __name__ == "__main__":
    main()
