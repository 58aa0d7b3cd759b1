#!/usr/bin/env bash
# e2e_halo_chain.sh: --halo chain (the default), spatial halos as ChainerMN sends them over MPI: a synchronous
# send (done when the receiver has the message, staged through host memory; the staging latency
# paid once the receiver answered), then the receive, so a direction's p2 - 1 messages follow
# one another. ResNet-50 spatial on 4 GPUs: the simulated iteration agrees with the closed form
# ((p2 - 1) halo messages a direction, each alone on its links) within 1% and exceeds the
# sendrecv exchange's; at other group sizes (CosmoFlow-256, 2 to 64 GPUs a group) the chain
# costs 2 (p2 - 1) message times, the same as sendrecv at 2 and growing alike a rank in the
# simulation and the closed form; without the flag the chain runs; a strategy file takes either
# (the flag, <setting key="halo"/> in the file, or a runtime's): data+spatial:4x4 written as a
# file gives the built-in's times, simulated and analytic, with each; other strategies refuse the
# flag (exit 2).
# Usage (from ctest): e2e_halo_chain.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

for h in sendrecv chain; do
    "$HS" compare -w resnet50 -p abci -s spatial -g 4 -b 64 --halo $h --json >"$TMP/$h.json" \
        2>"$TMP/err" || fail "compare --halo $h: $(cat "$TMP/err")"
done
python3 - "$TMP" <<'PY' || fail "chain"
import json, sys
d = sys.argv[1]
sr, ch = (json.load(open(f"{d}/{h}.json")) for h in ("sendrecv", "chain"))
assert ch["simulate"]["halo"] == "chain" and sr["simulate"]["halo"] == "sendrecv"
a, s = ch["analytic"]["iteration"]["total_s"], ch["simulate"]["iteration"]["total_s"]
assert abs(s / a - 1) < 0.01, (a, s)
assert s > 2 * sr["simulate"]["iteration"]["total_s"] * 0.9, (s, sr["simulate"]["iteration"])
print(f"spatial 4 GPUs: sendrecv {sr['simulate']['iteration']['total_s']:.4f} s, chain {s:.4f} s "
      f"simulated, {a:.4f} s analytic")
PY
# Other group sizes (chainermnx's halo_exchange hard-codes 4 ranks; its chain generalised): a
# rank sends up, then receives from below, then sends down, then receives from above, each send
# synchronous, so the up messages go one after another from the top rank down, and the down
# ones after them: 2 (p2 - 1) message times where the sendrecv exchange takes 2. At 2 GPUs the
# two are the same; beyond, the chain's excess grows by the same amount a rank (CosmoFlow-256,
# 16 to 64 GPUs a group), in the simulation and the closed form alike.
for p2 in 2 16 32 64; do
    for h in sendrecv chain; do
        "$HS" compare -w cosmoflow-256 -p abci -s spatial -g $p2 -b 4 --halo $h --json \
            >"$TMP/cf-$p2-$h.json" 2>"$TMP/err" || fail "cosmoflow-256 -g $p2 --halo $h: $(cat "$TMP/err")"
    done
done
python3 - "$TMP" <<'PY' || fail "the chain at other group sizes"
import json, sys
d = sys.argv[1]
def total(p2, h, model):
    return json.load(open(f"{d}/cf-{p2}-{h}.json"))[model]["iteration"]["total_s"]
# (up to rounding: the two orders reach the ring's start through different sums)
assert abs(total(2, "chain", "simulate") / total(2, "sendrecv", "simulate") - 1) < 1e-12, "2 GPUs"
for model, tol in (("simulate", 0.01), ("analytic", 0.05)):
    ex = {p2: total(p2, "chain", model) - total(p2, "sendrecv", model) for p2 in (16, 32, 64)}
    a, b = (ex[32] - ex[16]) / 16, (ex[64] - ex[32]) / 32
    assert abs(b / a - 1) < tol, (model, ex)
    print(f"{model}: the chain's excess over sendrecv {ex[16]:.3f}, {ex[32]:.3f}, {ex[64]:.3f} s "
          f"at 16, 32, 64 GPUs a group ({a * 1e3:.1f}, {b * 1e3:.1f} ms a rank)")
sim = lambda p2: total(p2, "chain", "simulate") - total(p2, "sendrecv", "simulate")
ana = lambda p2: total(p2, "chain", "analytic") - total(p2, "sendrecv", "analytic")
assert abs((ana(64) - ana(16)) / (sim(64) - sim(16)) - 1) < 0.05, "closed form vs simulation"
PY
"$HS" simulate -w resnet50 -p abci -s spatial -g 4 -b 64 --json >"$TMP/default.json" 2>"$TMP/err" ||
    fail "spatial, default halo: $(cat "$TMP/err")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
assert d["halo"] == "chain" and d["iteration"] == c["simulate"]["iteration"], d' \
    "$TMP/default.json" "$TMP/chain.json" || fail "the default is not the chain"
