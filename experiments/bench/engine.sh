#!/usr/bin/env bash
# engine.sh: the engine's slow cases of issue 30, timed, and the contention two jobs add to each
# other in flow mode against step mode. A benchmark, not a test: it prints figures (and writes
# experiments/bench/engine.csv), it asserts nothing.
#
# Each case is a whole process under /usr/bin/time: wall seconds, CPU seconds (user + sys: the
# machine may be shared, so compare CPU seconds between runs) and peak resident memory. Cases:
#   - ResNet-50 data+spatial (groups of 4: a node) on a generated ABCI of 1088 nodes, 64 samples
#     a GPU, flow mode, 1024, 2048 and 4096 GPUs (its rings keep their flows beside the staged
#     halos, its halos' relays are reused: engine_exposed.c, engine_p2p.c);
#   - two 1024-GPU data-parallel jobs on abci, racks 0-15, spread (ResNet-50 58 and VGG16 16
#     samples a GPU, kernels measured), with --baseline (each job alone too), in step mode and
#     in flow mode: the time, and each job's contention increment (shared - alone iteration, ms).
#     Their rings are over the step budget in flow mode, so they run in blocks of steps
#     (engine_exposed.c): the two increments should agree.
# Usage: experiments/bench/engine.sh [BUILD_DIR]     (QUICK=1: skips the step-mode jobs, ~1 min)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init engine.sh "$(dirname "$0")/engine.csv" "${1:-}"
hs=$BENCH_HS
echo "case,gpus,wall_s,cpu_s,peak_rss_MB,result" >"$BENCH_TMP"

# measure NAME GPUS CMD...: one process; RESULT (set by the caller after) from its output
measure() {
    local name=$1 gpus=$2
    shift 2
    /usr/bin/time -v -o "$BENCH_TMP.time" "$@" >"$BENCH_TMP.out" 2>"$BENCH_TMP.err" ||
        { echo "engine.sh: $name failed:" >&2; cat "$BENCH_TMP.err" >&2; exit 1; }
    local wall cpu rss result
    read -r wall cpu rss < <(bench_time "$BENCH_TMP.time")
    case "$name" in
    two*) # the JSON array of the jobs: each one's increment over its time alone
        result=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s +%.4f ms" % (j["job"], 1e3 * (j["run"]["iteration"]["total_s"] -
                                                j["alone"]["total_s"])) for j in d))' \
            "$BENCH_TMP.out") ;;
    *) result=$(awk 'NF >= 10 && $1 == "simulate" {print $10; exit}' "$BENCH_TMP.out") ;;
    esac
    printf '%s,%s,%.2f,%.2f,%s,%s\n' "$name" "$gpus" "$wall" "$cpu" "$rss" "$result" |
        tee -a "$BENCH_TMP"
}

echo "engine.sh: $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for g in 1024 2048 4096; do
    measure "resnet50 data+spatial flow gen:abci:nodes=1088" "$g" "$hs" simulate -w resnet50 \
        -p gen:abci:nodes=1088 -s data+spatial -g "$g" -b $((64 * g)) --row
done
jobs=(--job "w=resnet50,s=data,g=1024,b=59392,racks=0-15,placement=spread,name=a"
      --job "w=vgg16,s=data,g=1024,b=16384,racks=0-15,placement=spread,name=b")
measure "two jobs flow (increment over alone)" 2048 "$hs" simulate -p abci "${jobs[@]}" \
    --baseline --compute measured --json
if [ -z "${QUICK:-}" ]; then
    measure "two jobs step (increment over alone)" 2048 "$hs" simulate -p abci "${jobs[@]}" \
        --baseline --compute measured --json -c step
fi
echo "engine.sh: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_done
echo
echo "| case | GPUs | wall s | CPU s | peak RSS MB | iteration s (or increments) |"
echo "|---|---|---|---|---|---|"
awk -F, 'NR > 1 {printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6}' \
    "$(dirname "$0")/engine.csv"
