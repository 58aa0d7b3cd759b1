#!/usr/bin/env python3
"""code_logs.py: the fidelity study's second check, the measured code's own logged iterations
(code-logs.tsv) against hybridsim's predictions of them.

Usage: code_logs.py LOGS.tsv JOBDIR OUT.csv  (JOBDIR holds N.job "log|predictor|command" and
N.json, the command's output). Prints the table (seconds an iteration, accuracy per row, mean
per strategy) and writes every prediction to OUT.csv."""
import csv
import glob
import json
import os
import sys


def main(tsv, jobdir, out_csv):
    rows = []
    for line in open(tsv):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        rows.append({"model": f[0], "strategy": f[1], "p": int(f[2]), "iter_s": float(f[7]),
                     "log": f[8]})
    pred, names = {}, []
    for job in glob.glob(os.path.join(jobdir, "*.job")):
        log, name, _ = open(job).read().rstrip("\n").split("|", 2)
        if name not in names:
            names.append(name)
        try:
            pred[(log, name)] = json.load(open(job[:-4] + ".json"))["iteration"]["total_s"]
        except (ValueError, KeyError, OSError):
            pass
    names.sort(key=lambda n: ("default", "analytic", "halo=sendrecv").index(n))
    acc = lambda r, n: (1 - abs(pred[(r["log"], n)] - r["iter_s"]) / r["iter_s"]
                        if (r["log"], n) in pred else None)
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "strategy", "gpus", "log", "predictor", "measured_iter_s",
                    "predicted_iter_s", "accuracy"])
        for r in rows:
            for n in names:
                if (r["log"], n) in pred:
                    w.writerow([r["model"], r["strategy"], r["p"], r["log"], n, r["iter_s"],
                                f"{pred[(r['log'], n)]:.6g}", f"{acc(r, n):.4f}"])
    print("\nThe code's own logs (github.com/ankahira/paraDL at cc23ef0; code-logs.tsv): seconds"
          " an iteration, and accuracy\n")
    print(f"{'row':48s} {'measured':>9s} " + " ".join(f"{n:>22s}" for n in names))
    for r in rows:
        cells = [f"{pred[(r['log'], n)]:11.4f} {acc(r, n):10.3f}" if acc(r, n) is not None
                 else f"{'-':>22s}" for n in names]
        label = f"{r['model']} {r['strategy']}/{r['p']} {os.path.basename(r['log'])}"
        print(f"{label:48s} {r['iter_s']:9.4f} " + " ".join(cells))
    for m, s in sorted({(r["model"], r["strategy"]) for r in rows}):
        cells = []
        for n in names:
            a = [acc(r, n) for r in rows
                 if (r["model"], r["strategy"]) == (m, s) and acc(r, n) is not None]
            cells.append(f"{sum(a) / len(a):22.3f}" if a else f"{'-':>22s}")
        print(f"{'mean, ' + m + ' ' + s:48s} {'':9s} " + " ".join(cells))


if __name__ == "__main__":
    main(*sys.argv[1:4])
