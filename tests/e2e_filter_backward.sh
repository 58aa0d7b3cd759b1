#!/usr/bin/env bash
# e2e_filter_backward.sh: --filter-backward reduce-scatter (the default) and allreduce
# (ParaDL's). Filter parallelism's output
# gradients are partial sums of which each GPU needs only its filters' slice (ChainerMN's
# allgather backward), so a reduce-scatter replaces ParaDL's allreduce: the reduction term
# costs what the allgather does, two units of communication instead of three, in the analytic
# model and the simulation alike (ResNet-50 filter on 8 GPUs, data+filter 8x4 on 32); without
# the flag the reduce-scatter runs; with --job it reaches the filter jobs only. A strategy file
# takes it (the flag, <setting key="filter-backward"/>, a runtime's): data+filter:4x4 written as
# a file gives the built-in's times with either. Other strategies refuse the flag (exit 2).
# Usage (from ctest): e2e_filter_backward.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

for run in "filter -g 8 -b 64" "data+filter:8x4 -g 32 -b 512"; do
    name="${run%% *}"; name="${name%%:*}"
    for c in allreduce reduce-scatter default; do
        flag=(--filter-backward "$c")
        [ "$c" = default ] && flag=()
        # shellcheck disable=SC2086
        "$HS" compare -w resnet50 -p abci -s $run "${flag[@]}" --json \
            >"$TMP/$name-$c.json" 2>"$TMP/err" || fail "$name $c: $(cat "$TMP/err")"
    done
done
python3 - "$TMP" <<'PY' || fail "reduce-scatter backward"
import json, sys
d = sys.argv[1]
for name in ("filter", "data+filter"):
    ar = json.load(open(f"{d}/{name}-allreduce.json"))["difference_terms"]
    rs = json.load(open(f"{d}/{name}-reduce-scatter.json"))
    default = json.load(open(f"{d}/{name}-default.json"))
    assert rs["analytic"]["filter_backward"] == "reduce-scatter"
    assert default["analytic"] == rs["analytic"] and default["simulate"] == rs["simulate"]
    t = rs["difference_terms"]
    g, r = t["activation_allgather"], t["activation_allreduce"]
    assert abs(r["analytic_s"] / g["analytic_s"] - 1) < 1e-12, (name, g, r)
    assert abs(ar["activation_allreduce"]["analytic_s"] / (2 * g["analytic_s"]) - 1) < 0.01
    if name == "filter":  # one node: no contention, the simulation is the closed form
        for k in (g, r):
            assert abs(k["simulated_s"] / k["analytic_s"] - 1) < 1e-9, (name, k)
    print(f"{name}: output-gradient reduction {ar['activation_allreduce']['analytic_s']:.4f} s "
          f"allreduced, {r['analytic_s']:.4f} s reduce-scattered")
PY
# With --job the flag reaches the jobs that have a filter backward, and the others run as they are
"$HS" simulate -p abci --json --filter-backward allreduce \
    --job "name=a,w=resnet50,s=data+filter:2x4,g=8,b=128" --job "name=b,w=resnet50,s=data,g=8,b=256" \
    >"$TMP/jobs.json" 2>"$TMP/err" || fail "two jobs with --filter-backward: $(cat "$TMP/err")"
python3 - "$TMP/jobs.json" <<'PY' || fail "--filter-backward with --job"
import json, sys
runs = {j["job"]: j["run"] for j in json.load(open(sys.argv[1]))}
assert runs["a"]["filter_backward"] == "allreduce" and "filter_backward" not in runs["b"], runs
PY
"$HS" analytic -w resnet50 -p abci -s data -g 8 -b 64 --filter-backward reduce-scatter \
    >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] &&
    grep -qF -- "--filter-backward: for filter, data+filter and strategy files, not data" "$TMP/err" ||
    fail "data with --filter-backward: exit $rc, $(cat "$TMP/err")"

# A strategy file: data+filter:4x4 as a per-layer plan, its gathers as the flag, the file or
# the runtime says (ParaDL's runtime: allreduce)
df=(-w resnet50 -p abci -g 16 -b 64)
"$HS" strategy --generate data+filter:4x4 "${df[@]:0:2}" -g 16 -b 64 -o "$TMP/df.xml" >/dev/null ||
    fail "generate data+filter:4x4"
with_setting "$TMP/df.xml" "$TMP/df-ar.xml" filter-backward allreduce || fail "the file with a filter-backward setting"
for c in reduce-scatter allreduce; do
    for s in data+filter:4x4 "$TMP/df.xml"; do
        f=builtin; [ "$s" = "$TMP/df.xml" ] && f=file
        "$HS" compare "${df[@]}" -s "$s" --filter-backward $c --json >"$TMP/df-$f-$c.json" \
            2>"$TMP/err" || fail "compare $f --filter-backward $c: $(cat "$TMP/err")"
    done
done
"$HS" compare "${df[@]}" -s "$TMP/df-ar.xml" --json >"$TMP/df-setting.json" 2>"$TMP/err" ||
    fail "compare, the file's filter-backward setting: $(cat "$TMP/err")"
for s in data+filter:4x4 "$TMP/df.xml"; do
    f=builtin; [ "$s" = "$TMP/df.xml" ] && f=file
    "$HS" analytic "${df[@]}" -s "$s" --runtime paradl --json >"$TMP/df-rt-$f.json" 2>"$TMP/err" ||
        fail "analytic $f --runtime paradl: $(cat "$TMP/err")"
done
python3 - "$TMP" <<'PY' || fail "a strategy file's filter backward"
import json, sys
d = sys.argv[1]
load = lambda n: json.load(open(f"{d}/df-{n}.json"))
t = lambda r, m: r[m]["iteration"]["total_s"]
for c in ("reduce-scatter", "allreduce"):
    b, f = load(f"builtin-{c}"), load(f"file-{c}")
    for m in ("analytic", "simulate"):
        assert abs(t(f, m) / t(b, m) - 1) < 1e-9, (c, m, t(f, m), t(b, m))
    print(f"data+filter:4x4 {c}: built-in {t(b, 'simulate'):.6f} s simulated, "
          f"{t(b, 'analytic'):.6f} s analytic; file {t(f, 'simulate'):.6f}, {t(f, 'analytic'):.6f}")
ar, rs, st = load("file-allreduce"), load("file-reduce-scatter"), load("setting")
assert t(ar, "simulate") > t(rs, "simulate"), (t(ar, "simulate"), t(rs, "simulate"))
assert ar["simulate"]["filter_backward"] == "allreduce" and "filter_backward" not in rs["simulate"]
assert st["simulate"]["iteration"] == ar["simulate"]["iteration"], "the file's setting"
b, f = load("rt-builtin")["iteration"]["total_s"], load("rt-file")["iteration"]["total_s"]
assert abs(f / b - 1) < 1e-9, ("--runtime paradl", f, b)
PY

finish e2e_filter_backward
