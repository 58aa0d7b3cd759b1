#!/usr/bin/env bash
# e2e_runtime.sh: --runtime NAME (workloads/runtime/). `hybridsim runtimes` lists the shipped
# files; analytic --runtime paradl is the run with ParaDL's collectives said by flags; a flag
# given with a runtime overrides it; pytorch-ddp reduces in 25 MiB buckets with NCCL's choice
# (without its 1 MiB first bucket, the comm of --overlap --allreduce auto; with it, more) and
# sends FP32 gradients under mixed precision;
# horovod-nccl's 64 MiB fusions are fewer than DDP's buckets, and wait for its 5 ms cycle alike
# in both answers, and with gradients_ready = backward all wait for the backward's end, as a
# data-only plan's fused gradients do;
# pytorch-ddp's depthwise
# convolutions take half their TF32 time under AMP (depthwise_limit = bytes); bad runtimes and
# runtime files exit 2 naming the file and line; pytorch-ddp's input loader bounds an iteration
# at a GPU's batch over its workers' rate, alike in both answers.
# Usage (from ctest): e2e_runtime.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

"$HS" runtimes >"$TMP/list" 2>"$TMP/err" || fail "runtimes: $(cat "$TMP/err")"
for n in chainermn horovod-mxnet-mlperf horovod-nccl paradl pytorch-ddp; do
    grep -q "^  $n " "$TMP/list" || fail "runtimes does not list $n"
done
"$HS" --help >"$TMP/help" || fail "--help: exit $?"
grep -q -- "--runtime R" "$TMP/help" || fail "--help does not name --runtime"

# ParaDL's closed form: the runtime alone is the two flags and ParaDL's measured kernels
for s in "data+filter:8x4" "data+spatial:8x4" "filter"; do
    b=512; [ "$s" = filter ] && b=64
    run=(-w resnet50 -p abci -s "$s" -g 32 -b "$b" --json)
    "$HS" analytic "${run[@]}" --runtime paradl >"$TMP/rt.json" 2>"$TMP/err" ||
        fail "analytic $s --runtime paradl: $(cat "$TMP/err")"
    extra=(--filter-backward allreduce --compute measured)
    [ "$s" = "data+spatial:8x4" ] && extra=(--halo sendrecv --compute measured)
    "$HS" analytic "${run[@]}" "${extra[@]}" >"$TMP/flags.json" 2>"$TMP/err" ||
        fail "analytic $s ${extra[*]}: $(cat "$TMP/err")"
    grep -q '"runtime": "paradl"' "$TMP/rt.json" || fail "$s: the JSON does not name the runtime"
    sed -i 's/, "runtime": "paradl"//' "$TMP/rt.json"
    cmp -s "$TMP/rt.json" "$TMP/flags.json" || fail "$s: --runtime paradl is not ${extra[*]}"
done

# a flag overrides the runtime: paradl with --halo chain --compute kernels is the default run
run=(-w resnet50 -p abci -s data+spatial:8x4 -g 32 -b 2048 --json)
"$HS" analytic "${run[@]}" --runtime paradl --halo chain --compute kernels >"$TMP/over.json" \
    2>"$TMP/err" || fail "--runtime paradl --halo chain --compute kernels: $(cat "$TMP/err")"
"$HS" analytic "${run[@]}" >"$TMP/default.json" 2>"$TMP/err" || fail "default: $(cat "$TMP/err")"
sed -i 's/, "runtime": "paradl"//' "$TMP/over.json"
cmp -s "$TMP/over.json" "$TMP/default.json" || fail "--halo chain does not override paradl's"

# NCCL runtimes on a DGX-1 pair: DDP's buckets but the first are --overlap's with NCCL's choice
run=(-w resnet50-v1.5 -p gen:dgx1:nodes=2,gpu=v100-sxm2-16gb -s data -g 16 -b 1024 --json)
"$HS" simulate "${run[@]}" --runtime pytorch-ddp >"$TMP/ddp.json" 2>"$TMP/err" ||
    fail "pytorch-ddp: $(cat "$TMP/err")"
