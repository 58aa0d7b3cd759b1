#!/usr/bin/python3
"""models.py: every torchvision classification model through the importer and the simulator:
the table of experiments/import/README.md ("Every torchvision classification model").

Usage: /usr/bin/python3 experiments/import/models.py [--hybridsim PATH] [--write | --check]
                                                     [--only NAME,NAME..]
                                                     [--keep DIR | --imported DIR]
  (no flag)      print the table
  --write        rewrite the table in README.md (between its two marker lines; with --only,
                 those models' rows)
  --check        build the rows again and fail (status 1) when one differs from README.md's
  --only LIST    only these models (with --check: the rows README.md has for them)
  --keep DIR     also keep each import in DIR: NAME.xml and NAME.import (its summary's cells)
  --imported DIR the imports an earlier --keep DIR kept, instead of importing (no torch: only
                 the simulations run; the sanitized tests, tests/e2e_models.sh)

Each model (torchvision.models.list_models(module=torchvision.models), weights=None) is imported
as import.py does, in this one process (torch's import paid once), with import.py's default
input (3x224x224; 3x299x299 for inception_v3), then simulated with `hybridsim simulate -p dgx1
-s data -g 1 -b 64` (one V100, fp32, the compute model's kernels, no measurement: the
workloads have none) and its seconds per iteration recorded. The status columns say what failed
and why. Exit status 0, 1 (--check: a row differs), 2 (bad arguments).
"""

import argparse
import contextlib
import io
import os
import runpy
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
README = os.path.join(HERE, "README.md")
BEGIN = "<!-- models.py: begin (generated; experiments/import/models.py --write) -->"
END = "<!-- models.py: end -->"
HEADER = ["model", "layers", "weights", "imports", "simulates", "s/iteration", "images/s"]
RUN = ["-p", "dgx1", "-s", "data", "-g", "1", "-b", "64"]


def import_one(main, name, path):
    """(status, layers, weights, message) of importing torchvision:name to path."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(["torchvision:" + name, "-o", path])
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 2
        except Exception as e:  # a model the tracer or the walker trips over
            print("import: %s: %s" % (type(e).__name__, e), file=sys.stderr)
            rc = 1
    text = (out.getvalue() + err.getvalue()).strip().splitlines()
    last = text[-1] if text else ""
    if rc != 0:  # its first sentence (torch.fx adds a paragraph of advice)
        return "no", "", "", last.replace("import: ", "", 1).split(". ")[0].replace("|", "/")
    # "import: SRC -> FILE: N layers (...), W weights, ..." on stdout (warnings go to stderr)
    summary = [line for line in out.getvalue().splitlines() if line.startswith("import: ")]
    last = summary[-1] if summary else last
    summary = last.split(": ", 2)[-1]
    layers = summary.split(" layers", 1)[0]
    weights = summary.split("), ", 1)[1].split(" weights", 1)[0] if "), " in summary else ""
    return "yes", layers, weights, ""


def simulate(hybridsim, path):
    """(status, seconds per iteration or message)."""
    p = subprocess.run([hybridsim, "simulate", "-w", path] + RUN + ["--row"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return "no", (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    fields = p.stdout.split()
    # the --row columns: command strategy p p1 p2 B epoch_s comm_s compute_s iteration_s ...
    return "yes", float(fields[9])


def kept_import(folder, name, path):
    """import_one's answer as --keep wrote it in folder, the workload copied to path."""
    with open(os.path.join(folder, name + ".import")) as f:
        cells = f.read().rstrip("\n").split("|")
    if cells[0] == "yes":
        shutil.copyfile(os.path.join(folder, name + ".xml"), path)
    return tuple(cells)


def row(hybridsim, main, name, tmp, keep=None, imported_dir=None):
    path = os.path.join(tmp, name + ".xml")
    if imported_dir:
        imported, layers, weights, why = kept_import(imported_dir, name, path)
    else:
        imported, layers, weights, why = import_one(main, name, path)
    if keep:
        with open(os.path.join(keep, name + ".import"), "w") as f:
            f.write("|".join([imported, layers, weights, why]) + "\n")
        if imported == "yes":
            shutil.copyfile(path, os.path.join(keep, name + ".xml"))
    if imported != "yes":
        return [name, "", "", "no: " + why, "-", "-", "-"]
    simulated, value = simulate(hybridsim, path)
    if simulated != "yes":
        return [name, layers, weights, "yes", "no: " + value, "-", "-"]
    return [name, layers, weights, "yes", "yes", "%.4f" % value, "%.0f" % (64 / value)]


def table(rows):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def readme_rows():
    text = open(README).read()
    if BEGIN not in text or END not in text:
        raise SystemExit("models.py: %s has no table between its markers" % README)
    body = text.split(BEGIN, 1)[1].split(END, 1)[0]
    rows = {}
    for line in body.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells
    return rows


def write_readme(rows):
    text = open(README).read()
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    tmp = README + ".tmp"
    with open(tmp, "w") as f:
        f.write(head + BEGIN + "\n" + table(rows) + "\n" + END + tail)
    os.replace(tmp, README)


def main(argv):
    p = argparse.ArgumentParser(prog="models.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--hybridsim", default=os.path.join(ROOT, "build", "hybridsim"),
                   help="the hybridsim to simulate with (default build/hybridsim)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite README.md's table (with "
                      "--only: those rows)")
    mode.add_argument("--check", action="store_true", help="compare with README.md's table")
    p.add_argument("--only", help="comma-separated model names")
    kept = p.add_mutually_exclusive_group()
    kept.add_argument("--keep", metavar="DIR", help="also keep each import in DIR (NAME.xml, "
                      "NAME.import)")
    kept.add_argument("--imported", metavar="DIR", help="the imports --keep DIR kept, instead "
                      "of importing (no torch)")
    args = p.parse_args(argv)
    if not os.access(args.hybridsim, os.X_OK):
        print("models.py: no hybridsim at %s (build first)" % args.hybridsim, file=sys.stderr)
        return 2
    if args.imported:
        names = sorted(f[:-len(".import")] for f in os.listdir(args.imported)
                       if f.endswith(".import"))
    else:
        import torchvision
        names = torchvision.models.list_models(module=torchvision.models)
    if args.only:
        wanted = args.only.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            what = ("not kept in " + args.imported if args.imported
                    else "not torchvision classification models")
            print("models.py: --only: %s: %s" % (what, ", ".join(unknown)), file=sys.stderr)
            return 2
        names = wanted
    importer = None
    if not args.imported:
        sys.path.insert(0, HERE)
        importer = runpy.run_path(os.path.join(HERE, "import.py"))["main"]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [row(args.hybridsim, importer, n, tmp, args.keep, args.imported) for n in names]
    if args.write:
        if args.only:  # the other rows as README.md has them
            kept = readme_rows()
            kept.update({r[0]: r for r in rows})
            rows = [kept[n] for n in sorted(kept)]
        write_readme(rows)
        return 0
    if args.check:
        kept, bad = readme_rows(), 0
        for r in rows:
            if kept.get(r[0]) != r:
                print("models.py: %s: README.md has %s, now %s" % (r[0], kept.get(r[0]), r))
                bad += 1
        print("models.py: %d of %d rows as README.md says" % (len(rows) - bad, len(rows)))
        return 1 if bad else 0
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
