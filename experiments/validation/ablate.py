#!/usr/bin/env python3
"""ablate.py: ablate.sh's steps that are not runs (experiments/validation/ablate.sh).

  ablate.py variants ABLATIONS.TSV [NAME ...]
      checks ablations.tsv and prints its variants (those named), one a line:
      name, kind, sets, where, source, tab-separated; `where` of `all` expanded to every runtime the
      validation's rows run under (datasets.tsv, rows.tsv)
  ablate.py patch-fit KERNEL_TIME.C FIT_OUTPUT MECHANISMS
      rewrites a copy of workloads/compute/kernel_time.c in place with the efficiencies
      compute_fit printed (its "fitted:" block, FIT_OUTPUT) and MECHANISMS in force
      (comma-separated, `none`; the fit's own old-cudnn-call has no bit of the model's)
  ablate.py runtime-copy RUNTIME_FILE SETS SOURCE OUT_FILE
      writes RUNTIME_FILE with each `key = value` of SETS (`;`-separated) set, under a
      `# source:` comment giving SOURCE: the key's line replaced where the file sets it, added
      at the end otherwise
  ablate.py summary OUT VARIANT=RESULTS_TSV ...
      writes OUT/summary.tsv (a line a variant and dataset: rows, mean accuracy, median
      error, rows at accuracy >= 0.80), OUT/rows.tsv (every training row's prediction under
      each variant) and OUT/summary.txt (render's tables)
  ablate.py render SUMMARY.TSV
      prints summary.txt's tables from summary.tsv (tests/validation_ablation.sh compares)

Every error: a message naming the file and what is wrong, exit status 2.
"""
import csv
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOOD = 0.80  # the accuracy summary.tsv counts rows at or above
DATASETS = ["deepbench", "deepbench-unseen", "dle-pytorch", "dle-tensorflow1", "mlperf",
            "paradl", "deepbench-allreduce"]  # summarize.py's order
MECH_BITS = {"strided-dgrad": "KT_MECH_STRIDED_DGRAD", "winograd-gemm": "KT_MECH_WINOGRAD_GEMM",
             "channel-k-tile": "KT_MECH_CHANNEL_K_TILE", "cudnn-tiles": "KT_MECH_CUDNN_TILES",
             "wgrad-cudnn": "KT_MECH_WGRAD_CUDNN", "no-split-k": "KT_MECH_NO_SPLIT_K",
             "strided-reads": "KT_MECH_STRIDED_READS", "old-cudnn-call": None, "none": None}


def fail(message):
    sys.stderr.write("ablate: %s\n" % message)
    sys.exit(2)


def table(path):
    with open(path) as f:
        return list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"))


def runtimes_in_use():
    """Every runtime the validation's rows run under, as datasets.tsv and rows.tsv name it."""
    names = set(d["runtime"] for d in table(os.path.join(HERE, "datasets.tsv")))
    names |= set(r.get("runtime") for r in table(os.path.join(HERE, "rows.tsv"))
                 if not r["reason"])
    return sorted(n for n in names if n)


def runtime_path(name):
    """The file of a runtime as datasets.tsv (a name) or rows.tsv (a path) gives it."""
    if "/" in name:
        return os.path.join(ROOT, name)
    return os.path.join(ROOT, "workloads", "runtime", name + ".rt")