grep -v '^first_bucket_bytes' "$SRC/workloads/runtime/pytorch-ddp.rt" >"$TMP/nofirst.rt"
"$HS" simulate "${run[@]}" --runtime "$TMP/nofirst.rt" >"$TMP/nofirst.json" 2>"$TMP/err" ||
    fail "pytorch-ddp without first_bucket_bytes: $(cat "$TMP/err")"
"$HS" simulate "${run[@]}" --overlap --allreduce auto >"$TMP/flags.json" 2>"$TMP/err" ||
    fail "--overlap --allreduce auto: $(cat "$TMP/err")"
"$HS" simulate "${run[@]}" --runtime horovod-nccl >"$TMP/hvd.json" 2>"$TMP/err" ||
    fail "horovod-nccl: $(cat "$TMP/err")"
"$HS" simulate "${run[@]}" --runtime pytorch-ddp --precision mixed >"$TMP/ddp16.json" \
    2>"$TMP/err" || fail "pytorch-ddp mixed: $(cat "$TMP/err")"
"$HS" simulate "${run[@]}" --overlap --allreduce auto --precision mixed >"$TMP/o2.json" \
    2>"$TMP/err" || fail "mixed, FP16 gradients: $(cat "$TMP/err")"
python3 - "$TMP" <<'PY' || fail "NCCL runtimes"
import json, sys
d = sys.argv[1]
it = lambda n: json.load(open(f"{d}/{n}.json"))["iteration"]
ddp, flags, hvd, nofirst = it("ddp"), it("flags"), it("hvd"), it("nofirst")
# the same buckets and algorithms: the same communication (FP32 gradients either way)
assert abs(nofirst["comm_s"] / flags["comm_s"] - 1) < 1e-9, (nofirst, flags)
# the 1 MiB first bucket (the fc's gradients) reduced alone, the later ones shifted: more
# allreduces
assert ddp["comm_s"] > nofirst["comm_s"], (ddp, nofirst)
assert ddp["compute_s"] == nofirst["compute_s"], (ddp, nofirst)
# DDP's SGD adds its optimizer's kernels to the compute
assert ddp["compute_s"] > flags["compute_s"], (ddp, flags)
# Horovod's 64 MiB fusions: fewer allreduces, more of them exposed after the backward
assert hvd["exposed_comm_s"] > ddp["exposed_comm_s"], (hvd, ddp)
# under AMP DDP still sends 4-byte gradients, the O2 convention 2
assert it("ddp16")["comm_s"] > 1.5 * it("o2")["comm_s"], (it("ddp16"), it("o2"))
PY

# compare_under PREFIX RUNTIME...: "$HS" compare "${run[@]}" under each runtime, its JSON in
# $TMP/PREFIX-$(basename RUNTIME).json; an error fails the test.
compare_under() {
    local prefix="$1" r
    shift
    for r in "$@"; do
        "$HS" compare "${run[@]}" --runtime "$r" >"$TMP/$prefix-$(basename "$r").json" \
            2>"$TMP/err" || fail "${run[1]} --runtime $r: $(cat "$TMP/err")"
    done
}

# horovod-nccl's 5 ms cycle (cycle_time_s): UNet_Industrial on 8 A100s at 2 images a GPU, its
# gradients one fusion: the allreduce waits for the next cycle after the backward, in both
# answers alike; a copy of the file without the key starts it at once
run=(-w unet-industrial -p gen:nvswitch-ndr:gpu=a100-40gb -s data -g 8 -b 16 --precision mixed --json)
grep -v '^cycle_time_s' "$SRC/workloads/runtime/horovod-nccl.rt" >"$TMP/nocycle.rt"
compare_under cyc horovod-nccl "$TMP/nocycle.rt"
python3 - "$TMP" <<'PY' || fail "horovod-nccl's cycle"
import json, sys
d = sys.argv[1]
c, n = (json.load(open(f"{d}/cyc-{x}.json")) for x in ("horovod-nccl", "nocycle.rt"))
for j in (c, n):
    a, s = j["analytic"]["iteration"], j["simulate"]["iteration"]
    assert abs(a["total_s"] / s["total_s"] - 1) < 1e-9, (a, s)