"$HS" analytic -w resnet50 -p abci -s filter -g 4 -b 64 --halo chain >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] &&
    grep -qF -- "--halo: for spatial, data+spatial and strategy files, not filter" "$TMP/err" ||
    fail "filter with --halo: exit $rc, $(cat "$TMP/err")"

# A strategy file: data+spatial:4x4 as a per-layer plan, its halos as the flag or the file says.
ds=(-w resnet50 -p abci -g 16 -b 64)
"$HS" strategy --generate data+spatial:4x4 "${ds[@]:0:2}" -g 16 -b 64 -o "$TMP/ds.xml" >/dev/null ||
    fail "generate data+spatial:4x4"
with_setting "$TMP/ds.xml" "$TMP/ds-sr.xml" halo sendrecv || fail "the file with a halo setting"
for h in chain sendrecv; do
    for s in data+spatial:4x4 "$TMP/ds.xml"; do
        f=builtin; [ "$s" = "$TMP/ds.xml" ] && f=file
        "$HS" compare "${ds[@]}" -s "$s" --halo $h --json >"$TMP/ds-$f-$h.json" 2>"$TMP/err" ||
            fail "compare $f --halo $h: $(cat "$TMP/err")"
    done
done
"$HS" compare "${ds[@]}" -s "$TMP/ds-sr.xml" --json >"$TMP/ds-setting.json" 2>"$TMP/err" ||
    fail "compare, the file's halo setting: $(cat "$TMP/err")"
python3 - "$TMP" <<'PY' || fail "a strategy file's halos"
import json, sys
d = sys.argv[1]
load = lambda n: json.load(open(f"{d}/ds-{n}.json"))
t = lambda r, m: r[m]["iteration"]["total_s"]
for h in ("chain", "sendrecv"):
    b, f = load(f"builtin-{h}"), load(f"file-{h}")
    for m in ("analytic", "simulate"):  # the file's plan and the built-in's lists agree to 0.05%
        assert abs(t(f, m) / t(b, m) - 1) < 5e-4, (h, m, t(f, m), t(b, m))
    print(f"{h}: built-in {t(b, 'simulate'):.5f} s simulated, {t(b, 'analytic'):.5f} s analytic;"
          f" file {t(f, 'simulate'):.5f}, {t(f, 'analytic'):.5f}")
sr, ch, st = load("file-sendrecv"), load("file-chain"), load("setting")
assert t(sr, "simulate") < 0.5 * t(ch, "simulate"), (t(sr, "simulate"), t(ch, "simulate"))
assert sr["simulate"]["halo"] == "sendrecv" and "halo" not in ch["simulate"], ch["simulate"]
assert st["simulate"]["iteration"] == sr["simulate"]["iteration"], "the file's setting"
assert st["analytic"]["iteration"] == sr["analytic"]["iteration"], "the file's setting"
PY
"$HS" simulate "${ds[@]}" -s "$TMP/ds-sr.xml" --halo chain --json >"$TMP/ds-over.json" 2>"$TMP/err" ||
    fail "the flag over the file's setting: $(cat "$TMP/err")"
python3 -c 'import json, sys; a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["iteration"] == b["simulate"]["iteration"], "--halo chain over the file"' \
    "$TMP/ds-over.json" "$TMP/ds-file-chain.json" || fail "--halo chain does not override the file"
# a runtime's halos reach a file as a built-in: ParaDL's sendrecv
for s in data+spatial:4x4 "$TMP/ds.xml"; do
    f=builtin; [ "$s" = "$TMP/ds.xml" ] && f=file
    "$HS" analytic "${ds[@]}" -s "$s" --runtime paradl --json >"$TMP/rt-$f.json" 2>"$TMP/err" ||
        fail "analytic $f --runtime paradl: $(cat "$TMP/err")"
done
python3 -c 'import json, sys; b, f = (json.load(open(p)) for p in sys.argv[1:3])
t = lambda r: r["iteration"]["total_s"]
assert f["halo"] == "sendrecv" and abs(t(f) / t(b) - 1) < 5e-4, (t(f), t(b))' \
    "$TMP/rt-builtin.json" "$TMP/rt-file.json" || fail "--runtime paradl: the file does not send its halos as the built-in"

# a sweep's --halo reaches the file's runs too, as the spatial built-ins'
"$HS" sweep "${ds[@]}" -s data,"$TMP/ds.xml" --halo sendrecv -m analytic -o "$TMP/sw.csv" --quiet \
    2>"$TMP/err" || fail "sweep --halo sendrecv with a file: $(cat "$TMP/err")"
python3 - "$TMP/sw.csv" "$TMP/ds-file-sendrecv.json" <<'PY' || fail "sweep: the file's run did not send its halos at once"
import csv, json, sys
row = next(r for r in csv.DictReader(open(sys.argv[1])) if r["strategy"].endswith("ds.xml"))
want = json.load(open(sys.argv[2]))["analytic"]["iteration"]["total_s"]
assert row["status"] == "ok" and abs(float(row["an_iter_total_s"]) / want - 1) < 1e-12, (row, want)
PY

finish e2e_halo_chain