def variants(path, wanted):
    if not os.path.isfile(path):
        fail("%s: no such file" % path)
    rows, seen = table(path), set()
    for n, v in enumerate(rows, 1):
        where = "%s: variant %d (%s)" % (path, n, v.get("name"))
        if None in v.values() or None in v or any(not v.get(k) for k in
                                                  ("name", "kind", "sets", "where")):
            fail("%s: needs name, kind, sets, where and source, tab-separated" % where)
        if not re.match(r"^[a-z0-9][a-z0-9-]*$", v["name"]) or v["name"] == "shipped":
            fail("%s: a name is lower-case letters, digits and '-', not 'shipped'" % where)
        if v["name"] in seen:
            fail("%s: given twice" % where)
        seen.add(v["name"])
        if v["kind"] == "fit":
            if "none" in v["sets"].split(",") and v["sets"] != "none":
                fail("%s: sets 'none' goes alone, not in '%s'" % (where, v["sets"]))
            for m in v["sets"].split(","):
                if m not in MECH_BITS:
                    fail("%s: unknown mechanism '%s' (known: %s)" % (where, m,
                                                                    ", ".join(MECH_BITS)))
        elif v["kind"] == "runtime":
            for kv in v["sets"].split(";"):
                if not re.match(r"^\s*[a-z_]+\s*=\s*\S.*$", kv):
                    fail("%s: sets '%s' is not `key = value`" % (where, kv.strip()))
            names = runtimes_in_use() if v["where"] == "all" else v["where"].split()
            for name in names:
                if not os.path.isfile(runtime_path(name)):
                    fail("%s: no runtime file for '%s'" % (where, name))
            v["where"] = " ".join(names)
        else:
            fail("%s: kind '%s' is neither fit nor runtime" % (where, v["kind"]))
    for name in wanted:
        if name not in seen:
            fail("--only %s: not a variant of %s (%s)" % (name, path, ", ".join(sorted(seen))))
    for v in rows:
        if not wanted or v["name"] in wanted:
            print("\t".join((v["name"], v["kind"], v["sets"], v["where"], v["source"] or "-")))


def fitted(path):
    """{parameter: value} of compute_fit's "fitted:" block (seconds as printed, in us)."""
    values, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("fitted:"):
                inside = True
            elif inside and not line.strip():
                break
            elif inside:
                m = re.match(r"^\s+(.+?)\s+([0-9.e+-]+)( us)?\s*$", line)
                if not m:
                    fail("%s: cannot read the fitted line '%s'" % (path, line.rstrip()))
                values[m.group(1)] = m.group(2) + ("e-6" if m.group(3) else "")
    return values


