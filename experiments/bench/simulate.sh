#!/usr/bin/env bash
# simulate.sh: wall time and peak memory of whole `hybridsim simulate` processes (platform loading,
# expansion, simulation, report), ResNet-50 data parallelism on abci at 64..4096 GPUs with both
# collective fidelities, and one hybrid (data+filter, groups of 4). A benchmark, not a test: it
# prints figures and writes experiments/bench/simulate.csv; compare them with the targets in the
# README (1024 GPUs flow < 2 s and < 500 MB; 4096 flow < 15 s; 1024 step < 120 s).
# Usage: experiments/bench/simulate.sh [BUILD_DIR]     (BENCH_BIG_STEP=1 also runs step at 4096)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init simulate.sh "$(cd "$(dirname "$0")" && pwd)/simulate.csv" "${1:-}"
hs=$BENCH_HS
tmp=$BENCH_TMP
echo "workload,strategy,gpus,batch,fidelity,iteration_total_s,wall_s,peak_rss_MB" >"$tmp"

run() { # strategy gpus batch fidelity
    local total
    total=$(/usr/bin/time -f "%e %M" -o "$tmp.log" "$hs" simulate -w resnet50 -p abci -s "$1" \
        -g "$2" -b "$3" --collectives "$4" --row | awk '{print $10}')
    read -r wall rss_kb <"$tmp.log"
    printf 'resnet50,%s,%s,%s,%s,%s,%s,%d\n' "$1" "$2" "$3" "$4" "$total" "$wall" \
        $((rss_kb / 1024)) | tee -a "$tmp"
}

for fidelity in flow step; do
    for g in 64 256 1024 4096; do
        if [ "$fidelity" = step ] && [ "$g" -gt 1024 ] && [ -z "${BENCH_BIG_STEP:-}" ]; then
            continue
        fi
        run data "$g" $((64 * g)) "$fidelity"
    done
    run "data+filter:$((1024 / 4))x4" 1024 $((16 * 1024)) "$fidelity"
done
bench_done