it, it0 = c["simulate"]["iteration"], n["simulate"]["iteration"]
assert abs(it["comm_s"] / it0["comm_s"] - 1) < 1e-9
assert abs(it["compute_s"] / it0["compute_s"] - 1) < 1e-12, (it, it0)
# the fusion waits for the cycle: more exposed, by less than a cycle
wait = it["total_s"] - it0["total_s"]
assert 1e-3 < wait < 5e-3, (it, it0)
assert abs(it["exposed_comm_s"] - it0["exposed_comm_s"] - wait) < 1e-9, (it, it0)
PY

# gradients_ready = backward (TensorFlow's XLA cluster): ResNet-50's fusions all wait for the
# backward's end, so every allreduce is exposed, plus the wait for the cycle after it, alike
# in both answers; horovod-nccl (each as its kernels end) hides some of them
run=(-w resnet50-v1.5 -p gen:dgx1:gpu=v100-sxm2-16gb -s data -g 8 -b 256 --precision mixed --json)
{ cat "$SRC/workloads/runtime/horovod-nccl.rt"
  printf '# source: a\ngradients_ready = backward\n'; } >"$TMP/atend.rt"
compare_under end horovod-nccl "$TMP/atend.rt"
python3 - "$TMP" <<'PY' || fail "gradients_ready = backward"
import json, sys
d = sys.argv[1]
e, k = (json.load(open(f"{d}/end-{x}.json")) for x in ("atend.rt", "horovod-nccl"))
waits = [e[a]["iteration"]["exposed_comm_s"] - e[a]["iteration"]["comm_s"]
         for a in ("analytic", "simulate")]
assert abs(waits[0] - waits[1]) < 1e-9 and 0 <= waits[0] < 5e-3, (e, waits)
it, it0 = e["simulate"]["iteration"], k["simulate"]["iteration"]
assert abs(it["compute_s"] / it0["compute_s"] - 1) < 1e-9, (it, it0)
assert abs(it["comm_s"] / it0["comm_s"] - 1) < 1e-9, (it, it0)
assert it0["exposed_comm_s"] < it0["comm_s"] - 1e-3, it0
PY

# a per-layer plan's fused gradients wait for the cycle as the built-ins' buckets: data written
# as a plan, under gradients_ready = backward, waits as long as -s data in both answers; with
# one 1 GiB fusion (the plan's one fused buffer; 64 MiB makes the built-in's two) the times
# are the same. A plan adds no gradient copies (gradient_copy_kernels_per_tensor,
# workloads/runtime/README.md): both run the runtime less them
"$HS" strategy --generate data -w resnet50-v1.5 -g 8 -b 256 -o "$TMP/data.xml" >/dev/null \
    2>"$TMP/err" || fail "generate data: $(cat "$TMP/err")"
grep -v '^gradient_copy_kernels_per_tensor' "$TMP/atend.rt" >"$TMP/plain.rt"
sed 's/^bucket_bytes = 64 MiB/bucket_bytes = 1024 MiB/' "$TMP/plain.rt" >"$TMP/one.rt"
compare_under end "$TMP/plain.rt" "$TMP/one.rt"
run[5]="$TMP/data.xml"
compare_under plan "$TMP/plain.rt" "$TMP/one.rt"
python3 - "$TMP" <<'PY' || fail "a plan's gradients and the cycle"
import json, sys
d = sys.argv[1]
j = lambda n: json.load(open(f"{d}/{n}.json"))
for a in ("analytic", "simulate"):
    e, p = j("end-plain.rt")[a]["iteration"], j("plan-plain.rt")[a]["iteration"]
    wait = lambda it: it["exposed_comm_s"] - it["comm_s"]
    assert wait(e) > 1e-3 and abs(wait(p) - wait(e)) < 1e-9, (a, e, p)
    b, q = j("end-one.rt")[a]["iteration"], j("plan-one.rt")[a]["iteration"]
    assert all(abs(q[k] / b[k] - 1) < 1e-9 for k in ("total_s", "comm_s", "compute_s")), (a, b, q)