def patch_fit(source, fit_output, mechanisms):
    x = fitted(fit_output)
    need = ["gemm_eff pascal", "gemm_eff volta", "gemm_eff volta tensor", "gemm_eff turing",
            "gemm_eff turing tensor", "conv_rel forward", "conv_rel input-grad",
            "conv_rel weight-grad", "conv_rel forward tensor", "conv_rel input-grad tensor",
            "conv_rel weight-grad tensor", "winograd_rel", "gemm_call_s", "conv_call_s",
            "conv_call_s tensor"]
    missing = [k for k in need if k not in x]
    if missing:
        fail("%s: compute_fit printed no %s" % (fit_output, ", ".join(missing)))
    bits = []
    for m in mechanisms.split(","):
        if m not in MECH_BITS:
            fail("patch-fit: unknown mechanism '%s'" % m)
        if MECH_BITS[m]:
            bits.append(MECH_BITS[m])
    volta = "{%s, %s}" % (x["gemm_eff volta"], x["gemm_eff volta tensor"])
    subs = [  # (what, pattern, replacement): each must match once
        ("Pascal's gemm_eff", r"#define KT_PASCAL_GEMM_EFF [0-9.]+",
         "#define KT_PASCAL_GEMM_EFF " + x["gemm_eff pascal"]),
        ("Volta's gemm_eff", r"\[DV_VOLTA\] = \{[0-9., ]+\}", "[DV_VOLTA] = " + volta),
        ("Ampere's gemm_eff (Volta's)", r"\[DV_AMPERE\] = \{[0-9., ]+\}", "[DV_AMPERE] = " + volta),
        ("Hopper's gemm_eff (Volta's)", r"\[DV_HOPPER\] = \{[0-9., ]+\}", "[DV_HOPPER] = " + volta),
        ("Turing's gemm_eff", r"\[DV_TURING\] = \{[0-9., ]+\}",
         "[DV_TURING] = {%s, %s}" % (x["gemm_eff turing"], x["gemm_eff turing tensor"])),
        ("the CUDA cores' convolutions", r"\[KT_CUDA_CORES\] = \{\{[0-9., ]+\}, [0-9.e-]+\}",
         "[KT_CUDA_CORES] = {{%s, %s, %s}, %s}" % (
             x["conv_rel forward"], x["conv_rel input-grad"], x["conv_rel weight-grad"],
             x["conv_call_s"])),
        ("the tensor cores' convolutions", r"\[KT_TENSOR_CORES\] = \{\{[0-9., ]+\}, [0-9.e-]+\}",
         "[KT_TENSOR_CORES] = {{%s, %s, %s}, %s}" % (
             x["conv_rel forward tensor"], x["conv_rel input-grad tensor"],
             x["conv_rel weight-grad tensor"], x["conv_call_s tensor"])),
        ("winograd_rel", r"#define KT_WINOGRAD_REL [0-9.]+",
         "#define KT_WINOGRAD_REL " + x["winograd_rel"]),
        ("gemm_call_s", r"#define KT_GEMM_CALL_S [0-9.e-]+",
         "#define KT_GEMM_CALL_S " + x["gemm_call_s"]),
        ("the mechanisms", r"\.mechanisms = 0,",
         ".mechanisms = %s," % (" | ".join(bits) or "0")),
    ]
    with open(source) as f:
        text = f.read()
    for what, pattern, replacement in subs:
        text, n = re.subn(pattern, replacement, text)
        if n != 1:
            fail("%s: %s found %d times, not once (pattern %s): its layout changed, "
                 "ablate.py's patch-fit follows it" % (source, what, n, pattern))
    with open(source + ".tmp", "w") as f:
        f.write(text)
    os.replace(source + ".tmp", source)


def runtime_copy(source, sets, why, out):
    if not os.path.isfile(source):
        fail("%s: no such runtime file" % source)
    with open(source) as f:
        lines = f.read().split("\n")
    for kv in sets.split(";"):
        key, _, value = (s.strip() for s in kv.partition("="))
        line = ["# source: %s (experiments/validation/ablations.tsv)" % why,
                "%s = %s" % (key, value)]
        at = [i for i, l in enumerate(lines)
              if not l.lstrip().startswith("#") and l.partition("=")[0].strip() == key]
        if at:
            lines[at[0]:at[0] + 1] = line
        else:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += line + [""]
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(out + ".tmp", out)


def summary(out, pairs):
    stats, per_row, names = [], {}, []
    for pair in pairs:
        name, _, path = pair.partition("=")
        if not os.path.isfile(path):
            fail("summary: %s: no results.tsv at %s" % (name, path))
        names.append(name)
        by_dataset = {}
        for r in table(path):
            if r["status"] != "ok":  # calibration rows and rows not expressed are no figure
                if not (r["status"] == "not expressed" or r["status"].startswith("calibration")):
                    fail("summary: %s: %s: %s under this variant" % (name, r["id"], r["status"]))
                continue
            by_dataset.setdefault(r["dataset"], []).append(float(r["accuracy"]))
            if not r["dataset"].startswith("deepbench"):
                row = per_row.setdefault((r["dataset"], r["id"]), {
                    "dataset": r["dataset"], "id": r["id"], "label": r["label"],
                    "measured": r["measured"], "unit": r["unit"]})
                row[name] = r["predicted"]
        for d in DATASETS:
            acc = by_dataset.get(d)
            if not acc:
                fail("summary: %s: no row of %s in %s" % (name, d, path))
            if len(stats) >= len(DATASETS) and len(acc) != int(stats[DATASETS.index(d)]["rows"]):
                fail("summary: %s: %d rows of %s, %s has %s" % (
                    name, len(acc), d, stats[0]["variant"], stats[DATASETS.index(d)]["rows"]))
            stats.append({"variant": name, "dataset": d, "rows": str(len(acc)),
                          "mean": "%.5f" % statistics.mean(acc),
                          "median_error": "%.5f" % (1 - statistics.median(acc)),
                          "rows_at_0.80": str(sum(a >= GOOD for a in acc))})
    cols = ["variant", "dataset", "rows", "mean", "median_error", "rows_at_0.80"]
    write_tsv(os.path.join(out, "summary.tsv"), cols, stats)
    write_tsv(os.path.join(out, "rows.tsv"), ["dataset", "id", "label", "measured", "unit"] +
              names, [dict({n: "" for n in names}, **r) for r in per_row.values()])
    with open(os.path.join(out, "summary.txt.tmp"), "w") as f:
        f.write(render(stats))
    os.replace(os.path.join(out, "summary.txt.tmp"), os.path.join(out, "summary.txt"))


