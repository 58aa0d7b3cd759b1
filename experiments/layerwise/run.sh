#!/usr/bin/env bash
# layerwise/run.sh: per-layer strategies against the best whole-model one. For ResNet-50, VGG16
# and AlexNet on abci and on an H100 machine (the nvswitch-ndr preset, 128 nodes of 8 GPUs,
# generated) at 8 to 1024 GPUs (32, 32 and 64 samples a GPU): the best uniform strategy (the
# fastest that fits by the analytic model), OWT, SplitBrain and GHP (group sizes as their
# generators choose them) and the searched plan (strategy --search, hybridsim's model), each
# analytic and simulated; and SplitBrain's memory saving against data parallelism on VGG16 for
# CIFAR-10 (its paper: up to 67%).
# Usage: experiments/layerwise/run.sh [--quick] [-o OUTDIR] (--help for all)
# Writes OUTDIR/layerwise.csv, memory.csv, plans/*.xml, layerwise.png/.svg, summary.txt,
# MANIFEST. Rows already in layerwise.csv are skipped (rerun to resume).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/common.sh"
hs_study_args layerwise "$@"
mkdir -p "$HS_OUT/plans"
csv="$HS_OUT/layerwise.csv"
[ -s "$csv" ] || echo "platform,workload,gpus,batch,strategy,analytic_s,simulated_s,memory_GB,fits" |
    hs_write "$csv"

declare -A per_gpu=([resnet50]=32 [vgg16]=32 [alexnet]=64)
declare -A machine=([abci]=abci [h100]=gen:nvswitch-ndr:nodes=128)
if [ "$HS_QUICK" = 1 ]; then platforms=(abci); counts=(16 64)
else platforms=(abci h100); counts=(8 16 64 256 1024)
fi
workloads=(alexnet vgg16 resnet50)

have() { grep -q "^$1,$2,$3,[0-9]*,$4," "$csv"; }   # platform workload gpus strategy

# The search: the searched plan and the best uniform strategy, both simulated.
search() { # platform workload gpus batch
    have "$1" "$2" "$3" searched && return 0
    local f="$HS_TMP/search.json"
    "$HS_EXE" strategy --search -w "$2" -p "${machine[$1]}" -g "$3" -b "$4" --compute measured --json \
        -o "$HS_OUT/plans/$1-$2-$3-searched.xml" >"$f" || { echo "$1,$2,$3,$4,searched,,,,failed" >>"$csv"; return 0; }
    python3 - "$f" "$1" "$2" "$3" "$4" >>"$csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u, s = d["best_uniform"], d["searched"]
key = ",".join(sys.argv[2:6])
print("%s,best uniform (%s),%.9g,%.9g,%.4f,true" % (key, u["strategy"], u["analytic_s"], u["simulated_s"], u["memory_bytes"] / 1e9))
print("%s,searched,%.9g,%.9g,%.4f,true" % (key, s["analytic_s"], s["simulated_s"], s["memory_bytes"] / 1e9))
PY
    HS_RAN=$((HS_RAN + 1))
}

# A published scheme: generated, then compared (analytic and simulated in one process).
scheme() { # platform workload gpus batch spec
    have "$1" "$2" "$3" "$5" && return 0
    local plan="$HS_OUT/plans/$1-$2-$3-$5.xml" f="$HS_TMP/compare.json"
    if ! "$HS_EXE" strategy --generate "$5" -w "$2" -p "${machine[$1]}" -g "$3" -b "$4" \
            -o "$plan" >/dev/null 2>"$HS_TMP/err" ||
       ! "$HS_EXE" compare -w "$2" -p "${machine[$1]}" -g "$3" -b "$4" -s "$plan" \
           --compute measured --json \
            >"$f" 2>"$HS_TMP/err"; then
        echo "$1,$2,$3,$4,$5,,,,refused" >>"$csv"
        return 0
    fi
    python3 - "$f" "$1" "$2" "$3" "$4" "$5" >>"$csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, s = d["analytic"], d["simulate"]
print("%s,%.9g,%.9g,%.4f,%s" % (",".join(sys.argv[2:7]), a["iteration"]["total_s"],
      s["iteration"]["total_s"], a["memory_per_gpu_bytes"] / 1e9, str(a["fits_in_memory"]).lower()))
PY
    HS_RAN=$((HS_RAN + 1))
}

