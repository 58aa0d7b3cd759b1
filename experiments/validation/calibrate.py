#!/usr/bin/env python3
"""calibrate.py: the value of one runtime key at which a calibration row's prediction equals
its measurement, found by bisection, as the runtimes' calibrated constants were found (a
runtime file's `calibration = ID` rows, workloads/runtime/README.md; experiments/README.md,
"Ablation"). ablate.sh calls it for every fit variant: a refitted kernel model moves the
calibration row's prediction, and the constant calibrated on it is calibrated again.

  calibrate.py --exe HYBRIDSIM (--results RESULTS.TSV --row ID | --command ARGS --sample-s S)
               --runtime FILE --key KEY [--low L] [--high H] [--digits N] [--out COPY]

  --exe      the hybridsim that predicts (a scratch build of a fit variant, build/hybridsim)
  --results  a run.sh results.tsv holding the row: its measurement, unit (img/s) and command
             (experiments/results/validation/results.tsv, the committed run)
  --row      the calibration row's id (dle-throughput.tsv:83)
  --command  or the hybridsim arguments of a calibration that is no validation row (with
             --runtime and -b; --json is added), and --sample-s its measured seconds a sample
             (a workload's <calibration sample_time_s>)
  --runtime  the runtime file whose KEY is calibrated; the command's `--runtime` is replaced
             by a copy of it with KEY set to each trial value
  --key      the runtime key (depthwise_efficiency); the row's throughput must rise with it
  --low/--high  the bracket searched (default 1e-4 and 1): its ends must predict below and
             above the measurement
  --digits   significant digits of the value printed (default 3, the runtime file's): of the
             values with that many digits about the bisection's, the one whose prediction is
             nearest the measurement
  --out      also write the runtime copy with KEY set to the value found

Prints `KEY VALUE PREDICTED MEASURED`. Exit status 0; 2 on a bad argument, a row not in the
results, a failed run, or a bracket that does not hold the measurement (each message says).
"""
import argparse
import csv
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def fail(message):
    sys.stderr.write("calibrate: %s\n" % message)
    sys.exit(2)


def row_of(results, ident):
    """The row of results.tsv whose id is IDENT: (measured, batch, argument list)."""
    try:
        with open(results) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        fail("--results: %s" % e)
    for r in rows:
        if r.get("id") == ident:
            if r.get("unit") != "img/s":
                fail("%s: row %s is in %s, not img/s" % (results, ident, r.get("unit")))
            args = shlex.split(r.get("command") or "")
            if not args or args[0] != "hybridsim" or "--runtime" not in args or "-b" not in args:
                fail("%s: row %s has no hybridsim command with -b and --runtime" %
                     (results, ident))
            return float(r["measured"]), float(args[args.index("-b") + 1]), args[1:]
    fail("%s: no row %s" % (results, ident))


def command_of(text, sample_s):
    """--command's arguments: (measured img/s, batch, argument list)."""
    args = shlex.split(text)
    if args and args[0] == "hybridsim":
        args = args[1:]
    if "--runtime" not in args or "-b" not in args or args.index("--runtime") + 1 >= len(args):
        fail("--command: needs -b and --runtime (the runtime replaced by the trial copy)")
    if not sample_s > 0:
        fail("--sample-s: a positive number of seconds")
    if "--json" not in args:
        args.append("--json")
    return 1.0 / sample_s, float(args[args.index("-b") + 1]), args


def set_key(source, key, value, out):
    """SOURCE with KEY's line set to VALUE, written to OUT (the key must be set in SOURCE)."""
    with open(source) as f:
        lines = f.read().split("\n")
    at = [i for i, l in enumerate(lines)
          if not l.lstrip().startswith("#") and l.partition("=")[0].strip() == key]
    if not at:
        fail("%s: sets no %s: nothing to calibrate" % (source, key))
    lines[at[0]] = "%s = %s" % (key, value)
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(out + ".tmp", out)


def predict(a, value, copy):
    """The row's throughput (img/s) with KEY = VALUE."""
    set_key(a.runtime, a.key, value, copy)
    args = list(a.args)
    args[args.index("--runtime") + 1] = copy
    env = dict(os.environ, HYBRIDSIM_HOME=ROOT)
    p = subprocess.run([a.exe] + args, cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s = %s: hybridsim failed: %s" % (a.key, value, p.stderr.strip()[:300]))
    try:
        return a.batch / json.loads(p.stdout)["iteration"]["total_s"]
    except (ValueError, KeyError, ZeroDivisionError) as e:
        fail("%s = %s: cannot read hybridsim's JSON: %s" % (a.key, value, e))


def rounded(x, digits):
    return float("%.*g" % (digits, x))


def search(a, copy):
    """Bisection (on the log of the value) to a part in 10^(digits+2), then the nearest of
    the rounded values about it."""
    low, high = a.low, a.high
    p_low, p_high = predict(a, low, copy), predict(a, high, copy)
    if not p_low <= a.measured <= p_high:
        fail("%s in [%g, %g] predicts %.1f to %.1f img/s for row %s: not its %g" %
             (a.key, low, high, p_low, p_high, a.row, a.measured))
    while high / low > 1 + 10 ** -(a.digits + 2):
        mid = math.sqrt(low * high)
        if predict(a, mid, copy) < a.measured:
            low = mid
        else:
            high = mid
    best = rounded(math.sqrt(low * high), a.digits)
    step = 10 ** (math.floor(math.log10(best)) - a.digits + 1)
    trials = [(abs(predict(a, v, copy) - a.measured), v) for v in
              sorted({rounded(best - step, a.digits), best, rounded(best + step, a.digits)})
              if v > 0]
    value = min(trials)[1]
    return value, predict(a, value, copy)


def main():
    ap = argparse.ArgumentParser(description="calibrate one runtime key on one row")
    for flag in ("--exe", "--runtime", "--key"):
        ap.add_argument(flag, required=True)
    ap.add_argument("--results")
    ap.add_argument("--row")
    ap.add_argument("--command")
    ap.add_argument("--sample-s", type=float)
    ap.add_argument("--low", type=float, default=1e-4)
    ap.add_argument("--high", type=float, default=1.0)
    ap.add_argument("--digits", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    if not (0 < a.low < a.high) or not 1 <= a.digits <= 8:
        fail("--low, --high: 0 < low < high; --digits: 1 to 8")
    if not os.access(a.exe, os.X_OK):
        fail("--exe: %s is not an executable" % a.exe)
    if not os.path.isfile(a.runtime):
        fail("--runtime: no file %s" % a.runtime)
    a.runtime = os.path.abspath(a.runtime)
    if a.row and a.results and not a.command:
        a.measured, a.batch, a.args = row_of(a.results, a.row)
    elif a.command and a.sample_s is not None and not (a.row or a.results):
        a.measured, a.batch, a.args = command_of(a.command, a.sample_s)
        a.row = "--command"
    else:
        fail("give --results and --row, or --command and --sample-s")
    with tempfile.TemporaryDirectory(prefix="hs-calibrate-") as tmp:
        copy = os.path.join(tmp, os.path.basename(a.runtime))
        value, predicted = search(a, copy)
    if a.out:
        set_key(a.runtime, a.key, "%#.*g" % (a.digits, value), a.out)
    print("%s %#.*g %.3f %g" % (a.key, a.digits, value, predicted, a.measured))


if __name__ == "__main__":
    main()
