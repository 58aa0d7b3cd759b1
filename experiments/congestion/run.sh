#!/usr/bin/env bash
# congestion/run.sh: how rack-uplink oversubscription slows training: ABCI variants with rack
# oversubscription 1:1, 1:2, 1:3 (ABCI's own) and 1:6, data and data+filter for ResNet-50 and
# VGG16 (whose 138M-weight gradients make bandwidth matter) at 256 to 1024 GPUs, packed vs spread
# placement; then two identical jobs sharing the fabric (simulate --job ... --baseline); then
# routed uplinks: ABCI's fat-link uplinks against a cable a flow (InfiniBand's D-mod-K, ECMP
# hashing; platforms/README.md), data parallelism with the ring, NCCL's rings and its trees.
# Every run keeps the measured kernel times (--compute measured) and ParaDL's filter backward
# (--filter-backward allreduce), as the study was first made, so that only the network
# differs.
# Usage: experiments/congestion/run.sh [--quick] [-o OUTDIR] (--help for all)
# Writes OUTDIR/platforms/abci-r{1,2,3,6}.xml, congestion.csv (the sweeps), fabric/*.json (one
# per shared-fabric run), fabric.csv, routing.csv, links/*.csv and *.row (two runs' link
# statistics and times),
# congestion.png/.svg, sharing.png/.svg, routing.png/.svg, machine.png/.svg (the machine of
# those two runs, packed against spread), summary.txt, MANIFEST.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/common.sh"
hs_study_args congestion "$@"

oversubs=(1 2 3 6)
for r in "${oversubs[@]}"; do
    hs_platform "abci-r$r" --preset abci --rack-oversub "$r"
done
platforms="$(printf 'platforms/abci-r%s.xml,' "${oversubs[@]}")"
platforms="${platforms%,}"

# Batch rules as the paradl study: the model's one-GPU batch n per GPU for data, per node for
# data+filter (ResNet-50 64, VGG16 32).
declare -A one_gpu_batch=([resnet50]=64 [vgg16]=32)
models=(resnet50 vgg16)
if [ "$HS_QUICK" = 1 ]; then gpus=256,1024; share_gpus=(256); share_models=(vgg16); share_placements=(spread)
else gpus=256,512,1024; share_gpus=(256 512); share_models=(resnet50 vgg16); share_placements=(packed spread)
fi

csv=congestion.csv
for m in "${models[@]}"; do
    n="${one_gpu_batch[$m]}"
    common=(-w "$m" -p "$platforms" -g "$gpus" -m compare -P packed,spread -c flow --compute measured
            --filter-backward allreduce)
    hs_sweep "$csv" "${common[@]}" -s data -b "$n/gpu"
    hs_sweep "$csv" "${common[@]}" -s data+filter -b "$n/node"
done

# Routed uplinks: one machine of 8 racks (272 nodes) with each uplink a fat link, or its cables
# with a cable a flow; the same jobs in flow mode.
routings=(fat dmodk hash)
routed=""
for r in "${routings[@]}"; do routed="$routed${routed:+, }gen:abci:nodes=272,uplink-routing=$r"; done
if [ "$HS_QUICK" = 1 ]; then route_gpus=1024; route_models=(resnet50)
else route_gpus=256,512,1024; route_models=(resnet50 vgg16)
fi
for m in "${route_models[@]}"; do
    n="${one_gpu_batch[$m]}"
    hs_sweep routing.csv -w "$m" -p "$routed" -g "$route_gpus" -m simulate -P packed,spread \
        --compute measured -c flow -s data --allreduce ring,rings,tree -b "$n/gpu"
    hs_sweep routing.csv -w "$m" -p "$routed" -g "$route_gpus" -m simulate -P packed,spread \
        --compute measured --filter-backward allreduce -c flow -s data+filter -b "$n/node"
done

