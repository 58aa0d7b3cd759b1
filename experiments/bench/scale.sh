#!/usr/bin/env bash
# scale.sh: how fast hybridsim answers and how much memory it takes, from 64 to 65,536 GPUs, in
# one run (sim/README.md, "Speed", says what keeps runs cheap). A benchmark, not a test: it prints
# figures (and writes experiments/bench/scale.csv), it asserts nothing.
#
# Each case is a whole process under /usr/bin/time -v: wall seconds, CPU seconds (user + sys:
# the machine may be shared, so compare CPU seconds between runs) and peak resident memory.
# The load average is printed before and after. Cases:
#   - the analytic model on abci (64 and 4352 GPUs) and on a 17408-GPU machine file: the mean
#     of 20 processes;
#   - writing that 17408-GPU file (`hybridsim platform --preset abci --nodes 4352`);
#   - ResNet-50 data parallelism on abci, 64 to 4096 GPUs, flow and step collectives, and
#     data+filter in groups of 4 at 1024, 2048 and 4096 GPUs;
#   - 1024, 4096 and 16,384 GPUs on the 17408-GPU file (the job's racks only are built),
#     65,536 GPUs on a generated machine of 16,384 nodes (`-p gen:...`) and, with BIG=1 (about
#     2.5 GB of memory), 131,072 GPUs on one of 34,816 nodes;
#   - link statistics: VGG16 data, step collectives, `--links` at 512 and 2048 GPUs (8.4 million
#     messages at 2048), beside the same run without them;
#   - SimGrid's own cost per message: the 1024-rank step allreduce of eng_bench (170 kernels,
#     100 MB) with every message sent through SimGrid, against the same with messages on private
#     links computed (engine_private.c).
# Ends with a table of the cases (READMEs quote no timing: the CSV is the record).
# Usage: experiments/bench/scale.sh [BUILD_DIR]     (QUICK=1: the cases under ~5 s only;
#                                                   BIG=1: also 131,072 GPUs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" # bench_time
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
hs=$build/hybridsim
[ -x "$hs" ] || { echo "scale.sh: no $hs (build first: tests/run.sh)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "scale.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
cmake --build "$build" --target eng_bench >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$here/scale.csv
echo "case,gpus,wall_s,cpu_s,peak_rss_MB,result" >"$tmp/csv"

# measure NAME GPUS CMD...: one process; its iteration total (field 10 of --row) or its output
measure() {
    local name=$1 gpus=$2
    shift 2
    /usr/bin/time -v -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" ||
        { echo "scale.sh: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    local wall cpu rss result
    read -r wall cpu rss < <(bench_time "$tmp/time")
    result=$(awk 'NF >= 10 && $1 == "simulate" {print $10; exit}' "$tmp/out")
    case "$name" in eng_bench*) # its row: ranks,fidelity,makespan,messages,bytes,run_s,us/message
        result=$(awk -F, '{printf "%s us a message (%d messages)", $7, $4}' "$tmp/out") ;;
    esac
    [ -n "$result" ] || result=$(head -c 60 "$tmp/out" | tr '\n,' '  ')
    printf '%s,%s,%.2f,%.2f,%s,%s\n' "$name" "$gpus" "$wall" "$cpu" "$rss" "$result" |
        tee -a "$tmp/csv"
}

# analytic NAME GPUS ARGS...: the mean of 20 whole processes, in milliseconds
analytic() {
    local name=$1 gpus=$2
    shift 2
    local t0 t1
    t0=$(date +%s.%N)
    for _ in $(seq 20); do "$hs" analytic "$@" >/dev/null; done
    t1=$(date +%s.%N)
    printf '%s,%s,%.4f,,,ms per process: %.1f\n' "$name" "$gpus" \
        "$(awk "BEGIN {print ($t1 - $t0) / 20}")" "$(awk "BEGIN {print ($t1 - $t0) * 50}")" |
        tee -a "$tmp/csv"
}

sim() { # NAME GPUS ARGS...
    local name=$1 gpus=$2
    shift 2
    measure "$name" "$gpus" "$hs" simulate -w resnet50 "$@" -g "$gpus" --row
}

links() { # GPUS: VGG16 data, step, with and without --links
    measure "vgg16 data step abci" "$1" "$hs" simulate -w vgg16 -p abci -s data -g "$1" \
        -b $((32 * $1)) -c step --row
    measure "vgg16 data step abci --links" "$1" "$hs" simulate -w vgg16 -p abci -s data \
        -g "$1" -b $((32 * $1)) -c step --links "$tmp/links.csv" --row
}

echo "scale.sh: $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
big=$tmp/abci-4352.xml
measure "platform: write the 17408-GPU machine" 17408 \
    "$hs" platform --preset abci --nodes 4352 -o "$big"
analytic "analytic abci" 64 -w resnet50 -p abci -s data -g 64 -b 4096
analytic "analytic abci" 4352 -w resnet50 -p abci -s data -g 4352 -b 278528
analytic "analytic 17408-GPU file" 1024 -w resnet50 -p "$big" -s data -g 1024 -b 65536
for g in 64 256 1024 4096; do
    sim "data flow abci" "$g" -p abci -s data -b $((64 * g))
done
for g in 64 256 1024 4096; do
    sim "data step abci" "$g" -p abci -s data -b $((64 * g)) -c step
done
for g in 1024 2048 4096; do
    sim "data+filter flow abci" "$g" -p abci -s "data+filter:$((g / 4))x4" -b $((16 * g))
done
sim "data+filter step abci" 1024 -p abci -s data+filter:256x4 -b 16384 -c step
sim "data flow 17408-GPU file" 1024 -p "$big" -s data -b 65536
sim "data flow 17408-GPU file" 4096 -p "$big" -s data -b 262144
links 512
if [ -z "${QUICK:-}" ]; then
    sim "data flow 17408-GPU file" 16384 -p "$big" -s data -b 1048576
    sim "data flow gen:abci 16384 nodes" 65536 \
        -p gen:abci:nodes=16384,nodes-per-leaf=16,leaves-per-rack=2 -s data -b 4194304
    links 2048
    measure "eng_bench step: every message sent" 1024 "$build/eng_bench" 1024 step abci sent
    measure "eng_bench step: private messages computed" 1024 "$build/eng_bench" 1024 step abci
fi
if [ -n "${BIG:-}" ]; then
    sim "data flow gen:abci 34816 nodes" 131072 -p gen:abci:nodes=34816 -s data -b 8388608
fi
echo "scale.sh: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
mv "$tmp/csv" "$out"
echo "written: $out"
# The table of the cases, from the CSV.
echo
echo "| case | GPUs | wall s | CPU s | peak RSS MB | iteration s (or answer) |"
echo "|---|---|---|---|---|---|"
awk -F, 'NR > 1 {printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6}' "$out"
