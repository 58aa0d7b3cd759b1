#!/usr/bin/env bash
# e2e_overlap.sh: --overlap reduces the gradients in 25 MiB buckets while the backward runs.
# ResNet-50 data parallelism on abci at 64 GPUs: the simulation hides most of the
# communication (exposed < comm, and less than the blocking run's), and the analytic bound
# (analytic/overlap.c) gives the same numbers to 1e-6 with the ring, as both follow the same
# recurrence on a free network. Filter and channel parallelism's weight-gradient kernels run
# behind their activation collectives (exposed < comm), and inside a node the analytic model's
# overlap order gives the simulation's numbers to 1e-6, under horovod-nccl's cycle too (no
# gradient allreduce: nothing waits for it). Under pytorch-ddp (its 1 MiB first bucket) with the
# ring, simulation and analytic bound agree as well, for ResNet-50 and EfficientNet-B0, whose
# 21 MB of gradients make two buckets where a copy of the runtime without first_bucket_bytes
# makes one. Data+filter, whose buckets' allreduces across the groups wait behind the filter
# collectives on one communication stream: where a group fills a node (2 GPUs a node, 2x2), so
# that the closed form of the allreduce across the groups is the simulation's, the two agree to
# 1e-6 with --overlap, under pytorch-ddp (its first bucket) and under horovod-nccl (its cycle);
# the same split as a per-layer plan keeps its fused gradients after the backward in both models
# (exposed = comm with --overlap; under the cycle, more: the wait for it), and agrees too.
# The analytic model refuses --overlap for the pipeline, whose overlap it does not model.
# Usage (from ctest): e2e_overlap.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

run=(-w resnet50 -p abci -s data -g 64 -b 2048)
"$HS" compare "${run[@]}" --json >"$TMP/blocking.json" 2>"$TMP/err" || fail "compare: $(cat "$TMP/err")"
"$HS" compare "${run[@]}" --overlap --json >"$TMP/overlap.json" 2>"$TMP/err" ||
    fail "compare --overlap: $(cat "$TMP/err")"
for s in filter channel; do # the overlap order, and under Horovod's cycle
    "$HS" compare -w resnet50 -p abci -s $s -g 4 -b 64 --overlap --json >"$TMP/$s.json" \
        2>"$TMP/err" || fail "compare $s --overlap: $(cat "$TMP/err")"
    "$HS" compare -w resnet50 -p abci -s $s -g 4 -b 64 --runtime horovod-nccl --json \
        >"$TMP/$s-horovod.json" 2>"$TMP/err" || fail "compare $s horovod-nccl: $(cat "$TMP/err")"
done
df=(-w resnet50 -p gen:abci:gpus-per-node=2 -s data+filter:2x2 -g 4 -b 64 --layers-top 0)
for r in overlap pytorch-ddp horovod-nccl; do # the hybrid's order, buckets and cycle
    flag=(--runtime "$r")
    [ "$r" != overlap ] || flag=(--overlap)
    "$HS" compare "${df[@]}" "${flag[@]}" --json >"$TMP/data+filter-$r.json" 2>"$TMP/err" ||
        fail "compare data+filter ${flag[*]}: $(cat "$TMP/err")"
done
"$HS" strategy --generate data+filter:2x2 -w resnet50 -g 4 -b 64 -o "$TMP/df.xml" >/dev/null \
    2>"$TMP/err" || fail "strategy --generate data+filter:2x2: $(cat "$TMP/err")"
for r in overlap horovod-nccl; do
    flag=(--runtime "$r")
    [ "$r" != overlap ] || flag=(--overlap)
    "$HS" compare "${df[@]/data+filter:2x2/$TMP/df.xml}" "${flag[@]}" --json \
        >"$TMP/plan-$r.json" 2>"$TMP/err" || fail "compare plan ${flag[*]}: $(cat "$TMP/err")"
done
python3 - "$TMP" <<'PY' || fail "overlap"
import json, sys
d = sys.argv[1]
b = json.load(open(f"{d}/blocking.json"))
o = json.load(open(f"{d}/overlap.json"))
s, a = o["simulate"]["iteration"], o["analytic"]["iteration"]
for k in ("comm_s", "exposed_comm_s", "total_s"):
    assert abs(s[k] / a[k] - 1) < 1e-6, (k, s[k], a[k])
