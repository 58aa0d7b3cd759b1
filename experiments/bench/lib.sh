#!/usr/bin/env bash
# lib.sh: what the benchmark scripts that time hybridsim processes share: where the executable
# is, /usr/bin/time and reading its report, and a CSV written to a temporary file that replaces
# the result only when the benchmark completes. Sourced, not run:
#   source "$(dirname "$0")/lib.sh"; bench_init NAME OUT.csv [BUILD_DIR]; ...; bench_done
# Sets BENCH_ROOT (the source tree), BENCH_HS (the executable), BENCH_TMP (the CSV being
# written; BENCH_TMP.* are scratch files removed with it).

bench_init() {
    BENCH_NAME=$1
    BENCH_OUT=$2
    BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    BENCH_HS=${3:-$BENCH_ROOT/build}/hybridsim
    [ -x "$BENCH_HS" ] || { echo "$BENCH_NAME: no $BENCH_HS (build first: tests/run.sh)" >&2; exit 2; }
    [ -x /usr/bin/time ] || { echo "$BENCH_NAME: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
    BENCH_TMP=$(mktemp)
    trap 'rm -f "$BENCH_TMP" "$BENCH_TMP".*' EXIT
}

bench_done() {
    mv "$BENCH_TMP" "$BENCH_OUT"
    echo "written: $BENCH_OUT"
}

# bench_time FILE: "WALL_S CPU_S PEAK_RSS_MB" of a `/usr/bin/time -v -o FILE` report (CPU = user
# + system; the wall clock's h:mm:ss.ss or m:ss.ss read as seconds).
bench_time() {
    awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); w = 0
                                           for (i = 1; i <= n; i++) w = w * 60 + t[i]}
                /User time/ {u = $2} /System time/ {s = $2}
                /Maximum resident set size/ {r = int($2 / 1024)}
                END {print w, u + s, r}' "$1"
}
