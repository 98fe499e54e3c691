#!/usr/bin/env python3
"""Recomputes `sessionstore compare --baseline A --candidate B --format json` with scipy and numpy.

Reads the comparison's JSON on standard input; from its per-session error counts (`sessions`) it computes
the pooled word error rates and their difference, the sign test (scipy.stats.binomtest), Wilcoxon's
signed-rank test (scipy.stats.wilcoxon, its defaults) and a bootstrap interval over sessions in numpy
(same number of draws and confidence; other random draws). The ends of two bootstraps from different seeds differ
by chance: the tolerance is derived from that spread, measured by repeating numpy's bootstrap with 30 seeds (four
standard deviations of the difference of two independent draws; --tolerance sets one instead). Prints each figure
both ways and exits 1 when any disagrees.

    sessionstore compare --baseline v1 --candidate v2 --format json | python3 tools/replay/check_comparison.py
"""
import argparse, json, sys

import numpy as np
from scipy import stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tolerance", type=float, help="how far the bootstrap ends may differ (default: from their spread)")
    options = parser.parse_args()
    document = json.load(sys.stdin)
    sessions = document["sessions"]
    baseline = np.array([row["baseline_errors"] for row in sessions])
    candidate = np.array([row["candidate_errors"] for row in sessions])
    words = np.array([row["reference_words"] for row in sessions])

    expected = {
        "baseline.word_error_rate": baseline.sum() / words.sum(),
        "candidate.word_error_rate": candidate.sum() / words.sum(),
        "difference": (candidate.sum() - baseline.sum()) / words.sum(),
    }
    better, worse = int((candidate < baseline).sum()), int((candidate > baseline).sum())
    expected["p_sign"] = stats.binomtest(better, better + worse, 0.5).pvalue if better + worse else 1.0
    differences = candidate - baseline
    expected["p_wilcoxon"] = stats.wilcoxon(differences).pvalue if differences.any() else 1.0

    tail = (1 - document["confidence"]) / 2 * 100

    def bootstrap(seed):
        draws = np.random.default_rng(seed).integers(0, len(sessions), size=(document["resamples"], len(sessions)))
        sampled = (candidate[draws] - baseline[draws]).sum(axis=1) / words[draws].sum(axis=1)
        return np.percentile(sampled, [tail, 100 - tail])

    low, high = bootstrap(document["seed"])
    ends = np.array([bootstrap(document["seed"] + 1 + k) for k in range(30)])
    spread = ends.std(axis=0, ddof=1)
    # Two independent bootstraps' ends differ with a standard deviation of sqrt(2) times one's.
    tolerances = [options.tolerance] * 2 if options.tolerance is not None else [max(4 * np.sqrt(2) * sd, 1e-6) for sd in spread]

    failed = False
    for key, value in expected.items():
        part = document
        for name in key.split("."):
            part = part[name]
        agrees = abs(part - value) <= 1e-6
        failed |= not agrees
        print(f"{key}: sessionstore {part}, scipy/numpy {value:.6f}" + ("" if agrees else "  DISAGREES"))
    for (key, value), tolerance in zip((("ci_low", low), ("ci_high", high)), tolerances):
        agrees = abs(document[key] - value) <= tolerance
        failed |= not agrees
        print(f"{key}: sessionstore {document[key]}, numpy bootstrap {value:.6f} (within {tolerance:.4f})" + ("" if agrees else "  DISAGREES"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
