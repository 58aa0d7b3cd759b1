#!/usr/bin/env bash
# run.sh: hybridsim against every measured file of ../shared/reference/measured/ it can express:
# DeepBench's kernels held out of the compute model's fit (experiments/compute/fit.sh) and those
# of five older NVIDIA GPUs it never saw (deepbench-unseen, every kernel predicted), NVIDIA's
# DeepLearningExamples throughputs (PyTorch, TensorFlow 1), MLPerf Training ResNet-50 v0.7-v1.1,
# ParaDL's ResNet-50 Table VIII on ABCI and DeepBench's NCCL 2.0 allreduce times (a workload of
# N weights and no compute: allreduce_workload.py). rows.tsv maps each measured row to its hybridsim
# run (make_rows.py writes it: workload, platform from systems.tsv, GPUs, global batch,
# precision, DLE PyTorch's loader workers a GPU as --loader-workers N, the row's own published
# settings, its own runtime where its software is not its dataset's), datasets.tsv adds each
# dataset's options and runtime. Prints the accuracy of each
# row (1 - |predicted - measured| / measured), per dataset and overall, the rank agreement where
# rows compete (the pairs a group's measurements order, ordered alike), the rows it cannot
# express and why; draws predicted against measured (log-log, y = x, a colour a dataset).
#
# Usage: experiments/validation/run.sh [-o OUTDIR] [-j N] [--exe PATH] [--fit PATH]
#            [--measured DIR] [--subset] [--dataset NAME] [--compute MODE]
#            [--fallback-precision FROM=TO] [--no-row-options] [--runtime DATASET=FILE]
#            [--swap-runtime RUNTIME=FILE]
#   -o DIR        results (default experiments/results/validation): results.tsv (every row,
#                 its command and prediction), summary.txt, validation.png/.svg, MANIFEST
#   -j N          simulations at a time (default: the cores)
#   --exe PATH    the hybridsim to validate (default build/hybridsim)
#   --fit PATH    the compute model's fit program (default build/compute_fit)
#   --measured D  the measured files (default ../shared/reference/measured beside the checkout)
#   --subset      only the rows subset.txt lists (the test's pinned rows)
#   --dataset D   only dataset D's rows (datasets.tsv names them; deepbench and
#                 deepbench-unseen, compute_fit's kernels, are always there)
#   --compute M   add --compute M to every run (default: hybridsim's own default)
#   --fallback-precision FROM=TO  run rows of precision FROM in TO (an older hybridsim without
#                 tf32: tf32=fp32)
#   --no-row-options  leave out each row's own published settings (rows.tsv `options`: DLE
#                 PyTorch's optimizer cadence, --optimizer-every N), which every run takes
#                 otherwise (--row-options, the default)
#   --runtime D=F run dataset D's rows under the runtime file F instead of datasets.tsv's and
#                 the rows' own (rows.tsv `runtime`; a variant of a runtime, e.g. a copy of
#                 workloads/runtime/pytorch-ddp.rt less a key)
#   --swap-runtime R=F  run every row whose runtime is R (as datasets.tsv or rows.tsv's
#                 `runtime` names it: pytorch-ddp, experiments/validation/runtime/x.rt) under
#                 the runtime file F instead, whatever its dataset (ablate.sh: a runtime's copy
#                 with an opt-in key set); repeatable
# Exit status 0, 2 (bad arguments, a runtime file hybridsim refuses, or missing data; 77 with
# --subset when the measured files are absent, ctest's skip).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=../lib/common.sh
source "$root/experiments/lib/common.sh"
commit_line="$(hs_checkout_state "$root")" # before this run writes into the checkout
die() { echo "validation: $*" >&2; exit 2; }