PY

# two jobs of one run share the cycle: different periods are refused, nothing printed
sed 's/^cycle_time_s = 0.005/cycle_time_s = 0.001/' "$SRC/workloads/runtime/horovod-nccl.rt" \
    >"$TMP/cycle1.rt"
"$HS" simulate -p gen:nvswitch-ndr:gpu=a100-40gb,nodes=2 \
    --job "w=unet-industrial,s=data,g=8,b=16,runtime=horovod-nccl" \
    --job "w=unet-industrial,s=data,g=8,b=16,runtime=$TMP/cycle1.rt" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 2 ] && [ ! -s "$TMP/out" ] && grep -q "different cycle times (0.005 s and 0.001 s)" \
    "$TMP/err" || fail "jobs of two cycles: exit $rc, $(cat "$TMP/err")"

# pytorch-ddp's depthwise convolutions (depthwise_limit = bytes): under AMP (cuDNN's
# channels-last kernels, 2-byte elements) about half their TF32 time (4-byte, the calibrated
# rate) on the same A100; a copy of the file without the key times them alike
run=(-w efficientnet-b0 -p gen:nvswitch-ndr:gpu=a100-80gb -s serial -g 1 -b 64 --json)
grep -v '^depthwise_limit' "$SRC/workloads/runtime/pytorch-ddp.rt" >"$TMP/flops.rt"
for p in tf32 mixed; do
    for r in pytorch-ddp "$TMP/flops.rt"; do
        "$HS" simulate "${run[@]}" --precision "$p" --runtime "$r" \
            >"$TMP/dw-$p-$(basename "$r").json" 2>"$TMP/err" ||
            fail "efficientnet-b0 $p --runtime $r: $(cat "$TMP/err")"
    done
done
python3 - "$TMP" <<'PY' || fail "pytorch-ddp's depthwise convolutions under AMP"
import json, sys
d = sys.argv[1]
def dw(p, rt):  # features_1_0_block_0_0: the first depthwise 3x3, 32 channels at 112x112
    l = json.load(open(f"{d}/dw-{p}-{rt}.json"))["layers"]
    return sum(x["forward"]["compute_s"] for x in l if x["name"] == "features_1_0_block_0_0")
ratio = dw("mixed", "pytorch-ddp") / dw("tf32", "pytorch-ddp")
assert 0.5 <= ratio < 0.55, ratio  # half, plus the launch both pay
assert abs(dw("mixed", "flops.rt") / dw("tf32", "flops.rt") - 1) < 1e-9
assert dw("tf32", "flops.rt") == dw("tf32", "pytorch-ddp")
PY

# bad runtimes
expect_bad unknown "--runtime: unknown runtime 'tensorflow9'" \
    "$HS" analytic -w resnet50 -p abci -s data -g 8 -b 256 --runtime tensorflow9
expect_bad empty "--runtime: empty name" \
    "$HS" analytic -w resnet50 -p abci -s data -g 8 -b 256 --runtime ""
printf 'description = x\nlibrary = mpi\n' >"$TMP/bad.rt"
expect_bad unsourced "bad.rt:2: library has no '# source:' comment" \
    "$HS" analytic -w resnet50 -p abci -s data -g 8 -b 256 --runtime "$TMP/bad.rt"
