#!/usr/bin/env bash
# fidelity/run.sh: how close hybridsim's predictions come to measured runs, and what each
# mechanism moves. Every row of the measured ABCI table (ResNet-50: data+spatial, data+filter,
# filter and channel at 32 to 256 GPUs, Chainer 7 + ChainerMN + NCCL 2.4) is predicted by
# ParaDL's own projection (the table's), hybridsim's analytic model, and the simulation with
# its default options and with each mechanism switched on or off alone (an ablation):
#   default        kernels from the compute model alone at each GPU's real shape, with the
#                  layout copies around channel gathers; halos in a synchronous chain and the
#                  filter backward reduce-scattered (as ChainerMN runs them); ring gradient
#                  allreduce, blocking order, flow collectives
#   compute=model  the same kernels anchored on ResNet-50's measured total (Chainer's own
#                  speed carried to every kernel; only when `hybridsim simulate --help` offers
#                  --compute, as the next)
#   compute=measured  ParaDL's kernels instead: the measured per-sample times split linearly
#   step           every step of every collective simulated (a check: should not move)
#   allreduce=auto NCCL 2.4.8's own choice of its rings or tree for each gradient allreduce
#   allreduce=hier rings inside the nodes and across (what ChainerMN's hierarchical did)
#   allreduce=tree NCCL's double binary tree, always
#   overlap        gradients in 25 MiB buckets behind the backward (PyTorch DDP; the measured
#                  ChainerMN did not, so this should lose accuracy)
#   filter-bw=allreduce  filter parallelism allreduces its output gradients, ParaDL's model
#                  (filter and data+filter rows; the others as the default)
#   achieved bw    the abci-achieved preset: the bandwidths one stream achieves (NVLink 47.9 of
#                  50 GB/s a pair, PCIe 12.15 of 16, EDR 12.2 of 12.5; platforms/README.md)
#   node as built  the abci-built preset: each PCIe switch's x16 link to its CPU, which the
#                  switch's two GPUs share on their way to host memory (staged halos), and a
#                  memory per CPU, the two joined by UPI
#   uplinks=dmodk  each fat-tree uplink as its cables, a flow on one, InfiniBand's D-mod-K
#   uplinks=hash   the same with ECMP hashing (platforms/README.md, "Routed uplinks")
#   halo=sendrecv  spatial halos sent and received at once, ParaDL's model (spatial rows only)
#   paradl collectives  both of ParaDL's: halo=sendrecv and filter-bw=allreduce (the default
#                  before this study chose ChainerMN's)
#   paradl both    ParaDL's kernels and collectives: compute=measured and paradl collectives
# Then a second check: the iteration times the same code logged (code-logs.tsv: data parallelism
# at 1-256 GPUs, data+spatial at 8-1024, data+filter at 8-512, from its repository's job logs), each predicted by the
# defaults, the analytic model and, for data+spatial, ParaDL's halos (code_logs.py). Last, a
# sensitivity, not a mechanism: what a host cost per framework MPI call, added by hand to the
# defaults, would do to the mean, three rows and the logs (call_cost.py).
# Accuracy of a row = 1 - |predicted - measured| / measured, on the epoch total; the mean is
# over the rows; the ranking holds at a GPU count when the predicted order of the strategies
# measured there is the measured order (a tie, as filter and channel in ParaDL's model, does
# not hold it). Nothing is fitted: every parameter is the platform's.
# Usage: experiments/fidelity/run.sh [-o OUTDIR] [-j N] [--exe PATH] [--reference PATH]
# Writes OUTDIR/rows.csv (every prediction of every row), logs.csv (of every logged iteration),
# ablation.txt (the tables),
# fidelity.png/.svg (predicted against measured for six of the predictors), logs.png/.svg (the
# defaults against the logged iterations), MANIFEST.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/common.sh"
hs_study_args fidelity "$@"
[ -f "$HS_REF_TSV" ] || hs_die "no measured table at $HS_REF_TSV (--reference)"

configs=("default|" "step|-c step" "allreduce=auto|--allreduce auto" "allreduce=hier|--allreduce hier"
         "allreduce=tree|--allreduce tree" "overlap|--overlap"
         "filter-bw=allreduce|--filter-backward allreduce" "halo=sendrecv|--halo sendrecv"
         "achieved bw|-p gen:abci-achieved" "node as built|-p gen:abci-built"
         "uplinks=dmodk|-p gen:abci:uplink-routing=dmodk" "uplinks=hash|-p gen:abci:uplink-routing=hash"
         "paradl collectives|--filter-backward allreduce --halo sendrecv")
# (the help read whole: grep -q on a pipe may leave hybridsim a SIGPIPE, a failure to pipefail)
if grep -q -- "--compute" <<<"$("$HS_EXE" simulate --help 2>/dev/null)"; then
    configs=("${configs[0]}" "compute=model|--compute model" "compute=measured|--compute measured"
             "${configs[@]:1}"
             "paradl both|--compute measured --filter-backward allreduce --halo sendrecv")
