#!/usr/bin/env python3
"""summarize.py: run.sh's accuracy tables, from its runs (experiments/validation/run.sh).

Usage: summarize.py HERE TMP OUT SUBSET [MEASURED]
  HERE    experiments/validation (rows.tsv)
  TMP     run.sh's work folder: run-<id>.args/.json/.err of every run, deepbench.tsv (every
          DeepBench kernel with the model's time and its part, fitted, held-out or unseen:
          experiments/compute/fit.c --dump)
  OUT     where results.tsv goes (every row: measured, predicted, accuracy, command)
  SUBSET  1: only the rows run (no "not expressed" list, no list of the files)
  MEASURED  the measured files: every one of them is listed with what is run of it and why
          the rest is not (`measured files`)
Prints the summary. Accuracy = 1 - |predicted - measured| / measured (negative when off by more
than the measurement). Rank agreement: within a group of rows that compete (rows.tsv's group:
ParaDL's strategies at one GPU count, MLPerf's systems at one GPU count, DLE's networks on one
system, precision and GPU count), the pairs of rows the measurements order (ties left out) that
the predictions order alike. Rows a dataset's runtime names as its calibration (the
runtime file's `calibration = ID ...`, workloads/runtime/README.md), and those datasets.tsv's
`calibration` column names for its machine descriptions, are left out of every
accuracy figure and listed apart.
"""

import csv
import json
import os
import re
import statistics
import sys

DATASETS = ["deepbench", "deepbench-unseen", "dle-pytorch", "dle-tensorflow1", "mlperf",
            "paradl", "deepbench-allreduce"]


def table(path):
    with open(path) as f:
        return list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"))


def training_samples(here, workload):
    """The samples of an epoch of the workload (workloads/NAME.xml, <dataset samples=N>)."""
    with open(os.path.join(here, "..", "..", "workloads", workload + ".xml")) as f:
        m = re.search(r'<dataset\b[^>]*\bsamples="([0-9]+)"', f.read())
    if not m:
        raise ValueError("workloads/%s.xml: no <dataset samples=...>" % workload)
    return int(m.group(1))


def run_result(here, tmp, r):
    """(predicted, status) of row r's run. Units: img/s, the global batch over the iteration;
    epoch img/s, the training set's images over an epoch of iterations_per_epoch (the samples
    over the batch, rounded up) whole iterations, as MLPerf's logs time their epochs (the last
    batch filled to full size: make_rows.py says where); s, the seconds of the iteration's
    communication (DeepBench's allreduce rows: a workload whose iteration is one allreduce);
    otherwise (s/epoch) the epoch's seconds."""
    base = os.path.join(tmp, "run-" + r["id"].replace(":", "_").replace("/", "_"))
    if not os.path.exists(base + ".args"):
        return None, "not run"
    try:
        with open(base + ".json") as f:
            d = json.load(f)
    except (OSError, ValueError):
        err = open(base + ".err").read().strip().splitlines() if os.path.exists(
            base + ".err") else []
        return None, "failed: " + (err[0] if err else "no output")
    if r["unit"] == "img/s":
        return float(r["batch"]) / d["iteration"]["total_s"], "ok"
    if r["unit"] == "epoch img/s":
        try:
            samples = training_samples(here, r["workload"])
        except (OSError, ValueError) as e:
            return None, "failed: %s" % e
        return samples / (d["iterations_per_epoch"] * d["iteration"]["total_s"]), "ok"
    if r["unit"] == "s":
        return d["iteration"]["comm_s"], "ok"
    return d["epoch"]["total_s"], "ok"


def command(tmp, r, root):
    """The row's hybridsim command, paths of the checkout (a workload file) relative to it."""
    base = os.path.join(tmp, "run-" + r["id"].replace(":", "_").replace("/", "_"))
    if not os.path.exists(base + ".args"):
        return ""
    return "hybridsim " + " ".join(open(base + ".args").read().split("\n")).strip().replace(
        root + os.sep, "")


def accuracy(predicted, measured):
    return 1 - abs(predicted - measured) / measured


def calibration_ids(here):
    """{row id: what was calibrated on it}: the rows each dataset's runtime was calibrated on,
    and those datasets.tsv names for a choice in the dataset's machine descriptions."""
    ids = {}
    for d in table(os.path.join(here, "datasets.tsv")):
        ids.update((i, d["dataset"] + "'s machines (systems.tsv)")
                   for i in (d.get("calibration") or "").split())
        if not d["runtime"]:
            continue
        path = os.path.join(here, "..", "..", "workloads", "runtime", d["runtime"] + ".rt")
        with open(path) as f:
            for line in f:
                key, _, value = line.partition("=")
                if key.strip() == "calibration" and not line.lstrip().startswith("#"):
                    ids.update((i, d["runtime"]) for i in value.split())
    return ids


# DeepBench's kernels by their part of compute_fit's data: (dataset, note). The fitted ones
# are no dataset; "unseen" are the kernels of the GPUs the fit never saw, every one predicted.
DEEPBENCH_PARTS = {"held-out": ("deepbench", "held out of the fit"),
                   "unseen": ("deepbench-unseen", "a GPU never fitted")}