printf '# source: a\nlibrary = gloo\n' >"$TMP/bad.rt"
expect_bad word "bad.rt:2: library: unknown value 'gloo'" \
    "$HS" simulate -w resnet50 -p abci -s data -g 8 -b 256 --runtime "$TMP/bad.rt"
expect_bad args "runtimes takes no argument" "$HS" runtimes extra
expect_bad job "--job 1 (job1): --runtime: unknown runtime 'nope'" \
    "$HS" simulate -p abci --job "w=resnet50,s=data,g=8,b=256,runtime=nope"

# the other commands take it: --job runtime=, a sweep's key, suggest
"$HS" simulate -p abci --job "w=resnet50,s=data,g=8,b=256,runtime=chainermn" >"$TMP/job" \
    2>"$TMP/err" || fail "--job runtime=: $(cat "$TMP/err")"
grep -q "rings gradient allreduce, batch 256, runtime chainermn" "$TMP/job" ||
    fail "--job runtime=chainermn: not its NCCL 2.3 rings: $(head -4 "$TMP/job")"
"$HS" sweep -w resnet50 -p abci -s data -g 8 -b 256 --runtime chainermn -o "$TMP/sw.csv" \
    >/dev/null 2>"$TMP/err" || fail "sweep --runtime: $(cat "$TMP/err")"
grep -q "runtime=chainermn" "$TMP/sw.csv" || fail "sweep: the CSV key does not name the runtime"
"$HS" suggest -w resnet50 -p abci -g 32 -b 512 --top 1 --runtime chainermn >"$TMP/sg" \
    2>"$TMP/err" || fail "suggest --runtime: $(cat "$TMP/err")"
grep -q "runtime chainermn" "$TMP/sg" || fail "suggest does not name the runtime"
grep -q -- "--allreduce rings" "$TMP/sg" &&
    fail "suggest: the runtime's rings named as a variant (they are its own)"
# --optimizer-every N (a run's gradient accumulation): the iteration pays 1/N of the weight
# update (the table's update total), the rest unchanged; refused with the measured times
run=(-w resnet50-v1.5 -p gen:dgx1:gpu=v100-sxm2-16gb -s serial -g 1 -b 256 --precision mixed
     --runtime pytorch-ddp)
if expect_ok every1 simulate "${run[@]}"; then
    one=$(awk '$1 == "total" && NF == 8 {u = $5} /per iteration/ {t = $NF} END {print u, t}' \
        "$TMP/out")
    if expect_ok every8 simulate "${run[@]}" --optimizer-every 8; then
        eight=$(awk '$1 == "total" && NF == 8 {u = $5} /per iteration/ {t = $NF} END {print u, t}' \
            "$TMP/out")
        awk -v a="$one" -v b="$eight" 'BEGIN { split(a, x, " "); split(b, y, " ")
            exit !(x[1] > 0 && (y[1] * 8 - x[1]) ^ 2 < (2e-3 * x[1]) ^ 2 &&
                   (x[2] - y[2] - x[1] * 7 / 8) ^ 2 < (2e-3 * x[1]) ^ 2) }' ||
            fail "--optimizer-every 8: update, time '$eight' is not 1/8 of the update of '$one'"
    fi
fi
expect_bad every-measured "--optimizer-every 2: spaces out the compute model's weight updates" \
    "$HS" simulate -w resnet50 -p abci -s data -g 4 -b 128 --compute measured --optimizer-every 2

# The input pipeline (pytorch-ddp's loader_workers_per_gpu, loader_samples_per_s): a GPU's
# batch over its workers' rate is a floor on the iteration, the same in the simulation and the
# analytic model, named in the JSON and the table; more workers lift it, and an iteration the
# GPUs bound keeps the time it has without a loader (12 workers a GPU bound eight A100s in AMP,
# 48 do not)
a100=gen:nvswitch-ndr:gpu=a100-80gb,nvlink-gen=3,nvlink-links-per-gpu=12,pcie-gen=4,nic-type=hdr
run=(-w resnet50-v1.5 -p "$a100" -s data -g 8 -b 2048 --precision mixed --runtime pytorch-ddp
     --json)
