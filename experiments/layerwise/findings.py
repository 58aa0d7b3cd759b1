#!/usr/bin/env python3
"""findings.py: the numbers experiments/README.md quotes from the layerwise study, computed from
its CSVs: per platform, model and GPU count, each scheme's simulated time over the best uniform
strategy's ('*': does not fit in memory; '-': no row), the best uniform strategy's name, and
simulated over analytic for SplitBrain and the search's answer; then SplitBrain's memory saving.
The README shows this output as an example, so tests/e2e_readme re-checks every number against
the committed results.
Usage: findings.py [DIR] (default: experiments/results/layerwise beside this script)."""
import csv
import os
import sys

SCHEMES = ("owt", "splitbrain", "ghp", "searched")


def ratio(num, den):
    """num / den to two decimals, '-' when either is missing."""
    if not num or not den:
        return "-"
    return "%.2f" % (float(num) / float(den))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "results", "layerwise")
    rows = {}
    order = []
    with open(os.path.join(d, "layerwise.csv"), newline="") as f:
        for r in csv.DictReader(f):
            k = (r["platform"], r["workload"], int(r["gpus"]))
            if k not in rows:
                rows[k] = {}
                order.append(k)
            name = "uniform" if r["strategy"].startswith("best uniform") else r["strategy"]
            rows[k][name] = r
    print("simulated time over the best uniform strategy's ('*': does not fit)")
    print("platform workload gpus  owt   splitbrain ghp   searched  sb_sim/an search_sim/an"
          "  best uniform")
    for k in order:
        s = rows[k]
        u = s.get("uniform", {})
        cells = []
        for name in SCHEMES:
            r = s.get(name, {})
            c = ratio(r.get("simulated_s"), u.get("simulated_s"))
            cells.append(c + ("*" if r.get("fits") == "false" else ""))
        sb, se = s.get("splitbrain", {}), s.get("searched", {})
        uname = u.get("strategy", "-")[len("best uniform ("):-1] or "-"
        print("%-8s %-8s %5d  %-5s %-10s %-5s %-9s %-9s %-13s %s" % (
            k[0], k[1], k[2], cells[0], cells[1], cells[2], cells[3],
            ratio(sb.get("simulated_s"), sb.get("analytic_s")),
            ratio(se.get("simulated_s"), se.get("analytic_s")), uname))
    print()
    print("SplitBrain's memory saving on VGG16 for CIFAR-10 against data parallelism")
    print("gpus group saving weights_saving")
    with open(os.path.join(d, "memory.csv"), newline="") as f:
        for r in csv.DictReader(f):
            w = 1 - float(r["weights_splitbrain_GB"]) / float(r["weights_data_GB"])
            print("%4s %5s %5.1f%% %13.1f%%" % (r["gpus"], r["group"], 100 * float(r["saving"]), 100 * w))


if __name__ == "__main__":
    main()