out="$root/experiments/results/validation" jobs="$(nproc 2>/dev/null || echo 2)"
exe="$root/build/hybridsim" fit="$root/build/compute_fit"
measured="$root/../shared/reference/measured" subset=0 compute="" fallback="" dataset=""
row_options=1 runtimes="" swaps=""
cmdline="experiments/validation/run.sh $*"
while [ $# -gt 0 ]; do
    case "$1" in
        -o) [ $# -ge 2 ] || die "-o needs a directory"; out="$2"; shift ;;
        -j) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "-j needs a positive integer"; jobs="$2"; shift ;;
        --exe) [ -x "${2:-}" ] || die "--exe: '${2:-}' is not an executable"; exe="$2"; shift ;;
        --fit) [ -x "${2:-}" ] || die "--fit: '${2:-}' is not an executable"; fit="$2"; shift ;;
        --measured) [ $# -ge 2 ] || die "--measured needs a directory"; measured="$2"; shift ;;
        --subset) subset=1 ;;
        --dataset) [ $# -ge 2 ] || die "--dataset needs a name"; dataset="$2"; shift ;;
        --compute) [ $# -ge 2 ] || die "--compute needs a method"; compute="$2"; shift ;;
        --fallback-precision) [[ "${2:-}" =~ ^[a-z0-9]+=[a-z0-9]+$ ]] ||
                die "--fallback-precision needs FROM=TO"; fallback="$2"; shift ;;
        --row-options) row_options=1 ;;
        --no-row-options) row_options=0 ;;
        --runtime) [[ "${2:-}" =~ ^[a-z0-9-]+=.+$ ]] || die "--runtime needs DATASET=FILE"
            [ -f "${2#*=}" ] || die "--runtime: no runtime file '${2#*=}'"
            runtimes="$runtimes ${2%%=*}=$(cd "$(dirname "${2#*=}")" && pwd)/$(basename "${2#*=}")"
            shift ;;
        --swap-runtime) [[ "${2:-}" =~ ^[A-Za-z0-9_./-]+=.+$ ]] ||
                die "--swap-runtime needs RUNTIME=FILE"
            [ -f "${2#*=}" ] || die "--swap-runtime: no runtime file '${2#*=}'"
            swaps="$swaps ${2%%=*}=$(cd "$(dirname "${2#*=}")" && pwd)/$(basename "${2#*=}")"
            shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (--help lists them)" ;;
    esac
    shift
done
if [ ! -f "$measured/dle-throughput.tsv" ]; then
    [ "$subset" = 1 ] && { echo "validation: no measured files at $measured: skipped"; exit 77; }
    die "no measured files at $measured (--measured)"
fi
[ -x "$exe" ] || die "no hybridsim at $exe (build first, or --exe)"
[ -x "$fit" ] || die "no compute_fit at $fit (cmake --build build --target compute_fit, or --fit)"
# A runtime file given (--runtime, --swap-runtime) loads, or nothing runs: a key hybridsim does
# not know would otherwise fail every row of it, listed among the failed runs.
for pair in $runtimes $swaps; do
    err="$(HYBRIDSIM_HOME="$root" "$exe" analytic -w resnet50 -p dgx1 -s data -g 8 -b 256 \
        --runtime "${pair#*=}" 2>&1 >/dev/null)" || die "${pair%%=*}=${pair#*=}: $err"
done
mkdir -p "$out" 2>/dev/null || die "-o: cannot create $out"
out="$(cd "$out" && pwd)"
[ -w "$out" ] || die "-o: cannot write into $out"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/hs-validation-XXXXXX")"
trap 'rm -rf "$tmp" "$out"/.validation-*.tmp "$out/results.tsv.tmp"' EXIT
# put FILE NAME: FILE as $out/NAME, copied beside it and renamed over it (atomic within -o).
put() {
    cp "$1" "$out/.validation-$2.tmp" && mv -f "$out/.validation-$2.tmp" "$out/$2" ||
        die "-o: cannot write $out/$2"
}
start_s=$(date +%s)

# DeepBench: every kernel with the model's time; the summary keeps the held-out ones and those of
# the GPUs never fitted.
"$fit" --data "$measured" --dump "$tmp/deepbench.tsv" >"$tmp/fit.txt" ||
    die "compute_fit failed: $(tail -3 "$tmp/fit.txt")"

# One file per run, its hybridsim arguments one a line (from rows.tsv and datasets.tsv; rows
# with a reason are not run), named by the row's id; list.txt lists them.
python3 - "$here" "$tmp" "$subset" "$compute" "$fallback" "$dataset" "$row_options" \
    "$runtimes" "$swaps" <<'PY' ||
import csv, os, sys
here, tmp, subset, compute, fallback, dataset, row_options, runtimes, swaps = sys.argv[1:10]
runtime_of = dict(w.split("=", 1) for w in runtimes.split())
swap_of = dict(w.split("=", 1) for w in swaps.split())
def table(name):
    with open(os.path.join(here, name)) as f:
        return list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"))
options = {d["dataset"]: d for d in table("datasets.tsv")}
if dataset and dataset not in options:
    sys.exit("validation: --dataset %s: not in datasets.tsv (%s)" % (dataset, ", ".join(options)))
for d in runtime_of:
    if d not in options:
        sys.exit("validation: --runtime %s=...: not a dataset of datasets.tsv (%s)" %
                 (d, ", ".join(options)))
rows = table("rows.tsv")
dataset_of = {r["id"]: r["dataset"] for r in rows}
in_use = set(d["runtime"] for d in options.values()) | set(r.get("runtime") for r in rows)
for name in swap_of:
    if name not in in_use:
        sys.exit("validation: --swap-runtime %s=...: no row runs under %s (datasets.tsv and "
                 "rows.tsv name: %s)" % (name, name, ", ".join(sorted(filter(None, in_use)))))
for name, d in options.items():  # a misspelt calibration row would stay in the figures
    for ident in (d.get("calibration") or "").split():
        if dataset_of.get(ident) != name:
            sys.exit("validation: datasets.tsv: %s's calibration names %s, not a row of %s in "
                     "rows.tsv" % (name, ident, name))
wanted = None
if subset == "1":
    with open(os.path.join(here, "subset.txt")) as f:
        wanted = set(l.split()[0] for l in f if l.strip() and not l.startswith("#"))
swap = dict([fallback.split("=")]) if fallback else {}
with open(os.path.join(tmp, "list.txt"), "w") as listing:
    for r in rows:
        if r["reason"] or (wanted is not None and r["id"] not in wanted) or \
                (dataset and r["dataset"] != dataset):
            continue
        workload = r["workload"]  # a path is the checkout's (make_rows.py), a name is shipped
        if "/" in workload:
            workload = os.path.join(os.path.dirname(os.path.dirname(here)), workload)
        args = ["simulate", "-w", workload, "-p", r["platform"], "-s", r["strategy"],
                "-g", r["gpus"], "-b", r["batch"], "--json"]
        precision = swap.get(r["precision"], r["precision"])
        if precision != "fp32":
            args += ["--precision", precision]
        d = options[r["dataset"]]
        args += d["options"].split()
        if r.get("loader_workers"): # the run's loader workers a GPU (make_rows.py)
            args += ["--loader-workers", r["loader_workers"]]
        if row_options == "1":
            args += r.get("options", "").split()
        # the row's own runtime (make_rows.py: a path is the checkout's), else its dataset's;
        # --runtime D=F replaces both for every row of D
        runtime = runtime_of.get(r["dataset"], r.get("runtime") or d["runtime"])
        runtime = swap_of.get(runtime, runtime)
        if "/" in runtime and not os.path.isabs(runtime):
            runtime = os.path.join(os.path.dirname(os.path.dirname(here)), runtime)
        if runtime:
            args += ["--runtime", runtime]
        if compute:
            args += ["--compute", compute]
        name = os.path.join(tmp, "run-" + r["id"].replace(":", "_").replace("/", "_"))
        with open(name + ".args", "w") as f:
            f.write("\n".join(args) + "\n")
        listing.write(name + "\n")
PY
    exit 2

# The runs, `jobs` at a time: each writes its JSON (or its error) beside its arguments.
export exe root
xargs -P "$jobs" -n 1 bash -c 'mapfile -t a <"$1.args"
    HYBRIDSIM_HOME="$root" "$exe" "${a[@]}" >"$1.json" 2>"$1.err" || echo "exit $?" >>"$1.err"' \
    _ <"$tmp/list.txt"

python3 "$here/summarize.py" "$here" "$tmp" "$out" "$subset" "$measured" >"$tmp/summary.txt"
put "$tmp/summary.txt" summary.txt
cat "$out/summary.txt"
if [ "$subset" = 0 ] && command -v gnuplot >/dev/null; then
    term=png
    grep -q pngcairo <<<"$(gnuplot -e 'set terminal' 2>&1)" && term=pngcairo
    gnuplot -e "data='$out/results.tsv'; out='$tmp/validation'; term='$term'" "$here/plot.gp" &&
        put "$tmp/validation.png" validation.png && put "$tmp/validation.svg" validation.svg
fi
{
    echo "command: $cmdline"
    echo "hybridsim: $exe ($("$exe" --version 2>/dev/null | head -1))"
    echo "commit: $commit_line"
    echo "measured: ${measured#"$root/"}"
    echo "seconds: $(($(date +%s) - start_s))"
} >"$tmp/MANIFEST" || die "cannot write $tmp/MANIFEST"
put "$tmp/MANIFEST" MANIFEST
