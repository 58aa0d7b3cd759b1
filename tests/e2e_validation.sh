#!/usr/bin/env bash
# e2e_validation.sh: experiments/validation/run.sh --subset runs the rows subset.txt lists (one
# or two of each dataset), DeepBench's held-out kernels and every kernel of the five GPUs the
# compute model's fit never saw (deepbench-unseen), and predicts each exactly as the
# committed full run (experiments/results/validation/results.tsv) says: a change of the model
# or of the rows' settings shows here until the results are made again (the command in that
# folder's MANIFEST); datasets.tsv's calibration rows are listed apart, and a misspelt one is
# refused. Skipped (77) without the shared measured files.
# Usage (from ctest): e2e_validation.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2" SHARED="$3"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
measured="$SHARED/reference/measured"
[ -f "$measured/dle-throughput.tsv" ] || { echo "no $measured: skipped"; exit 77; }

"$SRC/experiments/validation/run.sh" --subset -o "$TMP/out" --exe "$HS" \
    --fit "$(dirname "$HS")/compute_fit" --measured "$measured" -j 2 >"$TMP/summary" \
    2>"$TMP/err" || fail "run.sh --subset: $(cat "$TMP/err")"
grep -q "^paradl .* groups" "$TMP/summary" || fail "no paradl line with rank agreement"
grep -q "^deepbench-allreduce  *2 " "$TMP/summary" || fail "no deepbench-allreduce line of 2 rows"
# The held-out kernels' line is the fit's (V100, P100, T4 alone); the GPUs never fitted have
# their own line, every kernel of their FP32 sheets (AMD's MIOpen sheets are not read).
grep -q "^deepbench  *662 " "$TMP/summary" || fail "no deepbench line of 662 held-out kernels"
grep -q "^deepbench-unseen  *2181 " "$TMP/summary" || fail "no deepbench-unseen line of 2181 kernels"
# datasets.tsv's calibration rows are listed apart, out of the figures (the 2 above).
grep -q "P100 64500000 floats 2 GPUs .*calibration of deepbench-allreduce's machines" \
    "$TMP/summary" || fail "deepbench-allreduce.tsv:30 not listed as a calibration row"
# A calibration row datasets.tsv names that is no row of its dataset (misspelt) is refused
# before any run, by file and dataset: exit 2, no results written.
mkdir -p "$TMP/bad/experiments" && cp -r "$SRC/experiments/validation" "$TMP/bad/experiments/" &&
    ln -s "$SRC/workloads" "$TMP/bad/workloads" &&
    ln -s "$SRC/experiments/lib" "$TMP/bad/experiments/lib" &&
    sed -i 's/deepbench-allreduce\.tsv:30 /deepbench-allreduce.tsv:3000 /' \
        "$TMP/bad/experiments/validation/datasets.tsv" ||
    fail "copying experiments/validation"
"$TMP/bad/experiments/validation/run.sh" --subset -o "$TMP/bad/out" --exe "$HS" \
    --fit "$(dirname "$HS")/compute_fit" --measured "$measured" -j 2 >"$TMP/bad/summary" \
    2>"$TMP/bad/err"
rc=$?
[ "$rc" -eq 2 ] && grep -qF "datasets.tsv: deepbench-allreduce's calibration names \
deepbench-allreduce.tsv:3000, not a row of deepbench-allreduce" "$TMP/bad/err" ||
    fail "a misspelt calibration row: exit $rc, $(cat "$TMP/bad/err")"
[ ! -e "$TMP/bad/out/results.tsv" ] || fail "a refused datasets.tsv wrote results.tsv"
# The allreduce rows' workloads are what their generator writes.
mkdir -p "$TMP/wl" && python3 "$SRC/experiments/validation/allreduce_workload.py" --all "$TMP/wl" &&
    diff -r "$TMP/wl" "$SRC/experiments/validation/workloads" >/dev/null ||
    fail "experiments/validation/workloads differs from allreduce_workload.py --all"
# The U-Nets' workloads are what their generator writes (experiments/import/unet_tf1.py).
mkdir -p "$TMP/unet" && python3 "$SRC/experiments/import/unet_tf1.py" "$TMP/unet" >/dev/null &&
    cmp -s "$TMP/unet/unet-medical.xml" "$SRC/workloads/unet-medical.xml" &&
    cmp -s "$TMP/unet/unet-industrial.xml" "$SRC/workloads/unet-industrial.xml" ||
    fail "workloads/unet-*.xml differ from experiments/import/unet_tf1.py"
# So are nnU-Net's (experiments/import/nnunet_pytorch.py).
mkdir -p "$TMP/nnunet" && python3 "$SRC/experiments/import/nnunet_pytorch.py" "$TMP/nnunet" \
    >/dev/null && cmp -s "$TMP/nnunet/nnunet-2d.xml" "$SRC/workloads/nnunet-2d.xml" &&
    cmp -s "$TMP/nnunet/nnunet-3d.xml" "$SRC/workloads/nnunet-3d.xml" ||
    fail "workloads/nnunet-*.xml differ from experiments/import/nnunet_pytorch.py"
# So is SSD300's (experiments/import/ssd_pytorch.py).
mkdir -p "$TMP/ssd" && python3 "$SRC/experiments/import/ssd_pytorch.py" "$TMP/ssd" >/dev/null &&
    cmp -s "$TMP/ssd/ssd300.xml" "$SRC/workloads/ssd300.xml" ||
    fail "workloads/ssd300.xml differs from experiments/import/ssd_pytorch.py"
