#!/usr/bin/env python3
"""Word error rates and alignments by PyPI's jiwer, for comparison with SessionStore's WordAlignment.

    jiwer_alignment.py CASES.json

CASES.json is a list of {"reference": [words], "hypothesis": [words]} (words already normalised, no
spaces). Prints one JSON list: for each case {"substitutions", "deletions", "insertions", "hits", "wer",
"steps": [[kind, ref_start, ref_end, hyp_start, hyp_end], ...]} as jiwer.process_words gives them.
"""
import json
import sys

import jiwer


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        cases = json.load(handle)
    results = []
    for case in cases:
        output = jiwer.process_words(" ".join(case["reference"]), " ".join(case["hypothesis"]))
        results.append({
            "substitutions": output.substitutions,
            "deletions": output.deletions,
            "insertions": output.insertions,
            "hits": output.hits,
            "wer": output.wer,
            "steps": [[chunk.type, chunk.ref_start_idx, chunk.ref_end_idx, chunk.hyp_start_idx, chunk.hyp_end_idx]
                      for chunk in output.alignments[0]],
        })
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
