#!/usr/bin/env bash
# allreduce/run.sh: which gradient allreduce when. Data parallelism of ResNet-50 (91 MB of
# gradients) and VGG16 (553 MB) at 32 samples a GPU, 8 to 1024 GPUs, on three machines that
# differ in what a node offers the allreduce: abci (4 GPUs, 2 EDR NICs), dgx1 (8 GPUs, a cube
# mesh of NVLink, 4 EDR NICs) and nvswitch-ndr (8 GPUs behind an NVSwitch, 8 NDR NICs); each
# with every algorithm of --allreduce: ParaDL's ring, hier, NCCL's double binary tree, NCCL's
# rings over every NIC, and NCCL 2.4's own choice (auto). Simulated and analytic, V100 kernels on
# every machine (--compute measured), so that only the network differs.
# Usage: experiments/allreduce/run.sh [--quick] [-o OUTDIR] (--help for all)
# Writes OUTDIR/platforms/*.xml, allreduce.csv (the sweep), allreduce.png/.svg (the simulated
# gradient allreduce an iteration against the GPUs), summary.txt, MANIFEST.
# Quick: ResNet-50 on abci, 8 to 64 GPUs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/common.sh"
hs_study_args allreduce "$@"

algorithms="ring hier tree rings auto"
if [ "$HS_QUICK" = 1 ]; then machines="abci" workloads="resnet50" gpus="8..64"
else machines="abci dgx1 nvswitch-ndr" workloads="resnet50 vgg16" gpus="8..1024"
fi
platforms=""
for m in $machines; do
    hs_platform "$m" --preset "$m"
    platforms="$platforms,platforms/$m.xml"
done
hs_sweep allreduce.csv -w "${workloads// /,}" -p "${platforms#,}" -s data \
    --allreduce "${algorithms// /,}" -g "$gpus" --batch-per-gpu 32 -m compare -P packed -c flow \
    --compute measured

# One table of the runs: machine, model, GPUs, algorithm (the strategy column's), the gradient
# allreduce an iteration simulated and by the closed form (data parallelism communicates nothing
# else), in ms.
hs_select "$HS_OUT/allreduce.csv" workload,platform,strategy,gpus,an_iter_comm_s,sim_iter_comm_s,status |
    awk -F '\t' 'BEGIN { OFS = "\t"; print "panel", "machine", "model", "gpus", "algorithm", "an_ms", "sim_ms" }
        NR > 1 && $7 == "ok" {
            m = $2; sub(/^platforms\//, "", m); sub(/\.xml$/, "", m)
            a = $3; if (!sub(/^data --allreduce /, "", a)) a = "ring"
            print m "-" $1, m, $1, $4, a, $5 * 1e3, $6 * 1e3 }' >"$HS_TMP/runs.tsv"

# The plot: a panel per machine and model, a line per algorithm (auto as rings around the
# algorithm it picked), log-log.
panels=""
for m in $machines; do
    for w in $workloads; do
        pn="$m-$w"
        panels="$panels $pn"
        awk -f "$HS_LIB/series.awk" -v series=algorithm -v x=gpus -v y=sim_ms \
            -v where="panel=$pn" -v order="$algorithms" -v placeholders=1 \
            -v nblocks="$HS_TMP/lines-$pn.n" "$HS_TMP/runs.tsv" >"$HS_TMP/lines-$pn.dat"
        case "$m" in
            abci) node="4 V100s, NVLink pairs, 2 EDR NICs a node" ;;
            dgx1) node="8 V100s, NVLink cube mesh, 4 EDR NICs a node" ;;
            *) node="8 GPUs, NVSwitch, 8 NDR NICs a node" ;;
        esac
        printf '%s, data parallel, on %s: %s' "$w" "$m" "$node" >"$HS_TMP/title-$pn"
    done
done
hs_plot "$here/allreduce.gp" "$HS_OUT/allreduce" dir="$HS_TMP" panels="${panels# }" \
    algorithms="$algorithms"

# summary.txt: per panel, the simulated allreduce of every algorithm (ms), the fastest and what
# auto picked (the algorithm it equals); then the largest gap between simulation and closed form.
summary_table() {
    awk -F '\t' -v algos="$algorithms" '
        BEGIN { na = split(algos, a, " ") }
        NR > 1 { k = $1 SUBSEP $4; if (!(k in seen)) { seen[k] = 1; key[++nk] = k }; sim[k, $5] = $7 }
        END {
            printf "panel\tgpus"
            for (i = 1; i <= na; i++) printf "\t%s", a[i]
            printf "\tfastest\tauto picks\n"
            for (j = 1; j <= nk; j++) {
                k = key[j]; split(k, f, SUBSEP); best = ""; pick = "-"
                printf "%s\t%s", f[1], f[2]
                for (i = 1; i <= na; i++) {
                    has = (k, a[i]) in sim
                    printf "\t%s", has ? sprintf("%.2f", sim[k, a[i]]) : "-"
                    if (a[i] != "auto" && has && (best == "" || sim[k, a[i]] + 0 < sim[k, best] + 0))
                        best = a[i]
                    if (a[i] != "auto" && has && ((k, "auto") in sim) && pick == "-" &&
                        sim[k, a[i]] == sim[k, "auto"]) pick = a[i]
                }
                printf "\t%s\t%s\n", best, pick
            }
        }' "$HS_TMP/runs.tsv"
}
{
    echo "Gradient allreduce per iteration, simulated (ms); the fastest; NCCL 2.4's choice (auto)"
    summary_table | hs_table
    echo
    echo "Largest |simulated / closed form - 1| per panel, over every algorithm and GPU count"
    awk -F '\t' 'NR > 1 { if (!($1 in w)) { w[$1] = 0; o[++n] = $1 }
                          g = $6 > 0 ? $7 / $6 - 1 : 0; if (g < 0) g = -g; if (g > w[$1]) w[$1] = g }
                  END { for (i = 1; i <= n; i++) printf "%s\t%.2g\n", o[i], w[o[i]] }' \
        "$HS_TMP/runs.tsv" | hs_table
} | hs_write "$HS_OUT/summary.txt"
cat "$HS_OUT/summary.txt"
hs_manifest
echo "allreduce: results in $HS_OUT (allreduce.png, allreduce.csv, summary.txt)"