grep -v '^loader_' "$SRC/workloads/runtime/pytorch-ddp.rt" >"$TMP/noloader.rt"
for m in simulate analytic; do
    "$HS" $m "${run[@]}" --loader-workers 12 >"$TMP/in-$m.json" 2>"$TMP/err" ||
        fail "$m --loader-workers 12: $(cat "$TMP/err")"
    "$HS" $m "${run[@]}" --loader-workers 48 >"$TMP/in48-$m.json" 2>"$TMP/err" ||
        fail "$m --loader-workers 48: $(cat "$TMP/err")"
    "$HS" $m "${run[@]/pytorch-ddp/$TMP/noloader.rt}" >"$TMP/none-$m.json" 2>"$TMP/err" ||
        fail "$m without a loader: $(cat "$TMP/err")"
done
python3 - "$TMP" "$SRC/workloads/runtime/pytorch-ddp.rt" <<'PY' || fail "the input pipeline"
import json, re, sys
tmp, rt = sys.argv[1:3]
rate = float(re.search(r"^loader_samples_per_s = (\S+)", open(rt).read(), re.M).group(1))
j = {n: json.load(open("%s/%s.json" % (tmp, n))) for n in
     ("in-simulate", "in-analytic", "in48-simulate", "in48-analytic", "none-simulate",
      "none-analytic")}
want = 256 / (12 * rate)  # a GPU's 256 samples over 12 workers
for m in ("simulate", "analytic"):
    bound, free, none = j["in-" + m], j["in48-" + m], j["none-" + m]
    assert "input_pipeline" not in none, m
    p = bound["input_pipeline"]
    assert p["bound"] and abs(p["time_s"] - want) < 1e-9 * want, (m, p)
    assert abs(bound["iteration"]["total_s"] - want) < 1e-9 * want, (m, bound["iteration"])
    gpus = none["iteration"]["total_s"]
    assert abs(p["wait_s"] - (want - gpus)) < 1e-6 * want, (m, p, gpus)
    q = free["input_pipeline"]
    assert not q["bound"] and q["wait_s"] == 0 and abs(q["time_s"] * 4 - want) < 1e-9 * want
    assert free["iteration"]["total_s"] == gpus, (m, free["iteration"], gpus)
s, a = j["in-simulate"], j["in-analytic"]
assert s["iteration"]["total_s"] == a["iteration"]["total_s"]
PY
if expect_ok input-table simulate "${run[@]:0:${#run[@]}-1}" --loader-workers 12; then
    grep -q "input pipeline: .* it bounds the iteration (the GPUs wait" "$TMP/out" ||
        fail "the table does not name the input pipeline's bound: $(head -8 "$TMP/out")"
fi
if expect_ok input-compare compare "${run[@]:0:${#run[@]}-1}" --loader-workers 12 --json; then
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
w = d["difference_terms"]["input_wait"]
assert d["analytic"]["input_pipeline"]["bound"] and d["simulate"]["input_pipeline"]["bound"]
assert w["analytic_s"] > 0 and abs(w["analytic_s"] - w["simulated_s"]) < 1e-9, w' \
        "$TMP/out" || fail "compare: the input pipeline's wait is not a part of its own"
fi
# A runtime's step_host_s (the nnU-Net rows' 2.349 ms) is a part of compare's own, the same
# on both sides, not "waiting for other ranks" on the simulated side alone: each side's parts
# add up to its total
nnunet=(-w nnunet-2d -p gen:nvswitch-ndr:gpu=a100-80gb -s data -g 8 -b 32 --precision mixed
        --runtime "$SRC/experiments/validation/runtime/pytorch-nnunet-2d.rt" --overlap=off --json)
