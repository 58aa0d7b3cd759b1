#!/usr/bin/env bash
# suggest.sh: how long the default search (`strategy --search`, hybridsim's cost model, on abci)
# and `suggest` take. Targets (issue 9): the search for ResNet-50 and VGG16 at 64 GPUs under
# 10 s, AlexNet under 1 s; suggest at 1024 GPUs with its top-5 simulations under 60 s; (issue
# 27) suggest and the search for ResNet-50 at 256-512 GPUs in a few seconds.
# A benchmark, not a test: it prints figures and writes experiments/bench/suggest.csv. search_s
# is the search alone (as the command reports it, polishing excluded), wall_s the whole process
# (search, exact pricing, polishing, best uniform strategy, the two simulations), peak_rss_MB of
# the parent (the simulations run in children), user_s the CPU time of the process and its
# children (what the machine's load does not inflate), load the 1-minute load average before
# the run (the machine has 2 cores).
# Usage: experiments/bench/suggest.sh [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init suggest.sh "$(cd "$(dirname "$0")" && pwd)/suggest.csv" "${1:-}"
tmp=$BENCH_TMP
echo "command,workload,gpus,batch,search_s,wall_s,user_s,load,peak_rss_MB,first" >"$tmp"
load() { cut -d" " -f1 /proc/loadavg; }
cpu() { awk -v u="$1" -v s="$2" 'BEGIN { printf "%.2f", u + s }'; }

search() { # workload gpus batch
    local before; before=$(load)
    /usr/bin/time -f "%e %U %S %M" -o "$tmp.log" "$BENCH_HS" strategy --search -w "$1" -p abci \
        -g "$2" -b "$3" -o "$tmp.xml" --json >"$tmp.out"
    read -r wall user sys rss_kb <"$tmp.log"
    local s first
    s=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["search_s"])' "$tmp.out")
    first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["searched"]["strategy"])' \
        "$tmp.out")
    printf 'search,%s,%s,%s,%s,%s,%s,%s,%d,%s\n' "$1" "$2" "$3" "$s" "$wall" \
        "$(cpu "$user" "$sys")" "$before" $((rss_kb / 1024)) "$first" | tee -a "$tmp"
}

suggest() { # workload gpus batch-per-gpu
    local before; before=$(load)
    /usr/bin/time -f "%e %U %S %M" -o "$tmp.log" "$BENCH_HS" suggest -w "$1" -p abci -g "$2" \
        --batch-per-gpu "$3" --json >"$tmp.out" 2>/dev/null
    read -r wall user sys rss_kb <"$tmp.log"
    local first
    first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ranking"][0]["strategy"])' "$tmp.out")
    printf 'suggest,%s,%s,%s,,%s,%s,%s,%d,%s\n' "$1" "$2" "$(($2 * $3))" "$wall" \
        "$(cpu "$user" "$sys")" "$before" $((rss_kb / 1024)) "$first" | tee -a "$tmp"
}

search alexnet 64 4096
search vgg16 64 2048
search resnet50 64 4096
search resnet50 256 16384
search resnet50 512 32768
suggest resnet50 256 64
suggest resnet50 512 64
suggest alexnet 1024 64
suggest vgg16 1024 32
suggest resnet50 1024 32
bench_done