# Two identical jobs (same model, strategy, GPU count, batch and placement) on the fewest racks
# that hold both: their iterations are in step, so their collectives cross the rack uplinks at
# the same time. Each run's JSON is kept in fabric/; a rerun skips the runs already there.
mkdir -p "$HS_OUT/fabric"
fabric_before="$(find "$HS_OUT/fabric" -name '*.json' | wc -l)"
share_run() {   # key, then the simulate arguments
    local key="$1"; shift
    local json="$HS_OUT/fabric/$key.json"
    [ -s "$json" ] && return 0
    if (cd "$HS_OUT" && "$HS_EXE" simulate "$@" --compute measured --filter-backward allreduce \
            --baseline --json) >"$json.tmp" 2>"$json.err"; then
        mv -f "$json.tmp" "$json"; rm -f "$json.err"
    else
        echo "congestion: shared-fabric run $key failed: $(tr '\n' ' ' <"$json.err")" >&2
        rm -f "$json.tmp"
    fi
}
share_keys=(); share_meta=()
for m in "${share_models[@]}"; do
    n="${one_gpu_batch[$m]}"
    for s in data data+filter; do
        for g in "${share_gpus[@]}"; do
            nodes=$((g / 4)); racks=$(((2 * nodes + 33) / 34))
            if [ "$s" = data ]; then b=$((n * g)); else b=$((n * nodes)); fi
            for pl in "${share_placements[@]}"; do
                for r in "${oversubs[@]}"; do
                    key="$m-$s-$g-$pl-r$r"
                    share_keys+=("$key"); share_meta+=("$m,$s,$g,$pl,$r")
                    job="w=$m,s=$s,g=$g,b=$b,racks=0-$((racks - 1)),placement=$pl"
                    while [ "$(jobs -rp | wc -l)" -ge "$HS_JOBS" ]; do wait -n || true; done
                    share_run "$key" -p "platforms/abci-r$r.xml" --job "name=a,$job" \
                        --job "name=b,$job" &
                done
            done
        done
    done