if expect_ok host-step-compare compare "${nnunet[@]}"; then
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = d["difference_terms"]
h = t.get("host_step")
assert h and h["analytic_s"] == h["simulated_s"] == 2.349e-3, t
assert d["analytic"]["host_step_s"] == d["simulate"]["host_step_s"] == 2.349e-3, d
assert abs(t["waiting"]["simulated_s"]) < 1e-9, t["waiting"]
for side, key in (("analytic_s", "analytic"), ("simulated_s", "simulate")):
    total, want = sum(v[side] for v in t.values()), d[key]["iteration"]["total_s"]
    assert abs(total - want) < 1e-9 * want, (side, total, want)' "$TMP/out" ||
        fail "compare: the runtime's host step is not a part of its own"
fi
if expect_ok host-step-table simulate "${nnunet[@]:0:${#nnunet[@]}-1}"; then
    grep -q "^  host step: 0.002349 s an iteration with the GPUs idle" "$TMP/out" ||
        fail "the table does not name the runtime's host step: $(head -8 "$TMP/out")"
fi
if expect_ok host-step-none simulate -w resnet50 -p abci -s data -g 4 -b 64 --json; then
    ! grep -q "host_step" "$TMP/out" || fail "host_step_s printed without a runtime's"
fi
# A node's GPUs share its CPUs (the platform's cpu-cores, cpu-threads): on a DGX-1's 40 cores
# and 80 threads eight GPUs run 8 workers and pytorch-ddp's loader_host_threads_per_gpu each,
# 72 busy threads, 32 of them paired on a core that does 1.3 times one's work
# (workloads/runtime/runtime_loader.c): each worker keeps (40 + 32 x 0.3) / 72 of its rate, in
# both answers; one GPU's 9 threads keep all of it
dgx=gen:dgx1:gpu=v100-sxm2-16gb,cpu-cores=40,cpu-threads=80
for g in 8 1; do
    for m in simulate analytic; do
        "$HS" $m -w efficientnet-b0 -p "$dgx" -s data -g $g -b $((128 * g)) --precision mixed \
            --runtime pytorch-ddp --json >"$TMP/cpu$g-$m.json" 2>"$TMP/err" ||
            fail "$m on a DGX-1's CPUs, $g GPUs: $(cat "$TMP/err")"
    done
done
python3 - "$TMP" "$SRC/workloads/runtime/pytorch-ddp.rt" <<'PY' || fail "the node's shared CPUs"
import json, re, sys
tmp, rt = sys.argv[1:3]
rate = float(re.search(r"^loader_samples_per_s = (\S+)", open(rt).read(), re.M).group(1))
for g, share in ((8, (40 + 32 * 0.3) / 72), (1, 1.0)):
    want = 128 / (8 * rate * share)  # a GPU's 128 samples over its 8 workers' kept rate
    for m in ("simulate", "analytic"):
        p = json.load(open("%s/cpu%d-%s.json" % (tmp, g, m)))["input_pipeline"]
        assert abs(p["time_s"] - want) < 1e-9 * want, (g, m, p, want)
PY
# --job runs: a node's loaders share its cores whichever job they run, and a job's own GPUs
# spread one a node each have a node's cores: one GPU a node prices as one GPU alone
# (simulate -g 1), two jobs of four on one node as one job of eight on it, and each of them
# alone (--baseline) as four GPUs on it (simulate -g 4)
cpus=gen:dgx1:cpu-cores=4,cpu-threads=8,nodes=8
job_input() { # NAME ARGS...: the first job's input pipeline time, or its own simulate's
    local name=$1
    shift
    "$HS" simulate -p "$cpus" --runtime pytorch-ddp --json "$@" >"$TMP/$name.json" \
        2>"$TMP/err" || fail "cpus, $name: $(cat "$TMP/err")"
}
job_input one -w resnet50 -s data -g 1 -b 8
job_input four -w resnet50 -s data -g 4 -b 32
job_input eight -w resnet50 -s data -g 8 -b 64
job_input spread --job "w=resnet50,s=data,g=8,b=64,gpus=0+8+16+24+32+40+48+56"
job_input halves --job "w=resnet50,s=data,g=4,b=32,gpus=0-3" \
    --job "w=resnet50,s=data,g=4,b=32,gpus=4-7" --baseline