fi

# one job per (row, predictor): "row|name|command..."
jobs="$HS_TMP/jobs.txt"
: >"$jobs"
grep -v '^#' "$HS_REF_TSV" | while IFS=$'\t' read -r model strategy p p1 p2 batch rest; do
    s="$strategy"
    case "$strategy" in data+*) s="$strategy:${p1}x${p2}" ;; esac
    row="$strategy/$p"
    run="-w $model -p abci -s $s -g $p -b $batch --json"
    echo "$row|analytic|analytic $run" >>"$jobs"
    for c in "${configs[@]}"; do
        flags="${c#*|}"
        case "$strategy" in # each mechanism exists only where its strategy does
            filter|data+filter) flags="${flags/--halo sendrecv/}" ;;
            spatial|data+spatial) flags="${flags/--filter-backward allreduce/}" ;;
            *) flags="${flags/--filter-backward allreduce/}"; flags="${flags/--halo sendrecv/}" ;;
        esac
        echo "$row|${c%%|*}|simulate $run $flags" >>"$jobs"
    done
done
# The same code's own logs (code-logs.tsv): each logged iteration predicted by the defaults,
# the analytic model and, for data+spatial, ParaDL's halos.
logjobs="$HS_TMP/logjobs.txt"
grep -v '^#' "$here/code-logs.tsv" | while IFS=$'\t' read -r model strategy p p1 p2 batch _ _ log; do
    s="$strategy"
    case "$strategy" in data+*) s="$strategy:${p1}x${p2}" ;; esac
    [ "$p" = 1 ] && s=serial
    run="-w $model -p abci -s $s -g $p -b $batch --json"
    echo "$log|default|simulate $run"
    echo "$log|analytic|analytic $run"
    [ "$strategy" = data+spatial ] && echo "$log|halo=sendrecv|simulate $run --halo sendrecv"
done >"$logjobs"