for p in "${platforms[@]}"; do
    for w in "${workloads[@]}"; do
        for g in "${counts[@]}"; do
            b=$((g * ${per_gpu[$w]}))
            echo "layerwise: $p $w $g GPUs, batch $b" >&2
            search "$p" "$w" "$g" "$b"
            for spec in owt splitbrain ghp; do scheme "$p" "$w" "$g" "$b" "$spec"; done
        done
    done
done

# SplitBrain's memory saving on VGG16 for CIFAR-10, 32 samples a GPU, abci.
{
    echo "gpus,group,data_GB,splitbrain_GB,saving,weights_data_GB,weights_splitbrain_GB"
    for g in 8 64; do
        for G in 2 4 8; do
            "$HS_EXE" strategy --generate "splitbrain:$G" -w vgg16-cifar10 -g "$g" -b $((32 * g)) \
                -o "$HS_TMP/sb.xml" >/dev/null
            "$HS_EXE" analytic -w vgg16-cifar10 -p abci -g "$g" -b $((32 * g)) -s data --json >"$HS_TMP/d.json"
            "$HS_EXE" analytic -w vgg16-cifar10 -p abci -g "$g" -b $((32 * g)) -s "$HS_TMP/sb.xml" --json >"$HS_TMP/s.json"
            python3 - "$HS_TMP/d.json" "$HS_TMP/s.json" "$g" "$G" <<'PY'
import json, sys
d, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
md, ms = d["memory_per_gpu_bytes"], s["memory_per_gpu_bytes"]
wd = sum(d["memory_breakdown"][k] for k in ("weights_bytes", "gradients_bytes", "optimizer_state_bytes"))
ws = sum(s["memory_breakdown"][k] for k in ("weights_bytes", "gradients_bytes", "optimizer_state_bytes"))
print("%s,%s,%.4f,%.4f,%.3f,%.4f,%.4f" % (sys.argv[3], sys.argv[4], md / 1e9, ms / 1e9, 1 - ms / md, wd / 1e9, ws / 1e9))
PY
        done
    done
} | hs_write "$HS_OUT/memory.csv"

# The plot: simulated time relative to the best uniform strategy, a panel per platform and model.
panels=""
for p in "${platforms[@]}"; do
    for w in "${workloads[@]}"; do
        awk -F, -v p="$p" -v w="$w" '
            NR > 1 && $1 == p && $2 == w && $7 != "" {
                if ($5 ~ /^best uniform/) base[$3] = $7
                else { t[$5, $3] = $7; g[$3] = 1; s[$5] = 1 }
            }
            END {
                n = split("owt splitbrain ghp searched", order, " ")
                for (i = 1; i <= n; i++) {
                    print "\"" order[i] "\""
                    for (k in g) if ((order[i], k) in t && (k in base)) print k, t[order[i], k] / base[k] | "sort -n"
                    close("sort -n")
                    print ""; print ""
                }
            }' "$csv" >"$HS_TMP/rel-$p-$w.dat"
        panels="$panels $p-$w"
    done
done
hs_plot "$here/layerwise.gp" "$HS_OUT/layerwise" dir="$HS_TMP" panels="${panels# }" \
    ncols="${#workloads[@]}"

{
    echo "Per-layer strategies against the best whole-model strategy (seconds per iteration)"
    echo "$HS_CMDLINE"
    echo
    hs_select "$csv" platform,workload,gpus,strategy,analytic_s,simulated_s,memory_GB,fits | hs_table
    echo
    echo "SplitBrain's memory on VGG16 for CIFAR-10 (32 samples a GPU) against data parallelism"
    tr ',' '\t' <"$HS_OUT/memory.csv" | hs_table
} | hs_write "$HS_OUT/summary.txt"
cat "$HS_OUT/summary.txt"
hs_manifest
echo "layerwise: results in $HS_OUT (layerwise.png, layerwise.csv, memory.csv, summary.txt)"
