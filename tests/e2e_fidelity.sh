#!/usr/bin/env bash
# e2e_fidelity.sh: experiments/fidelity/run.sh predicts every measured ResNet-50 row of ABCI's
# Table VIII: every predictor present for every row, ParaDL's own projections scored against
# the table (mean accuracy 0.729, computed here from the table itself), the simulation's
# defaults (the kernel model alone), the same kernels anchored on ResNet-50's measured total,
# ParaDL's linear kernels, ParaDL's collectives and both at their committed means,
# the measured order held at the committed GPU counts (ParaDL's halos at all four, the
# defaults at none), step equal to flow on every row,
# the code's own logged iterations predicted (data+spatial's at its committed mean), and the
# tables written.
# Usage (from ctest): e2e_fidelity.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2" SHARED="$3"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
need_file "$SHARED/reference/measured/abci-resnet50-tableVIII.tsv" "ParaDL's measured table"

"$SRC/experiments/fidelity/run.sh" --exe "$HS" -o "$TMP/out" -j 2 \
    --reference "$SHARED/reference" >"$TMP/log" 2>&1 || fail "run: $(tail -5 "$TMP/log")"
python3 - "$TMP/out/rows.csv" "$SHARED/reference/measured/abci-resnet50-tableVIII.tsv" \
    "$TMP/out/logs.csv" <<'PY' ||
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
table = [l.split("\t") for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
names = {r["predictor"] for r in rows}
for n in ("paradl", "analytic", "default", "compute=model", "step", "allreduce=auto",
          "allreduce=tree", "overlap"):
    assert sum(r["predictor"] == n for r in rows) == len(table), n
paradl = [1 - abs(float(t[11]) - float(t[8])) / float(t[8]) for t in table]
mean = lambda n: sum(float(r["accuracy"]) for r in rows if r["predictor"] == n) / len(table)
assert abs(mean("paradl") - sum(paradl) / len(paradl)) < 1e-4, mean("paradl")
assert abs(mean("paradl") - 0.729) < 5e-4
# the defaults (kernels from the compute model alone; ChainerMN's halo chain and filter
# backward), anchored on the network's measured total, ParaDL's linear kernels, ParaDL's
# collectives, and both of ParaDL's (experiments/README.md)
for n, committed in (("default", 0.775), ("analytic", 0.753), ("compute=model", 0.798),
                     ("compute=measured", 0.686), ("paradl collectives", 0.655),
                     ("paradl both", 0.636)):
    assert abs(mean(n) - committed) < 5e-3, (n, mean(n))
def held(n):  # the GPU counts whose strategies n orders as measured
    ranked = {r["row"]: float(r["predicted_epoch_s"]) for r in rows if r["predictor"] == n}
    counts = 0
    for p in {t[2] for t in table}:
        here = [t for t in table if t[2] == p]
        by_measured = [t[1] for t in sorted(here, key=lambda t: float(t[8]))]
        by_ranked = [t[1] for t in sorted(here, key=lambda t: ranked[f"{t[1]}/{p}"])]
        counts += by_measured == by_ranked
    return counts
# ParaDL's halos keep data+spatial ahead at every count; the defaults' halo chain, with the
# DeepBench kernels' element-wise layers at the roofline, puts data+filter ahead at every count
# (experiments/README.md, fidelity)
assert held("halo=sendrecv") == 4 and held("default") == 0, (held("halo=sendrecv"), held("default"))
# the code's own logs: every logged iteration predicted; data+spatial's, which the halo chain
# explains, at its committed mean (ParaDL's halos: half the time)
logs = list(csv.DictReader(open(sys.argv[3])))
assert len({(r["log"], r["predictor"]) for r in logs}) == len(logs) == 33 * 2 + 20 * 3, len(logs)
ds = lambda n: [float(r["accuracy"]) for r in logs if r["model"] == "resnet50" and
                r["strategy"] == "data+spatial" and r["predictor"] == n]
assert abs(sum(ds("default")) / 8 - 0.888) < 5e-3, ds("default")
assert min(ds("default")[:-1]) > 0.9 and max(ds("halo=sendrecv")) < 0.6, ds("halo=sendrecv")
# data+filter's logged runs (CUDA managed memory) take 14-15x the simulated iteration, where
# the table's rows of the same configuration take 1.6-2x (experiments/README.md)
df = [r for r in logs if r["strategy"] == "data+filter" and r["predictor"] == "default"]
assert len(df) == 8 and all(13.5 < float(r["measured_iter_s"]) / float(r["predicted_iter_s"])
                            < 15.5 for r in df), df
step = {r["row"]: float(r["predicted_epoch_s"]) for r in rows if r["predictor"] == "step"}
flow = {r["row"]: float(r["predicted_epoch_s"]) for r in rows if r["predictor"] == "default"}
assert all(abs(step[k] / flow[k] - 1) < 1e-5 for k in flow), (step, flow)
PY
    fail "predictions"
grep -q "^mean" "$TMP/out/ablation.txt" || fail "ablation table"
grep -q "^held at" "$TMP/out/ablation.txt" || fail "ranking table"
# The host-cost sensitivity: the calls counted from the defaults' layers (98 an iteration for
# data+filter: a gather and an alltoall per split layer), and at no cost the defaults' mean.
python3 - "$TMP/out/ablation.txt" <<'PY' || fail "call-cost sensitivity"
import re, sys
text = open(sys.argv[1]).read()
calls = re.search(r"^calls an iteration: (.*)$", text, re.M).group(1)
assert "data+filter/32 98" in calls and "data+spatial/32 72-144" in calls, calls
default_mean = float(re.search(r"^mean\s+.*", text, re.M).group(0).split()[3])
zero = re.search(r"^\s+0\.0ms\s+(\S+)\s+(\S+)", text, re.M)
# (each table rounds the same mean to 3 digits: 0.797575 prints 0.798 in one, 0.797 the other)
assert abs(float(zero.group(1)) - default_mean) <= 0.0011 and \
    zero.group(1) == zero.group(2), (zero.groups(), default_mean)
PY
if command -v gnuplot >/dev/null; then
    [ -s "$TMP/out/fidelity.png" ] && [ -s "$TMP/out/fidelity.svg" ] || fail "no fidelity plot"
    [ -s "$TMP/out/logs.png" ] && [ -s "$TMP/out/logs.svg" ] || fail "no logs plot"
fi

finish e2e_fidelity