def write_tsv(path, cols, rows):
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, cols, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(path + ".tmp", path)


def render(stats):
    """The tables of summary.txt: a line a variant; the datasets' mean accuracy, then the rows
    at accuracy >= 0.80 of each dataset, with the held-out kernels' median error."""
    variants, cell = [], {}
    for s in stats:
        if s["variant"] not in variants:
            variants.append(s["variant"])
        cell[s["variant"], s["dataset"]] = s
    short = {"deepbench": "deepbench", "deepbench-unseen": "unseen", "dle-pytorch": "pytorch",
             "dle-tensorflow1": "tf1", "mlperf": "mlperf", "paradl": "paradl",
             "deepbench-allreduce": "allreduce"}
    out = ["the validation with each opt-in mechanism (ablate.sh; ablations.tsv says what "
           "each sets)",
           "deepbench: held-out kernels; unseen: deepbench-unseen; pytorch, tf1: "
           "dle-pytorch, dle-tensorflow1;", "allreduce: deepbench-allreduce", "",
           "mean accuracy (held-out: the held-out kernels' median |predicted / measured - 1|)",
           "%-20s" % "variant" + "".join("%10s" % short[d] for d in DATASETS) +
           "%10s" % "held-out"]
    for v in variants:
        out.append("%-20s" % v + "".join("%10s" % cell[v, d]["mean"] for d in DATASETS) +
                   "%9.1f%%" % (100 * float(cell[v, "deepbench"]["median_error"])))
    out += ["", "rows at accuracy >= %.2f, of every row (the first line)" % GOOD,
            "%-20s" % "variant" + "".join("%10s" % short[d] for d in DATASETS),
            "%-20s" % "(rows)" + "".join("%10s" % cell[variants[0], d]["rows"]
                                         for d in DATASETS)]
    for v in variants:
        out.append("%-20s" % v + "".join("%10s" % cell[v, d]["rows_at_0.80"] for d in DATASETS))
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    cmd, args = argv[1], argv[2:]
    if cmd == "variants" and args:
        variants(args[0], args[1:])
    elif cmd == "patch-fit" and len(args) == 3:
        patch_fit(*args)
    elif cmd == "runtime-copy" and len(args) == 4:
        runtime_copy(*args)
    elif cmd == "summary" and len(args) >= 2:
        summary(args[0], args[1:])
    elif cmd == "render" and len(args) == 1:
        if not os.path.isfile(args[0]):
            fail("render: %s: no such file" % args[0])
        sys.stdout.write(render(table(args[0])))
    else:
        fail("usage: see --help ('%s' with %d arguments)" % (cmd, len(args)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except OSError as e:  # an unreadable input, an unwritable output: named, no traceback
        fail("%s: %s" % (e.filename or "", e.strerror or e))
    except (KeyError, ValueError) as e:  # a results.tsv or summary.tsv short of a column
        fail("a table lacks what it should have: %s" % e)
