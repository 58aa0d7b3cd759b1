#!/usr/bin/env bash
# search.sh: how long `hybridsim strategy --search --cost-model pase` takes: PaSE's AlexNet,
# ResNet-50 and VGG16 at 64 GPUs (targets: AlexNet well under 1 s, the other two under 10 s),
# and PaSE's ResNet-101 and Inception-v3 (tests/search/) at the sizes PaSE's paper and notes
# time (its Python: ResNet-101 13, 45, 186, 307 s at p = 4..32; Inception-v3 3:16 at p = 64),
# and PaSE's Transformer at p = 64 (its largest tables: three vertices, 592,704 entries).
# A benchmark, not a test: it prints figures and writes experiments/bench/search.csv. search_s
# is the search alone (as the command reports it), wall_s the whole process (loading included),
# user_s its CPU time (what the machine's load does not inflate), load the 1-minute load average
# before the run (the machine has 2 cores).
# Usage: experiments/bench/search.sh [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init search.sh "$(cd "$(dirname "$0")" && pwd)/search.csv" "${1:-}"
tmp=$BENCH_TMP
echo "workload,devices,batch,vertices,largest_table,rows,total,search_s,wall_s,user_s,load,peak_rss_MB" >"$tmp"

run() { # workload devices batch
    local before; before=$(cut -d" " -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S %M" -o "$tmp.log" "$BENCH_HS" strategy --search -w "$1" -g "$2" \
        -b "$3" --cost-model pase >"$tmp.out"
    read -r wall user sys rss_kb <"$tmp.log"
    local total stats
    total=$(awk '/^  total /{print $2}' "$tmp.out")
    # "search: V vertices, E edges, largest dependent set D, largest table T entries, R rows, ..."
    stats=$(awk '/^  search: /{gsub(",", ""); print $2, $12, $14, $(NF-1)}' "$tmp.out")
    read -r vertices table rows seconds <<<"$stats"
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d\n' "$(basename "$1" .xml)" "$2" "$3" \
        "$vertices" "$table" "$rows" "$total" "$seconds" "$wall" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" "$before" \
        $((rss_kb / 1024)) | tee -a "$tmp"
}

for p in 8 32 64; do run pase-alexnet "$p" 128; done
for w in resnet50 vgg16; do
    run "$w" 64 4096
    run "$w" 64 128
done
for p in 4 16 32; do run "$BENCH_ROOT/tests/search/pase-resnet101.xml" "$p" 128; done
run "$BENCH_ROOT/tests/search/pase-inception3.xml" 64 128
run pase-transformer 64 64
bench_done
