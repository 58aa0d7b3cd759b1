#!/usr/bin/env python3
"""call_cost.py: the fidelity study's sensitivity to a cost hybridsim does not model, the
framework's host time around each MPI call of the measured runs (ChainerMN exchanges the arrays'
shapes as pickled objects and synchronises the GPU before every allgather, alltoall and halo
send or receive). Not a mechanism: no source gives the cost, so it is added here by hand, c
seconds a call, to the default predictions, to show what it would take to reach a mean accuracy
and what it would do to the rows and to the code's own logs.

Calls an iteration come from each default prediction's JSON: a layer's pass that communicates
is one call (a gather or an alltoall), or two to four under spatial parallelism (a rank's halo
sends and receives, up and down), so each row has a fewest and a most.

Usage: call_cost.py MEASURED.tsv JOBDIR LOGS.tsv LOGJOBDIR  (the directories hold N.job
"row|predictor|command" and N.json, as fidelity/run.sh leaves them). Prints the table."""
import glob
import json
import os
import sys

COSTS_S = [0.0, 0.1e-3, 0.2e-3, 0.3e-3, 0.4e-3, 0.5e-3]
PASSES = ("forward", "backward_input", "backward_weight")


def default_predictions(jobdir):
    """{row: (iteration_s, iterations_per_epoch, fewest calls, most calls)} of the defaults."""
    out = {}
    for job in glob.glob(os.path.join(jobdir, "*.job")):
        row, name, cmd = open(job).read().rstrip("\n").split("|", 2)
        if name != "default":
            continue
        try:
            j = json.load(open(job[:-4] + ".json"))
        except (ValueError, OSError):
            continue
        passes = sum(1 for l in j.get("layers", []) for p in PASSES if l[p]["comm_s"] > 0)
        spatial = "spatial" in cmd.split(" -s ")[1].split()[0]
        fewest, most = (2 * passes, 4 * passes) if spatial else (passes, passes)
        out[row] = (j["iteration"]["total_s"], j["iterations_per_epoch"], fewest, most)
    return out


def measured_rows(tsv, col):
    """{key: measured value}: the epoch total of the table (col 8) or a log's iteration (7)."""
    out = {}
    for line in open(tsv):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        key = f"{f[1]}/{f[2]}" if col == 8 else f[8]
        out[key] = (float(f[col]), f[0], f[1], int(f[2]))
    return out


def accuracy(pred, meas):
    return 1 - abs(pred - meas) / meas


def main(measured_tsv, jobdir, logs_tsv, logjobdir):
    table, pred = measured_rows(measured_tsv, 8), default_predictions(jobdir)
    logs, log_pred = measured_rows(logs_tsv, 7), default_predictions(logjobdir)
    rows = [r for r in table if r in pred]
    if len(rows) != len(table):
        print(f"\nA host cost per framework MPI call: not shown ({len(table) - len(rows)} rows "
              "without a default prediction)")
        return
    shown = [r for r in ("data+filter/32", "filter/32", "data+spatial/32") if r in pred]
    ds_logs = [k for k, v in logs.items() if v[1] == "resnet50" and v[2] == "data+spatial"
               and v[3] <= 256 and k in log_pred]
    print("\nA host cost per framework MPI call (not modelled: a sensitivity, c added by hand to "
          "the defaults)\n")
    print("calls an iteration: " + ", ".join(
        f"{r} {pred[r][2]}" + (f"-{pred[r][3]}" if pred[r][3] != pred[r][2] else "")
        for r in rows if r.endswith("/32")))
    head = f"{'c a call':>10s} {'mean (fewest)':>14s} {'mean (most)':>12s}"
    head += "".join(f" {r:>16s}" for r in shown) + f" {'d+s logs over':>16s}"
    print(head)
    for c in COSTS_S:
        means = []
        for k in (2, 3):
            a = [accuracy((pred[r][0] + pred[r][k] * c) * pred[r][1], table[r][0]) for r in rows]
            means.append(sum(a) / len(a))
        cells = []
        for r in shown:
            lo = accuracy((pred[r][0] + pred[r][2] * c) * pred[r][1], table[r][0])
            hi = accuracy((pred[r][0] + pred[r][3] * c) * pred[r][1], table[r][0])
            cells.append(f"{min(lo, hi):.3f}-{max(lo, hi):.3f}" if lo != hi else f"{lo:.3f}")
        over = [(log_pred[k][0] + log_pred[k][n] * c) / logs[k][0] - 1
                for k in ds_logs for n in (2, 3)]
        span = f"{100 * min(over):+.0f}..{100 * max(over):+.0f}%" if over else "-"
        print(f"{1e3 * c:8.1f}ms {means[0]:14.3f} {means[1]:12.3f}" +
              "".join(f" {x:>16s}" for x in cells) + f" {span:>16s}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print("usage: call_cost.py MEASURED.tsv JOBDIR LOGS.tsv LOGJOBDIR", file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
