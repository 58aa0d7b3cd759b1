#!/usr/bin/env bash
# topology/run.sh: what-if on the machine: NVLink bandwidth (20, 50, 100 GB/s a GPU pair), NIC
# bandwidth (InfiniBand EDR, HDR, NDR), GPUs per node (2, 4, 8) around ABCI, and the DGX-style
# presets dgx1 and nvswitch-ndr. For every variant, every strategy is simulated; the best one is
# the lowest simulated epoch time among those that fit in memory. Shows how it and its time change.
# Usage: experiments/topology/run.sh [--quick] [-o OUTDIR] (--help for all)
# Writes OUTDIR/platforms/*.xml, topology-strong.csv and topology-weak.csv (the sweeps), best.csv, topology.png/.svg,
# summary.txt, MANIFEST.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/common.sh"
hs_study_args topology "$@"

# The variants, in the plot's order: name and `hybridsim platform` flags. Each changes one thing
# of abci (NVLink 50 GB/s a pair, EDR, 4 GPUs and 2 NICs a node); NICs follow the PCIe switches
# (one a switch, 2 GPUs a switch), so 2 GPUs a node have 1 NIC and 8 have 4.
variants=(
    "nvlink-20 --preset abci --nvlink-bw 20GBps"
    "abci --preset abci"
    "nvlink-100 --preset abci --nvlink-bw 100GBps"
    "nic-hdr --preset abci --nic-type hdr"
    "nic-ndr --preset abci --nic-type ndr"
    "gpn-2 --preset abci --gpus-per-node 2"
    "gpn-8 --preset abci --gpus-per-node 8"
    "dgx1 --preset dgx1"
    "nvswitch-ndr --preset nvswitch-ndr"
    "nvswitch-h100 --preset nvswitch-ndr"
)
# Every variant runs the workloads' measured V100 kernels (--compute measured), so that the
# variants differ in their network only; nvswitch-h100 is the nvswitch-ndr machine again with
# its own GPUs' kernels, from the compute model (--compute model: the H100's times, anchored on
# the V100 measurement; a pipeline's stages too). Halos
# and the filter backward are ParaDL's (--halo sendrecv --filter-backward allreduce), as the
# study was first made.
model_variant=nvswitch-h100
names=()
for v in "${variants[@]}"; do
    read -r -a words <<<"$v"
    names+=("${words[0]}")
    hs_platform "${words[@]}"
done
platforms="$(printf 'platforms/%s.xml,' "${names[@]}")"
platforms="${platforms%,}"
measured_platforms="${platforms/,platforms\/$model_variant.xml/}"

# Two regimes, each a panel per model and p:
#   weak    p = 64, every strategy at its own batch (the paradl study's rules, made fixed per p so
#           that a variant with other node sizes trains the same batch); n is the model's
#           one-GPU batch (ResNet-50 64, VGG16 32):
#             data, data+spatial, pipeline  n per GPU (pipeline: p micro-batches of n)
#             data+filter                   n p / 4 (n per 4 GPUs, as on ABCI), whatever the node:
#                                           the hybrids' group is a node (p2 = GPUs per node)
#             filter, channel               n (strong scaling from one GPU)
#   strong  p = 1024, every strategy at one global batch, data parallelism's on 64 GPUs (64 n):
#           4 samples per GPU, so communication decides.
# Quick runs the strong regime for ResNet-50 only. Spatial alone is left out: it splits at most
# 7 columns of ResNet-50 (min W over the split layers), far below these p.
declare -A one_gpu_batch=([resnet50]=64 [vgg16]=32)
if [ "$HS_QUICK" = 1 ]; then regimes=("strong resnet50 1024")
else regimes=("weak resnet50 64" "weak vgg16 64" "strong resnet50 1024" "strong vgg16 1024")
fi
strategies="data filter channel pipeline data+filter data+spatial"