def deepbench_rows(tmp):
    rows = []
    for k in table(os.path.join(tmp, "deepbench.tsv")):
        if k["part"] not in DEEPBENCH_PARTS:
            continue
        dataset, note = DEEPBENCH_PARTS[k["part"]]
        m, p = float(k["measured_s"]), float(k["model_s"])
        label = "DeepBench %s %s %s row %s" % (k["gpu"], k["precision"], k["kernel"],
                                                k["sheet_row"])
        rows.append({"dataset": dataset, "id": "deepbench-%s.tsv row %s %s %s" % (
            k["gpu"], k["sheet_row"], k["precision"], k["kernel"]), "label": label,
            "group": "", "measured": m, "predicted": p, "unit": "s", "status": "ok",
            "accuracy": accuracy(p, m), "command": "compute_fit (experiments/compute/fit.sh)",
            "note": note, "reason": ""})
    return rows


def per_gpu_lines(rows):
    """deepbench-unseen per GPU: kernels, median accuracy, median model / measured."""
    by_gpu = {}
    for r in rows:
        if r["dataset"] == "deepbench-unseen":
            by_gpu.setdefault(r["id"].split()[0], []).append(r)
    lines = []
    for name, mine in sorted(by_gpu.items()):
        lines.append("  %-28s %5d %7.3f %7.3f" % (
            name, len(mine), statistics.median(r["accuracy"] for r in mine),
            statistics.median(r["predicted"] / r["measured"] for r in mine)))
    return lines


def rank_agreement(rows):
    """(concordant pairs, pairs, groups, groups whose every pair concords)."""
    groups = {}
    for r in rows:
        if r["group"] and r["status"] == "ok":
            groups.setdefault(r["group"], []).append(r)
    agree = pairs = held = counted = 0
    for members in groups.values():
        ok = n = 0
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                a, b = members[i], members[j]
                if a["measured"] == b["measured"]:
                    continue
                n += 1
                ok += (a["measured"] < b["measured"]) == (a["predicted"] < b["predicted"])
        if n:
            counted += 1
            held += ok == n
        agree, pairs = agree + ok, pairs + n
    return agree, pairs, counted, held


def stats_line(name, rows):
    ok = [r for r in rows if r["status"] == "ok"]
    if not ok:
        return "%-24s %5d %7s" % (name, 0, "-")
    acc = [r["accuracy"] for r in ok]
    agree, pairs, groups, held = rank_agreement(ok)
    rank = "%d/%d pairs, %d/%d groups" % (agree, pairs, held, groups) if pairs else "-"
    return "%-24s %5d %7.3f %7.3f %7.3f  %s" % (name, len(ok), statistics.mean(acc),
                                                 statistics.median(acc), min(acc), rank)


# Measured files no rule runs, and why (the per-file rules: make_rows.py's rows, the compute
# fit's DeepBench GPUs).
DEEPBENCH_UNFITTED = "not run: GPU %s not in the device table (device.h; compute_fit reads " \
    "V100, P100, T4 and five older NVIDIA GPUs: experiments/compute/fit.c)"
DEEPBENCH_AMD = "not run: MIOpen's kernels, which the model cannot express (experiments/" \
    "README.md, \"validation\")"
UNRUN = {}  # every file has a rule now; a new file gets its line here until it has one


def file_lines(measured, rows, deepbench):
    """What is run of every measured file, and why the rest is not."""
    per_file = {}
    for r in rows:
        if r["dataset"] in ("deepbench", "deepbench-unseen"):
            continue
        f = per_file.setdefault(r["id"].split(":")[0], {"run": 0, "calibration": 0, "not": 0})
        key = "not" if r["status"] == "not expressed" else \
            "calibration" if r["status"].startswith("calibration") else "run"
        f[key] += 1
    kernels = {}
    for k in deepbench:
        c = kernels.setdefault("deepbench-%s.tsv" % k["gpu"], {})
        c[k["part"]] = c.get(k["part"], 0) + 1
    lines = []
    for name in sorted(os.listdir(measured)):
        if not name.endswith(".tsv"):
            continue
        if name in per_file:
            f = per_file[name]
            what = "%d rows run" % f["run"]
            if f["calibration"]:
                what += ", %d calibration" % f["calibration"]
            if f["not"]:
                what += ", %d not expressed (above)" % f["not"]
        elif name in kernels and "unseen" in kernels[name]:
            what = "%d kernels: none fitted on, every one predicted (deepbench-unseen)" % (
                sum(kernels[name].values()))
        elif name in kernels:
            fitted, held = kernels[name].get("fitted", 0), kernels[name].get("held-out", 0)
            what = "%d kernels: %d fitted on, %d held out and compared (deepbench)" % (
                fitted + held, fitted, held)
        elif name in UNRUN:
            what = UNRUN[name]
        elif name.startswith("deepbench-AMD_"):
            what = DEEPBENCH_AMD
        elif name.startswith("deepbench-"):
            what = DEEPBENCH_UNFITTED % name[len("deepbench-"):-len(".tsv")]
        else:
            what = "not run: no rule reads it (make_rows.py, experiments/compute/fit.c)"
        lines.append("  %-28s %s" % (name, what))
    return lines