# a job without an input loader (chainermn's runtime has no worker rate) keeps no core busy:
# the job beside it on the node prices as four GPUs on it, not eight
job_input mixed --job "w=resnet50,s=data,g=4,b=32,gpus=0-3" \
    --job "w=resnet50,s=data,g=4,b=32,gpus=4-7,runtime=chainermn"
# the same two jobs of four on one node, the second's runtime said by its strategy file's
# <setting> (no --runtime): both run loaders, so the first prices as eight GPUs on the node
"$HS" strategy --generate data -w resnet50 -g 4 -b 32 -o "$TMP/data4.xml" >/dev/null \
    2>"$TMP/err" || fail "generate data4: $(cat "$TMP/err")"
sed -i 's|^  <layer |  <setting key="runtime" value="pytorch-ddp"/>\n&|; T; :a; n; ba' "$TMP/data4.xml"
"$HS" simulate -p "$cpus" --json --job "w=resnet50,s=data,g=4,b=32,gpus=0-3,runtime=pytorch-ddp" \
    --job "w=resnet50,s=$TMP/data4.xml,g=4,b=32,gpus=4-7" >"$TMP/filed.json" 2>"$TMP/err" ||
    fail "cpus, filed: $(cat "$TMP/err")"
python3 - "$TMP" <<'PY' || fail "--job runs: the loaders' share of a node's CPUs"
import json, sys
def t(name, k=None):
    d = json.load(open("%s/%s.json" % (sys.argv[1], name)))
    return (d if k is None else d[k]["run"])["input_pipeline"]["time_s"]
one, eight = t("one"), t("eight")
assert eight > 2 * one, (one, eight)  # the node's 4 cores are short for eight loaders
assert abs(t("spread", 0) - one) < 1e-9 * one, (t("spread", 0), one)
four = json.load(open("%s/four.json" % sys.argv[1]))["iteration"]["total_s"]
assert abs(t("mixed", 0) - t("four")) < 1e-9 * t("four"), (t("mixed", 0), t("four"))
assert t("mixed", 0) < t("eight"), (t("mixed", 0), t("eight"))
for k in (0, 1):
    assert abs(t("filed", k) - eight) < 1e-9 * eight, (k, t("filed", k), eight)
halves = json.load(open("%s/halves.json" % sys.argv[1]))
for k in (0, 1):
    assert abs(t("halves", k) - eight) < 1e-9 * eight, (k, t("halves", k), eight)
    assert abs(halves[k]["alone"]["total_s"] - four) < 1e-9 * four, (k, halves[k], four)
PY
expect_bad_hs cpu-threads-alone "--cpu-threads 80: needs --cpu-cores" \
    simulate -w efficientnet-b0 -p gen:dgx1:cpu-threads=80 -s data -g 8 -b 1024 \
    --runtime pytorch-ddp
expect_bad_hs cpu-threads-many "--cpu-threads: must be --cpu-cores (40) to twice it" \
    simulate -w efficientnet-b0 -p gen:dgx1:cpu-cores=40,cpu-threads=100 -s data -g 8 -b 1024 \
    --runtime pytorch-ddp
expect_bad_hs loader-rate "--loader-workers 4: the runtime says no worker's rate" \
    simulate -w resnet50-v1.5 -p "$a100" -s data -g 1 -b 256 --runtime chainermn \
    --loader-workers 4
expect_bad_hs loader-measured "--loader-workers 4: the input pipeline is a runtime term" \
    simulate -w resnet50 -p abci -s data -g 4 -b 128 --compute measured --loader-workers 4
expect_bad_hs loader-zero "--loader-workers" \
    simulate "${run[@]}" --loader-workers 0
finish e2e_runtime