for r in "${regimes[@]}"; do
    read -r regime m p <<<"$r"
    n="${one_gpu_batch[$m]}"
    for compute in measured model; do
        plats="$measured_platforms"
        [ "$compute" = model ] && plats="platforms/$model_variant.xml"
        common=(-w "$m" -p "$plats" -g "$p" -m compare -P packed -c flow --compute "$compute"
                --halo sendrecv --filter-backward allreduce)
        if [ "$regime" = weak ]; then
            hs_sweep topology-weak.csv "${common[@]}" -s data,data+spatial,pipeline -b "$n/gpu"
            hs_sweep topology-weak.csv "${common[@]}" -s filter,channel -b "$n"
            hs_sweep topology-weak.csv "${common[@]}" -s data+filter -b "$((n * p / 4))"
        else
            hs_sweep topology-strong.csv "${common[@]}" -s "${strategies// /,}" -b "$((64 * n))"
        fi
    done
done

# One table of this invocation's runs: the panel (regime-model-p), the variant's index and name
# instead of the platform path.
: >"$HS_TMP/runs.tsv"
for r in "${regimes[@]}"; do
    read -r regime m p <<<"$r"
    hs_select "$HS_OUT/topology-$regime.csv" workload,gpus,platform,strategy,batch,an_epoch_total_s,sim_epoch_total_s,fits_in_memory,status |
        awk -F '\t' -v names="${names[*]}" -v m="$m" -v p="$p" -v panel="$regime-$m-$p" '
            BEGIN { OFS = "\t"; n = split(names, v, " "); for (i = 1; i <= n; i++) idx["platforms/" v[i] ".xml"] = i - 1 }
            NR == 1 { next }
            ($3 in idx) && $1 == m && $2 == p {
                name = $3; sub(/^platforms\//, "", name); sub(/\.xml$/, "", name)
                print panel, $2, name, idx[$3], $4, $5, $6, $7, $8, $9 }' >>"$HS_TMP/runs.tsv"
done
{ printf 'panel\tgpus\tvariant\tx\tstrategy\tbatch\tan_s\tsim_s\tfits\tstatus\n'; cat "$HS_TMP/runs.tsv"; } \
    >"$HS_TMP/runs-h.tsv"
mv "$HS_TMP/runs-h.tsv" "$HS_TMP/runs.tsv"

# best.csv: per panel and variant, the best strategy by simulation and by the analytic model
# (lowest epoch time among the runs that fit in memory), and the data-parallel time.
awk -F '\t' -v OFS=, '
    NR == 1 { next }
    {
        k = $1 SUBSEP $2 SUBSEP $4
        if (!(k in seen)) { seen[k] = 1; key[++nk] = k; var[k] = $3 }
        if ($5 == "data" && $10 == "ok") data_s[k] = $8
        if ($10 != "ok" || $9 != "true") next
        if (!(k in sbest) || $8 + 0 < sbest_s[k]) { sbest[k] = $5; sbest_s[k] = $8 + 0 }
        if (!(k in abest) || $7 + 0 < abest_s[k]) { abest[k] = $5; abest_s[k] = $7 + 0 }
    }
    END {
        for (i = 1; i <= nk; i++) {
            k = key[i]; split(k, f, SUBSEP)
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", f[1], f[2], var[k], f[3],
                (k in sbest) ? sbest[k] : "none", (k in sbest) ? sprintf("%.6g", sbest_s[k]) : "",
                (k in abest) ? abest[k] : "none", (k in abest) ? sprintf("%.6g", abest_s[k]) : "",
                (k in data_s) ? sprintf("%.6g", data_s[k]) : ""
        }
    }' "$HS_TMP/runs.tsv" | sort -t, -k1,1 -k2,2n -k4,4n >"$HS_TMP/best.csv"
{ echo "panel,gpus,variant,x,best_simulated,best_simulated_s,best_analytic,best_analytic_s,data_simulated_s"
  cat "$HS_TMP/best.csv"; } | hs_write "$HS_OUT/best.csv"

# The plot: a panel per model and p; a point per strategy and variant (simulated epoch time, log
# scale); crosses on runs that do not fit in memory; a ring on the best. Each panel's title says
# the model, the GPUs and the batches in words.
panels=""
for r in "${regimes[@]}"; do
    read -r regime m p <<<"$r"
    pn="$regime-$m-$p" n="${one_gpu_batch[$m]}"
    panels="$panels $pn"
    awk -F '\t' -v pn="$pn" 'NR == 1 || ($1 == pn && $10 == "ok")' "$HS_TMP/runs.tsv" >"$HS_TMP/panel.tsv"
    awk -f "$HS_LIB/series.awk" -v series=strategy -v x=x -v y=sim_s -v order="$strategies" -v placeholders=1 \
        -v nblocks="$HS_TMP/lines-$pn.n" "$HS_TMP/panel.tsv" >"$HS_TMP/lines-$pn.dat"
    awk -F '\t' 'NR > 1 { s[$5] = 1 } END { for (k in s) printf "%s ", k }' "$HS_TMP/panel.tsv" \
        >"$HS_TMP/present-$pn"
    awk -F '\t' -v strategies="$strategies" '
        BEGIN { n = split(strategies, s, " "); for (i = 1; i <= n; i++) b[s[i]] = i - 1 }
        NR > 1 && $9 != "true" { print $4, $8, b[$5] } END { print -100, 1, 0 }' \
        "$HS_TMP/panel.tsv" >"$HS_TMP/oom-$pn.dat"
    awk -F, -v pn="$pn" -v strategies="$strategies" '
        BEGIN { n = split(strategies, s, " "); for (i = 1; i <= n; i++) b[s[i]] = i - 1 }
        $1 == pn && $5 != "none" { print $4, $6, $5, b[$5] } END { print -100, 1, "none", 0 }' \
        "$HS_OUT/best.csv" >"$HS_TMP/best-$pn.dat"
    if [ "$regime" = weak ]; then
        printf '%s on %s GPUs (weak scaling: each strategy at its own batch), each platform\nbatch %s per GPU (data, data+spatial, pipeline), %s per GPU (data+filter), %s in all (filter, channel)' \
            "$m" "$p" "$n" "$((n / 4))" "$n"
    else
        printf '%s on %s GPUs (strong scaling: every strategy at one batch), each platform\nbatch %s (%s per GPU)' \
            "$m" "$p" "$((64 * n))" "$((64 * n / p))"
    fi >"$HS_TMP/title-$pn"
done
xtics="$(for i in "${!names[@]}"; do printf '"%s" %d, ' "${names[$i]}" "$i"; done)"
hs_plot "$here/topology.gp" "$HS_OUT/topology" dir="$HS_TMP" panels="${panels# }" \
    strategies="$strategies" xtics="${xtics%, }" nvariants="${#names[@]}"

{
    echo "Best strategy per platform variant (lowest simulated epoch time that fits in memory)"
    { echo "panel,p,variant,best (sim),seconds,best (analytic),seconds,data (sim) seconds"
      awk -F, 'NR > 1 { printf "%s,%s,%s,%s,%s,%s,%s,%s\n", $1, $2, $3, $5, $6, $7, $8, $9 }' \
          "$HS_OUT/best.csv"; } | tr ',' '\t' | hs_table
    echo
    echo "Simulated seconds per epoch, every strategy (* = does not fit in memory, - = refused)"
    awk -F '\t' -v names="${names[*]}" -v strategies="$strategies" '
        BEGIN { nv = split(names, v, " "); ns = split(strategies, s, " ") }
        NR > 1 {
            k = $1
            if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
            c = $3 SUBSEP $5
            cell[k, c] = $10 != "ok" ? "-" : sprintf("%.1f%s", $8, $9 == "true" ? "" : "*")
        }
        END {
            for (i = 1; i <= nk; i++) {
                line = order[i]
                for (j = 1; j <= nv; j++) line = line "\t" v[j]
                print line
                for (t = 1; t <= ns; t++) {
                    line = s[t]
                    for (j = 1; j <= nv; j++) {
                        line = line "\t" (((order[i], v[j], s[t]) in cell) ? cell[order[i], v[j], s[t]] : "")
                    }
                    print line
                }
                if (i < nk) print "-"
            }
        }' "$HS_TMP/runs.tsv" | hs_table
} | hs_write "$HS_OUT/summary.txt"
cat "$HS_OUT/summary.txt"
hs_manifest
echo "topology: results in $HS_OUT (topology.png, best.csv, summary.txt)"