# nnU-Net's two runtimes set the same values but the layout (what make_rows.py says).
rt="$SRC/experiments/validation/runtime/pytorch-nnunet"
diff <(grep -v '^#\|^description\|^nchw_precisions' "$rt-2d.rt") \
    <(grep -v '^#\|^description\|^nchw_precisions' "$rt-3d.rt") >/dev/null ||
    fail "pytorch-nnunet-2d.rt and -3d.rt differ beyond nchw_precisions"
# TensorFlow 1 with XLA (the XLA rows' runtime) is horovod-nccl.rt's values plus XLA's fused
# batch normalisation and its gradients handed to Horovod at the backward's end alone; it makes
# ResNet-50 v1.5 faster (its ReLUs and residual adds inside the batch normalisations' kernels)
# and the U-Nets, which have no batch normalisation, no faster on one GPU; make_rows.py gives it to the rows that ran XLA, 56, and to no other (ResNeXt-101's
# DGX-1 and DGX-2 tables say no XLA), and rows.tsv is what make_rows.py writes.
xla="$SRC/experiments/validation/runtime/horovod-nccl-xla.rt"
diff <(grep -v '^#\|^description' "$SRC/workloads/runtime/horovod-nccl.rt") \
    <(grep -v '^#\|^description\|^bn_activation_fusion\|^gradients_ready' "$xla") >/dev/null &&
    grep -qx 'bn_activation_fusion = xla' "$xla" && grep -qx 'gradients_ready = backward' "$xla" ||
    fail "horovod-nccl-xla.rt is not horovod-nccl.rt plus bn_activation_fusion = xla and" \
        "gradients_ready = backward"
for w in resnet50-v1.5 unet-medical; do
    for r in horovod-nccl "$xla"; do
        "$HS" simulate -w "$w" -p gen:dgx1:gpu=v100-sxm2-16gb -s data -g 1 -b 8 --json \
            --runtime "$r" >"$TMP/xla-$w-$(basename "$r" .rt).json" 2>"$TMP/err" ||
            fail "$w under $r: $(cat "$TMP/err")"
    done
done
python3 "$SRC/experiments/validation/make_rows.py" "$measured" >"$TMP/xla-rows.tsv" &&
    cmp -s "$TMP/xla-rows.tsv" "$SRC/experiments/validation/rows.tsv" ||
    fail "experiments/validation/rows.tsv differs from make_rows.py's"
python3 - "$TMP" <<'PY' || fail "the XLA runtime's effect or rows"
import csv, json, sys
t = lambda w, r: json.load(open(f"{sys.argv[1]}/xla-{w}-{r}.json"))["iteration"]["total_s"]
assert t("resnet50-v1.5", "horovod-nccl-xla") < 0.95 * t("resnet50-v1.5", "horovod-nccl")
assert t("unet-medical", "horovod-nccl-xla") == t("unet-medical", "horovod-nccl")
rows = list(csv.DictReader(open(f"{sys.argv[1]}/xla-rows.tsv"), delimiter="\t"))
xla = [r for r in rows if r["runtime"].endswith("horovod-nccl-xla.rt")]
assert len(xla) == 56 and all(r["dataset"] == "dle-tensorflow1" and "XLA" in r["note"]
                              for r in xla), len(xla)
assert not any("resnext101-32x4d DGX-" in r["label"] and "se-" not in r["label"] for r in xla)
PY
python3 - "$TMP/out/results.tsv" "$SRC/experiments/results/validation/results.tsv" \
    "$SRC/experiments/validation/subset.txt" <<'PY' || fail "the subset's predictions"
import csv, sys
def rows(path):
    with open(path) as f:
        return {r["id"]: r for r in csv.DictReader(f, delimiter="\t")}
now, kept = rows(sys.argv[1]), rows(sys.argv[2])
subset = [l.split()[0] for l in open(sys.argv[3]) if l.strip() and not l.startswith("#")]
for ident in subset:
    assert ident in now and now[ident]["status"] in ("ok", kept[ident]["status"]), ident
deepbench = [i for i in now if now[i]["dataset"] == "deepbench"]
assert len(deepbench) > 600, len(deepbench)
gpu = lambda i: i.split()[0][len("deepbench-"):-len(".tsv")]
assert set(map(gpu, deepbench)) == {"V100", "P100", "T4"}, set(map(gpu, deepbench))
unseen = [i for i in now if now[i]["dataset"] == "deepbench-unseen"]
assert set(map(gpu, unseen)) == {"1080Ti", "TitanX_Pascal", "TitanXp", "TitanX", "M40"}, \
    set(map(gpu, unseen))
assert all(now[i]["note"] == "a GPU never fitted" for i in unseen)
# every unseen kernel is in the committed results, so none was dropped or added silently
assert set(unseen) == {i for i in kept if kept[i]["dataset"] == "deepbench-unseen"}
for ident in subset + deepbench + unseen:
    a, b = float(now[ident]["predicted"]), float(kept[ident]["predicted"])
    assert abs(a / b - 1) < 1e-5, (ident, a, b)  # results.tsv keeps 6 digits
PY
finish e2e_validation
