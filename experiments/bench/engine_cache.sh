#!/usr/bin/env bash
# engine_cache.sh: why ResNet-50 data+spatial's time grows faster than its GPU count (issue 30,
# engine.sh's first case): the simulation's instructions, first-level data-cache misses and
# last-level misses, counted by valgrind's cachegrind (a simulated cache, so the counts do not
# depend on the machine's load), at two GPU counts. Instructions and first-level misses that
# double with the GPUs while last-level misses grow faster say the run is linear in work and
# slowed by its working set outgrowing the cache, not by an algorithm walking more per event.
# A benchmark, not a test: it prints figures, it asserts nothing. Slow: cachegrind runs about
# 50 times slower than the program (about 5 min of CPU for the defaults).
# With TOP=N it also lists, for the last count, the N functions with the most last-level misses
# (cg_annotate, valgrind's): whose data leaves the cache (SimGrid's, the engine's, malloc's).
# Usage: experiments/bench/engine_cache.sh [BUILD_DIR]
#        (GPUS="1024 2048" the counts; LL=BYTES the last-level cache, default 32 MiB 16-way;
#         TOP=N the breakdown)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init engine_cache.sh /dev/null "${1:-}"
command -v valgrind >/dev/null || { echo "engine_cache.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
ll=${LL:-33554432}

echo "engine_cache.sh: $(nproc) cores; last-level cache simulated: $ll bytes, 16-way, 64 B lines"
echo "| GPUs | instructions | L1 data misses | last-level misses | peak RSS MB |"
echo "|---|---|---|---|---|"
for g in ${GPUS:-1024 2048}; do
    # hybridsim runs the simulation in its child hybridsim-sim (with its malloc settings):
    # cachegrind follows it, and its summary is the one with the most instructions.
    valgrind --tool=cachegrind --cache-sim=yes --trace-children=yes --LL="$ll",16,64 \
        --cachegrind-out-file="$BENCH_TMP.out.%p" "$BENCH_HS" simulate -w resnet50 \
        -p gen:abci:nodes=1088 -s data+spatial -g "$g" -b $((64 * g)) --row \
        >/dev/null 2>"$BENCH_TMP.log" ||
        { echo "engine_cache.sh: $g GPUs failed:" >&2; tail "$BENCH_TMP.log" >&2; exit 1; }
    /usr/bin/time -f %M -o "$BENCH_TMP.rss" "$BENCH_HS" simulate -w resnet50 \
        -p gen:abci:nodes=1088 -s data+spatial -g "$g" -b $((64 * g)) --row >/dev/null
    awk -v g="$g" -v rss="$(cat "$BENCH_TMP.rss")" '
        function num(s) { gsub(/,/, "", s); return s + 0 }
        / I +refs:/ { p = $1; ir[p] = num($4) }
        / D1 +misses:/ { d1[$1] = num($4) }
        / LL misses:/ { ll[$1] = num($4) }
        END { best = ""; for (p in ir) if (best == "" || ir[p] > ir[best]) best = p
              printf "| %s | %.4g | %.4g | %.4g | %d |\n", g, ir[best], d1[best], ll[best], rss / 1024 }' \
        "$BENCH_TMP.log"
    # the child's output file: the one whose summary has the most instructions
    main_out=$(awk '/ I +refs:/ {gsub(/[=,]/, " "); n = $4 $5 $6 $7 $8; if (n + 0 > best + 0) {best = n; p = $1}}
                    END {print p}' "$BENCH_TMP.log")
done
if [ -n "${TOP:-}" ]; then
    echo
    echo "last-level misses at $g GPUs by function (top $TOP):"
    echo "| LL read misses | LL write misses | function |"
    echo "|---|---|---|"
    cg_annotate --show=DLmr,DLmw --sort=DLmr "$BENCH_TMP.out.$main_out" 2>/dev/null |
        awk -v top="$TOP" -v root="$BENCH_ROOT/" '/file:function/ {on = 1; next}
            on && n < top {
                gsub(/\( *[0-9.]+%\)/, "")
                if ($1 !~ /^[0-9,]+$/ || $2 !~ /^[0-9,]+$/) next
                f = $0; sub(/^ *[0-9,]+ +[0-9,]+ +/, "", f)
                if (index(f, root) == 1) f = substr(f, length(root) + 1)
                if (length(f) > 90) f = substr(f, 1, 87) "..."
                printf "| %s | %s | %s |\n", $1, $2, f; n++ }'
fi