# run_jobs FILE DIR: every "row|name|command" line of FILE, the command's JSON into DIR/N.json
run_jobs() {
    mkdir -p "$2"
    local i=0 line
    while IFS= read -r line; do
        i=$((i + 1))
        echo "$line" >"$2/$i.job"
    done <"$1"
    ls "$2"/*.job | xargs -P "$HS_JOBS" -I{} bash -c '
        IFS="|" read -r row name cmd <"$1"
        "$HS_EXE" $cmd >"${1%.job}.json" 2>"${1%.job}.err" || echo "fidelity: $row $name: $(cat "${1%.job}.err")" >&2
    ' _ {}
}
n_jobs=$(($(wc -l <"$jobs") + $(wc -l <"$logjobs")))
echo "fidelity: $n_jobs predictions of $(grep -vc '^#' "$HS_REF_TSV") measured rows and" \
     "$(grep -vc '^#' "$here/code-logs.tsv") logged iterations" >&2
export HS_EXE HS_TMP
run_jobs "$jobs" "$HS_TMP/out"
run_jobs "$logjobs" "$HS_TMP/logs"

python3 - "$HS_REF_TSV" "$HS_TMP/out" "$HS_TMP/rows.csv" "$HS_TMP/ablation.txt" <<'PY'
import csv, glob, json, os, sys
ref, outdir, rows_csv, text = sys.argv[1:5]
meas = {}
order = []
for line in open(ref):
    if line.startswith("#") or not line.strip():
        continue
    f = line.rstrip("\n").split("\t")
    row = f"{f[1]}/{f[2]}"
    meas[row] = {"p": int(f[2]), "strategy": f[1], "emp_total": float(f[8]),
                 "emp_comp": float(f[6]), "emp_comm": float(f[7]),
                 "paradl_total": float(f[11]), "emp_rank": int(f[12])}
    order.append(row)
pred = {}
names = ["paradl"]
for job in sorted(glob.glob(os.path.join(outdir, "*.job")), key=lambda p: int(os.path.basename(p)[:-4])):
    row, name, _ = open(job).read().rstrip("\n").split("|", 2)
    if name not in names:
        names.append(name)
    try:
        j = json.load(open(job[:-4] + ".json"))
        pred[(row, name)] = (j["epoch"]["total_s"], j["epoch"]["compute_s"],
                             j["iteration"]["exposed_comm_s"] * j["iterations_per_epoch"])
    except (ValueError, KeyError, OSError):
        pass
for row in order:
    m = meas[row]
    pred[(row, "paradl")] = (m["paradl_total"], None, None)
acc = lambda row, name: (1 - abs(pred[(row, name)][0] - meas[row]["emp_total"]) /
                         meas[row]["emp_total"]) if (row, name) in pred else None
with open(rows_csv, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["row", "predictor", "measured_epoch_s", "predicted_epoch_s",
                "predicted_compute_s", "predicted_exposed_comm_s", "accuracy"])
    for row in order:
        for name in names:
            if (row, name) in pred:
                t, c, e = pred[(row, name)]
                w.writerow([row, name, meas[row]["emp_total"], f"{t:.6g}",
                            "" if c is None else f"{c:.6g}", "" if e is None else f"{e:.6g}",
                            f"{acc(row, name):.4f}"])
out = []
out.append("Accuracy per measured row (1 - |predicted - measured| / measured, epoch total)\n")
out.append(f"{'row':20s} {'measured':>9s} " + " ".join(f"{n:>14s}" for n in names))
for row in order:
    cells = [f"{acc(row, n):14.3f}" if acc(row, n) is not None else f"{'-':>14s}" for n in names]
    out.append(f"{row:20s} {meas[row]['emp_total']:9.0f} " + " ".join(cells))
means = {}
for n in names:
    a = [acc(r, n) for r in order if acc(r, n) is not None]
    means[n] = sum(a) / len(a) if len(a) == len(order) else None
out.append(f"{'mean':20s} {'':9s} " + " ".join(
    f"{means[n]:14.3f}" if means[n] is not None else f"{'-':>14s}" for n in names))
out.append("\nMeasured ranking held (strategies at each GPU count ordered by epoch time)\n")
counts = sorted({meas[r]["p"] for r in order})
out.append(f"{'GPUs':20s} " + " ".join(f"{n:>14s}" for n in names))
held_all = {n: 0 for n in names}
for p in counts:
    rows = [r for r in order if meas[r]["p"] == p]
    want = sorted(rows, key=lambda r: meas[r]["emp_rank"])
    cells = []
    for n in names:
        if not all((r, n) in pred for r in rows):
            cells.append(f"{'-':>14s}")
            continue
        got = sorted(rows, key=lambda r: pred[(r, n)][0])
        t = [pred[(r, n)][0] for r in got]
        tie = any(abs(b / a - 1) < 1e-6 for a, b in zip(t, t[1:]))
        held = got == want and not tie  # a tie does not tell the strategies apart
        held_all[n] += held
        cells.append(f"{'yes' if held else 'no':>14s}")
    out.append(f"{p:<20d} " + " ".join(cells))
out.append(f"{'held at':20s} " + " ".join(f"{f'{held_all[n]} of {len(counts)}':>14s}" for n in names))
open(text, "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
python3 "$here/code_logs.py" "$here/code-logs.tsv" "$HS_TMP/logs" "$HS_TMP/logs.csv" \
    >>"$HS_TMP/ablation.txt"
python3 "$here/call_cost.py" "$HS_REF_TSV" "$HS_TMP/out" "$here/code-logs.tsv" "$HS_TMP/logs" \
    >>"$HS_TMP/ablation.txt"
tail -n +"$(grep -n '^The code' "$HS_TMP/ablation.txt" | cut -d: -f1)" "$HS_TMP/ablation.txt"
hs_write "$HS_OUT/rows.csv" <"$HS_TMP/rows.csv"
hs_write "$HS_OUT/logs.csv" <"$HS_TMP/logs.csv"
hs_write "$HS_OUT/ablation.txt" <"$HS_TMP/ablation.txt"

# The picture: predicted against measured for ParaDL, the analytic model, the simulation's
# defaults, ParaDL's kernels, ParaDL's collectives, and both of ParaDL's.
plotted=("paradl|ParaDL's projections" "analytic|hybridsim analytic"
         "default|simulation, defaults" "compute=measured|simulation, --compute measured"
         "paradl collectives|simulation, ParaDL's halos and filter backward"
         "paradl both|simulation, ParaDL's kernels and collectives")
files=""
for p in "${plotted[@]}"; do
    name="${p%%|*}" file="${p%%|*}"
    file="${file//[^a-z]/_}"
    { printf 'measured "%s" strategy\n' "${p#*|}"
      awk -F, -v n="$name" 'NR > 1 && $2 == n { split($1, r, "/"); print $3, $4, r[1] }' \
          "$HS_TMP/rows.csv"; } >"$HS_TMP/$file.dat"
    files="$files${files:+ }$file"
done
hs_plot "$here/fidelity.gp" "$HS_OUT/fidelity" dir="$HS_TMP" names="$files"

# The logs' picture: the defaults against each logged iteration, a series per network and strategy
logfiles=""
for series in "resnet50 data+spatial" "resnet50 data" "resnet50 data+filter" "vgg16 data" "alexnet data" \
              "vgg16 data+spatial" "alexnet data+spatial"; do
    file="log_${series//[^a-z0-9]/_}"
    { printf 'logged "%s"\n' "$series"
      awk -F, -v m="${series% *}" -v s="${series#* }" \
          'NR > 1 && $1 == m && $2 == s && $5 == "default" { print $6, $7 }' "$HS_TMP/logs.csv"
    } >"$HS_TMP/$file.dat"
    logfiles="$logfiles${logfiles:+ }$file"
done
hs_plot "$here/logs.gp" "$HS_OUT/logs" dir="$HS_TMP" names="$logfiles"
HS_RAN=$n_jobs
hs_manifest
echo "fidelity: results in $HS_OUT (rows.csv, ablation.txt, fidelity.png)" >&2