def fmt(v):
    return "%.6g" % v if isinstance(v, float) else str(v)


def main(argv):
    here, tmp, out, subset = argv[0], argv[1], argv[2], argv[3] == "1"
    rows = []
    root = os.path.dirname(os.path.dirname(os.path.abspath(here)))
    calibration = calibration_ids(here)
    for r in table(os.path.join(here, "rows.tsv")):
        r = dict(r)
        r["measured"] = float(r["measured"]) if r["measured"] else ""  # none: a reason
        if r["reason"]:
            r.update(predicted="", status="not expressed", accuracy="", command="")
        else:
            p, status = run_result(here, tmp, r)
            if status == "not run":
                continue
            r.update(predicted=p if p is not None else "", status=status,
                     accuracy=accuracy(p, r["measured"]) if p is not None else "",
                     command=command(tmp, r, root))
            if status == "ok" and r["id"] in calibration:
                r["status"] = "calibration of " + calibration[r["id"]]
        rows.append(r)
    every_kernel = table(os.path.join(tmp, "deepbench.tsv"))
    rows = deepbench_rows(tmp) + rows
    cols = ["dataset", "id", "label", "group", "measured", "predicted", "unit", "accuracy",
            "status", "reason", "note", "command"]
    with open(os.path.join(out, "results.tsv.tmp"), "w") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([fmt(r[c]) for c in cols])
    os.replace(os.path.join(out, "results.tsv.tmp"), os.path.join(out, "results.tsv"))

    print("hybridsim against measured runs (experiments/validation/run.sh)")
    print("accuracy = 1 - |predicted - measured| / measured; deepbench: the kernels held out "
          "of the compute model's fit;\ndeepbench-unseen: the kernels of five GPUs the fit never "
          "saw (1080 Ti, Titan X Pascal, Titan Xp, Titan X\nMaxwell, M40), every one predicted; "
          "deepbench-allreduce: DeepBench's bare allreduces; all but deepbench:\nthe training "
          "runs (no DeepBench file)\n")
    print("%-24s %5s %7s %7s %7s  %s" % ("dataset", "rows", "mean", "median", "min",
                                         "rank agreement"))
    means = []
    for d in DATASETS:
        mine = [r for r in rows if r["dataset"] == d]
        print(stats_line(d, mine))
        ok = [r["accuracy"] for r in mine if r["status"] == "ok"]
        if ok:
            means.append(statistics.mean(ok))
    print(stats_line("all but deepbench", [r for r in rows
                                           if not r["dataset"].startswith("deepbench")]))
    if means:
        print("%-24s %5s %7.3f" % ("mean of the datasets", "", statistics.mean(means)))

    unseen = per_gpu_lines(rows)
    if unseen:
        print("\ndeepbench-unseen per GPU (kernels, median accuracy, median predicted / "
              "measured):")
        for line in unseen:
            print(line)

    print("\nper row (predicted, measured; DeepBench in results.tsv):")
    for r in rows:
        if r["dataset"] in ("deepbench", "deepbench-unseen") or r["status"] != "ok":
            continue
        print("  %-16s %-64s %10.4g %10.4g %s %6.3f" % (r["dataset"], r["label"][:64],
                                                       r["predicted"], r["measured"],
                                                       r["unit"], r["accuracy"]))
    calibrated = [r for r in rows if r["status"].startswith("calibration")]
    if calibrated:
        print("\ncalibration rows (left out of every figure above):")
        for r in calibrated:
            print("  %-16s %-64s %10.4g %10.4g %s %s" % (r["dataset"], r["label"][:64],
                                                        r["predicted"], r["measured"],
                                                        r["unit"], r["status"]))
    failed = [r for r in rows if r["status"].startswith("failed")]
    if failed:
        print("\nfailed runs:")
        for r in failed:
            print("  %s %s: %s" % (r["dataset"], r["label"], r["status"]))
    if not subset:
        print("\nnot expressed:")
        reasons = {}
        for r in rows:
            if r["status"] == "not expressed":
                reasons.setdefault((r["dataset"], r["reason"]), []).append(r["id"])
        for (d, why), ids in sorted(reasons.items()):
            print("  %-16s %3d rows: %s" % (d, len(ids), why))
    if not subset and len(argv) > 4:
        print("\nmeasured files (every one: what is run of it, and why the rest is not):")
        for line in file_lines(argv[4], rows, every_kernel):
            print(line)
    notes = sorted(set(n for r in rows if r["status"] == "ok" for n in r["note"].split("; ")
                       if n))
    if notes:
        print("\ncaveats of the rows run (results.tsv's note column):")
        for n in notes:
            print("  " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