blocking = b["simulate"]["iteration"]
print(f"data 64 GPUs: blocking comm {blocking['comm_s'] * 1e3:.2f} ms all exposed; overlap "
      f"comm {s['comm_s'] * 1e3:.2f} ms, exposed {s['exposed_comm_s'] * 1e3:.2f} ms")
assert s["exposed_comm_s"] < 0.5 * s["comm_s"], s
assert s["exposed_comm_s"] < 0.5 * blocking["exposed_comm_s"], (s, blocking)
assert s["comm_s"] > blocking["comm_s"]  # four buckets pay four rings' latencies
assert s["total_s"] < blocking["total_s"]
for k in ("filter", "channel", "filter-horovod", "channel-horovod"):
    o = json.load(open(f"{d}/{k}.json"))
    f, a = o["simulate"]["iteration"], o["analytic"]["iteration"]
    assert f["exposed_comm_s"] < f["comm_s"], (k, f)
    for t in ("comm_s", "exposed_comm_s", "total_s"):
        assert abs(f[t] / a[t] - 1) < 1e-6, (k, t, f[t], a[t])
for r in ("overlap", "pytorch-ddp", "horovod-nccl"):
    o = json.load(open(f"{d}/data+filter-{r}.json"))
    f, a = o["simulate"]["iteration"], o["analytic"]["iteration"]
    assert f["exposed_comm_s"] < f["comm_s"], (r, f)
    for t in ("comm_s", "exposed_comm_s", "total_s"):
        assert abs(f[t] / a[t] - 1) < 1e-6, (r, t, f[t], a[t])
    if r == "pytorch-ddp":
        continue
    p = json.load(open(f"{d}/plan-{r}.json"))
    g, b = p["simulate"]["iteration"], p["analytic"]["iteration"]
    for t in ("comm_s", "exposed_comm_s", "total_s"):
        assert abs(g[t] / b[t] - 1) < 1e-6, ("plan", r, t, g[t], b[t])
    assert (g["exposed_comm_s"] == g["comm_s"]) == (r == "overlap"), ("plan", r, g)
    assert g["exposed_comm_s"] > f["exposed_comm_s"], ("plan", r, g, f)
PY

# DDP's first bucket, the same in both models
grep -v '^first_bucket_bytes' "$SRC/workloads/runtime/pytorch-ddp.rt" >"$TMP/nofirst.rt"
for w in resnet50 efficientnet-b0; do
    for rt in pytorch-ddp "$TMP/nofirst.rt"; do
        "$HS" compare -w "$w" -p abci -s data -g 64 -b 2048 --runtime "$rt" --allreduce ring \
            --json >"$TMP/$w-$(basename "$rt" .rt).json" 2>"$TMP/err" ||
            fail "compare $w --runtime $rt: $(cat "$TMP/err")"
    done
done
python3 - "$TMP" <<'PY' || fail "DDP's first bucket"
import json, sys
d = sys.argv[1]
for w in ("resnet50", "efficientnet-b0"):
    for rt in ("pytorch-ddp", "nofirst"):
        o = json.load(open(f"{d}/{w}-{rt}.json"))
        s, a = o["simulate"]["iteration"], o["analytic"]["iteration"]
        for k in ("comm_s", "exposed_comm_s", "total_s"):
            assert abs(s[k] / a[k] - 1) < 1e-6, (w, rt, k, s[k], a[k])
it = lambda rt: json.load(open(f"{d}/efficientnet-b0-{rt}.json"))["simulate"]["iteration"]
first, one = it("pytorch-ddp"), it("nofirst")
# one bucket, all of it after the backward; the fc's first: two rings, part of it hidden
assert abs(one["exposed_comm_s"] / one["comm_s"] - 1) < 1e-9, one
assert first["comm_s"] > one["comm_s"], (first, one)
assert first["exposed_comm_s"] < one["exposed_comm_s"], (first, one)
print(f"efficientnet-b0 64 GPUs: one bucket {one['exposed_comm_s'] * 1e3:.3f} ms exposed, "
      f"1 MiB first bucket {first['exposed_comm_s'] * 1e3:.3f} ms")
PY

"$HS" analytic -w resnet50 -p abci -s pipeline -g 4 -b 64 --overlap >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "analytic --overlap pipeline: exit $rc, not 2"
grep -q "the analytic model's overlap order is the layer-wise strategies'" \
    "$TMP/err" || fail "analytic --overlap pipeline: message $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "analytic --overlap pipeline wrote to stdout"

finish e2e_overlap
