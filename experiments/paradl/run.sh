#!/usr/bin/env bash
# paradl/run.sh: reproduces ParaDL's evaluation on ABCI: data, filter, channel, data+filter,
# data+spatial and pipeline for ResNet-50, ResNet-152, VGG16 and CosmoFlow (256^3), analytic and
# simulated, as compute and communication bars per strategy and GPU count (after ParaDL's
# Figure 1), beside the measured ABCI epoch times of the reference table, with the accuracy of
# each. Kernels are ParaDL's, the measured per-sample times split linearly (--compute measured),
# as the oracle times them, and so are the halos and the filter backward (--halo sendrecv
# --filter-backward allreduce), as its formulas charge them.
# Usage: experiments/paradl/run.sh [--quick] [-o OUTDIR] [--reference PATH] (--help for all)
# Writes OUTDIR/paradl.csv (the sweeps), accuracy.csv, summary.txt, figure1.png/.svg, MANIFEST.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/common.sh"
hs_study_args paradl "$@"

# Batch rules. n is the model's one-GPU batch: the oracle's samples per GPU for ResNet-50 (64)
# and VGG16 (32), and for the two the oracle did not scale, the largest power of two that fits
# in 16 GB on one GPU (ResNet-152 16; CosmoFlow 256^3 2, the oracle's 8 per node).
#   data, data+spatial, pipeline  n per GPU    (weak scaling; data+spatial as measured: the
#                                               reference table's B = 64 p, 256 per node)
#   data+filter                   n per node   (as measured: B = 64 x nodes)
#   filter, channel               n in all     (strong scaling from one GPU, as measured)
# Pipeline runs p micro-batches (the default), so each micro-batch is n samples.
declare -A one_gpu_batch=([resnet50]=64 [resnet152]=16 [vgg16]=32 [cosmoflow-256]=2)

# GPU counts. Full: as ParaDL. Quick: ResNet-50 over the measured range (the accuracy table
# stays complete), the other models at the smallest counts; CosmoFlow's filter/channel go to
# 32 so that one configuration beyond their limit (16 filters) is exercised.
if [ "$HS_QUICK" = 1 ]; then
    models=(resnet50 vgg16 cosmoflow-256)
    declare -A hybrid_gpus=([resnet50]=16..256 [vgg16]=16..32 [cosmoflow-256]=16..32)
    declare -A model_gpus=([resnet50]=4..64 [vgg16]=4..8 [cosmoflow-256]=8..32)
else
    models=(resnet50 resnet152 vgg16 cosmoflow-256)
    declare -A hybrid_gpus=([resnet50]=16..1024 [resnet152]=16..1024 [vgg16]=16..1024
                            [cosmoflow-256]=16..1024)
    declare -A model_gpus=([resnet50]=4..64 [resnet152]=4..64 [vgg16]=4..64 [cosmoflow-256]=4..64)
fi
pipeline_gpus=1..4

csv=paradl.csv
for m in "${models[@]}"; do
    n="${one_gpu_batch[$m]}"
    common=(-w "$m" -p abci -m compare -P packed -c flow --compute measured --halo sendrecv
            --filter-backward allreduce)
    hs_sweep "$csv" "${common[@]}" -s data,data+spatial -g "${hybrid_gpus[$m]}" -b "$n/gpu"
    hs_sweep "$csv" "${common[@]}" -s data+filter -g "${hybrid_gpus[$m]}" -b "$n/node"
    hs_sweep "$csv" "${common[@]}" -s filter,channel -g "${model_gpus[$m]}" -b "$n"
    hs_sweep "$csv" "${common[@]}" -s pipeline -g "$pipeline_gpus" -b "$n/gpu"
done

measured="$HS_REF_TSV"
if [ ! -r "$measured" ]; then
    echo "paradl: no measured table at $measured: the measured columns are missing" >&2
    measured=/dev/null
fi

# Only this invocation's models (an OUTDIR reused with another size may hold more rows).
hs_select "$HS_OUT/$csv" workload,strategy,gpus,batch,an_epoch_compute_s,an_epoch_comm_s,sim_epoch_compute_s,sim_epoch_comm_s,fits_in_memory,status,batch_rule \
    >"$HS_TMP/bars.tsv"
panels="$(awk -f "$here/bars.awk" -v dir="$HS_TMP" -v models="${models[*]}" -v measured="$measured" -v platform=abci \
    "$HS_TMP/bars.tsv" | tr '\n' ' ')"
hs_plot "$here/figure1.gp" "$HS_OUT/figure1" dir="$HS_TMP" models="${panels% }"

hs_select "$HS_OUT/$csv" workload,strategy,gpus,p1,p2,batch,an_epoch_compute_s,an_epoch_comm_s,an_epoch_total_s,sim_epoch_compute_s,sim_epoch_comm_s,sim_epoch_total_s,status \
    >"$HS_TMP/runs.tsv"
awk -f "$here/accuracy.awk" -v measured="$measured" "$HS_TMP/runs.tsv" | hs_write "$HS_OUT/accuracy.csv"

# The summary: per model and strategy (in the figure's order), the epoch time at the smallest and
# largest p that ran, then the accuracy table.
{
    echo "ParaDL study on abci: seconds per epoch, analytic vs simulated (sim/an = simulated / analytic)"
    awk -F '\t' -v models="${models[*]}" '
        BEGIN { nm = split(models, m, " "); ns = split("data data+filter data+spatial filter channel pipeline", s, " ") }
        NR > 1 && $13 == "ok" {
            k = $1 SUBSEP $2
            if (!(k in lo) || $3 + 0 < lop[k]) { lo[k] = $0; lop[k] = $3 + 0 }
            if (!(k in hi) || $3 + 0 > hip[k]) { hi[k] = $0; hip[k] = $3 + 0 }
        }
        function line(r,    f) {
            split(r, f, "\t")
            printf "%s\t%s\t%d\t%s\t%.1f\t%.1f\t%.3f\n", f[1], f[2], f[3], f[4] "x" f[5], f[9],
                f[12], f[12] / f[9]
        }
        END {
            print "model\tstrategy\tp\tp1xp2\tanalytic_s\tsimulated_s\tsim/an"
            for (i = 1; i <= nm; i++) for (j = 1; j <= ns; j++) {
                k = m[i] SUBSEP s[j]
                if (!(k in lo)) continue
                line(lo[k]); if (hip[k] != lop[k]) line(hi[k])
            }
        }' "$HS_TMP/runs.tsv" | hs_table
    echo
    echo "Accuracy against the measured ABCI epoch times (ratio = model / measured)"
    if [ "$measured" = /dev/null ]; then
        echo "(measured columns missing: no reference table at $HS_REF_TSV)"
    else
        cut -d, -f1-6,9,10,13,16-21 "$HS_OUT/accuracy.csv" | tr ',' '\t' | hs_table
    fi
    echo
    echo "Configurations beyond a strategy's limit (status error in $csv):"
    awk -F '\t' -v models=" ${models[*]} " 'NR > 1 && $13 == "error" && index(models, " " $1 " ") {
        printf "  %s %s p=%s\n", $1, $2, $3; n++ } END { if (!n) print "  none" }' "$HS_TMP/runs.tsv"
} | hs_write "$HS_OUT/summary.txt"
cat "$HS_OUT/summary.txt"
hs_manifest
echo "paradl: results in $HS_OUT (figure1.png, accuracy.csv, summary.txt)"