done
wait
HS_RAN=$((HS_RAN + $(find "$HS_OUT/fabric" -name '*.json' | wc -l) - fabric_before))
# fabric.csv: one row per run and job, from the JSON (slowdown = shared / alone iteration time).
{
    echo "key,workload,strategy,gpus_per_job,placement,rack_oversub,job,alone_iter_s,shared_iter_s,slowdown,status"
    for i in "${!share_keys[@]}"; do
        key="${share_keys[$i]}"; f="$HS_OUT/fabric/$key.json"
        if [ ! -s "$f" ]; then echo "$key,${share_meta[$i]},-,,,,failed"; continue; fi
        awk -v pre="$key,${share_meta[$i]}" '
            { text = text $0 }
            function num(chunk, name,    i, v) {
                i = index(chunk, "\"" name "\": ")
                if (!i) return ""
                v = substr(chunk, i + length(name) + 4)
                match(v, /^[-+0-9.eE]+/)
                return substr(v, 1, RLENGTH)
            }
            END {
                n = split(text, jobs, /\{"job": "/)
                for (j = 2; j <= n; j++) {
                    name = substr(jobs[j], 1, index(jobs[j], "\"") - 1)
                    it = substr(jobs[j], index(jobs[j], "\"iteration\": {"))
                    al = substr(jobs[j], index(jobs[j], "\"alone\": {"))
                    printf "%s,%s,%s,%s,%s,ok\n", pre, name, num(al, "total_s"),
                        num(it, "total_s"), num(jobs[j], "slowdown")
                }
            }' "$f"
    done
} | hs_write "$HS_OUT/fabric.csv"

# Plot 1: simulated / analytic epoch time against the oversubscription, a panel per model, a
# line per strategy x placement x p.
hs_select "$HS_OUT/$csv" workload,strategy,placement,gpus,platform,an_epoch_total_s,sim_epoch_total_s,status |
    awk -F '\t' 'BEGIN { OFS = "\t" }
        NR == 1 { $5 = "rack_oversub"; print; next }
        { r = $5; sub(/.*abci-r/, "", r); sub(/\.xml$/, "", r); $5 = r; print }' >"$HS_TMP/cong.tsv"
order=""
gpus_list="$gpus"
for s in data data+filter; do for pl in packed spread; do for g in ${gpus//,/ }; do
    order="$order $s|$pl|$g"; done; done; done
for m in "${models[@]}"; do
    awk -f "$HS_LIB/series.awk" -v series=strategy,placement,gpus -v x=rack_oversub \
        -v y=sim_epoch_total_s/an_epoch_total_s -v where="workload=$m" -v order="$order" \
        -v nblocks="$HS_TMP/cong-$m.n" "$HS_TMP/cong.tsv" >"$HS_TMP/cong-$m.dat"
done
titles=()
for i in "${!models[@]}"; do
    m="${models[$i]}" n="${one_gpu_batch[${models[$i]}]}"
    titles+=("head$((i + 1))=$m on abci with rack uplinks 1:x (abci-rx)"
             "batch$((i + 1))=batch $n per GPU (data), $n per node (data+filter)")
done
hs_plot "$here/congestion.gp" "$HS_OUT/congestion" dir="$HS_TMP" models="${models[*]}" \
    per="$(awk -F, '{ print NF }' <<<"$gpus_list")" "${titles[@]}"

# Plot 2: the shared-fabric slowdown of job a against the oversubscription.
awk -F, 'BEGIN { OFS = "\t"; print "workload", "strategy", "placement", "gpus", "rack_oversub", "slowdown" }
    NR > 1 && $7 == "a" && $11 == "ok" { print $2, $3, $5, $4, $6, $10 }' "$HS_OUT/fabric.csv" \
    >"$HS_TMP/share.tsv"
awk -f "$HS_LIB/series.awk" -v series=workload,strategy,placement,gpus -v x=rack_oversub \
    -v y=slowdown -v nblocks="$HS_TMP/share.n" "$HS_TMP/share.tsv" >"$HS_TMP/share.dat"
batches="batch n per GPU (data), n per node (data+filter), n ="
for m in "${share_models[@]}"; do batches="$batches ${one_gpu_batch[$m]} ($m),"; done
hs_plot "$here/sharing.gp" "$HS_OUT/sharing" dir="$HS_TMP" ngpus="${#share_gpus[@]}" \
    nplacements="${#share_placements[@]}" batches="${batches%,}"

# Plot 3: routed uplinks over the fat link, per strategy x placement, at the largest GPU count.
route_max="${route_gpus##*,}"
for m in "${route_models[@]}"; do
    hs_select "$HS_OUT/routing.csv" workload,strategy,placement,gpus,platform,sim_iter_total_s,status |
        awk -F '\t' -v m="$m" -v g="$route_max" 'NR > 1 && $1 == m && $4 == g && $7 == "ok" {
                r = $5; sub(/.*uplink-routing=/, "", r); s = $2
                if (s == "data") s = "data ring"; sub(/ --allreduce /, " ", s); k = s ", " $3
                if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
                t[k, r] = $6 }
            END { for (i = 1; i <= n; i++) { k = keys[i]
                      if ((k, "fat") in t && (k, "dmodk") in t && (k, "hash") in t)
                          printf "\"%s\" %.4f %.4f\n", k, t[k, "dmodk"] / t[k, "fat"], t[k, "hash"] / t[k, "fat"] } }' \
        >"$HS_TMP/routing-$m.dat"
done
hs_plot "$here/routing.gp" "$HS_OUT/routing" dir="$HS_TMP" models="${route_models[*]}" gpus="$route_max"

# Plot 4: the machine itself, packed against spread: VGG16 data+filter on 1024 GPUs at 1:6,
# where spread slows (summary's first table), with every link coloured by its utilisation
# (experiments/machine.sh). Each run's --links CSV and --row line are kept in links/; a rerun
# reuses them.
mkdir -p "$HS_OUT/links"
machine_titles=()
for pl in packed spread; do
    f="$HS_OUT/links/vgg16-data+filter-1024-$pl-r6"
    if [ ! -s "$f.csv" ] || [ ! -s "$f.row" ]; then
        (cd "$HS_OUT" && "$HS_EXE" simulate -w vgg16 -p platforms/abci-r6.xml -s data+filter \
            -g 1024 -b $((32 * 256)) -P "$pl" --compute measured --filter-backward allreduce \
            --links "$f.csv" --row >"$f.row.tmp") || hs_die "the links run ($pl) failed"
        mv -f "$f.row.tmp" "$f.row"
        HS_RAN=$((HS_RAN + 1))
    fi
    machine_titles+=(--title "VGG16 data+filter, 1024 GPUs, $pl ($(awk '{ print $10 }' "$f.row") s an iteration)")
done
if [ -n "$HS_PNGTERM" ]; then
    for t in png svg; do
        "$HS_ROOT/experiments/machine.sh" "$HS_OUT/links/vgg16-data+filter-1024-packed-r6.csv" \
            "$HS_OUT/links/vgg16-data+filter-1024-spread-r6.csv" -p "$HS_OUT/platforms/abci-r6.xml" \
            "${machine_titles[@]}" -o "$HS_OUT/machine.$t" >"$HS_TMP/machine.txt" ||
            hs_die "experiments/machine.sh failed"
        HS_PLOTS+=("$HS_OUT/machine.$t")
    done
fi

{
    echo "Rack oversubscription on abci: seconds per epoch, simulated (sim) vs analytic (an)"
    {
        printf 'model\tstrategy\tplacement\tp\toversub\tan_s\tsim_s\tsim/an\n'
        awk -F '\t' 'NR > 1 && $8 == "ok" { printf "%s\t%s\t%s\t%s\t1:%s\t%.1f\t%.1f\t%.3f\n",
            $1, $2, $3, $4, $5, $6, $7, $7 / $6 }' "$HS_TMP/cong.tsv" |
            sort -t "$(printf '\t')" -k1,1 -k2,2 -k3,3 -k4,4n -k5,5V
    } | hs_table
    echo
    echo "Two identical jobs sharing the fabric (job a; slowdown = shared / alone iteration time)"
    awk -F, 'NR == 1 { print "model\tstrategy\tp_per_job\tplacement\toversub\talone_s\tshared_s\tslowdown\tstatus" }
        NR > 1 && $11 == "ok" && $7 == "a" { printf "%s\t%s\t%s\t%s\t1:%s\t%.4f\t%.4f\t%.3f\t%s\n",
            $2, $3, $4, $5, $6, $8, $9, $10, $11 }
        NR > 1 && $11 != "ok" { printf "%s\t%s\t%s\t%s\t1:%s\t-\t-\t-\t%s\n", $2, $3, $4, $5, $6, $11 }' \
        "$HS_OUT/fabric.csv" | hs_table
    echo
    echo "Routed uplinks on abci (8 racks): seconds per iteration, fat links vs a cable a flow"
    hs_select "$HS_OUT/routing.csv" workload,strategy,placement,gpus,platform,sim_iter_total_s,status |
        awk -F '\t' 'NR == 1 { next }
            $7 != "ok" { next }
            { r = $5; sub(/.*uplink-routing=/, "", r); k = $1 "\t" $2 "\t" $3 "\t" $4
              if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
              t[k, r] = $6 }
            END { print "model\tstrategy\tplacement\tp\tfat_s\tdmodk_s\thash_s\tdmodk/fat\thash/fat"
                  for (i = 1; i <= n; i++) { k = keys[i]
                      if (!((k, "fat") in t) || !((k, "dmodk") in t) || !((k, "hash") in t)) continue
                      printf "%s\t%.4f\t%.4f\t%.4f\t%.3f\t%.3f\n", k, t[k, "fat"], t[k, "dmodk"],
                          t[k, "hash"], t[k, "dmodk"] / t[k, "fat"], t[k, "hash"] / t[k, "fat"] } }' |
        hs_table
    if [ -s "$HS_TMP/machine.txt" ]; then
        echo
        echo "The machine (machine.png): VGG16 data+filter, 1024 GPUs, abci with rack uplinks 1:6"
        grep -v '^machine: ' "$HS_TMP/machine.txt"
    fi
} | hs_write "$HS_OUT/summary.txt"
cat "$HS_OUT/summary.txt"
hs_manifest
echo "congestion: results in $HS_OUT (congestion.png, sharing.png, routing.png, machine.png, summary.txt)"
