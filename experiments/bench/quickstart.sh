#!/usr/bin/env bash
# quickstart.sh: how long experiments/quickstart.sh takes once hybridsim is built (its table of
# ResNet-50 on ABCI at 64 GPUs, every strategy analytic and simulated, and its plot): the one
# figure README.md and experiments/README.md quote (tests/e2e_quickstart_time.sh checks that
# they quote this file's). A benchmark, not a test: it prints figures and writes
# experiments/bench/quickstart.csv: wall and CPU seconds (user + sys: the machine may be shared,
# so compare CPU seconds between runs), the cores, and the load average before and after.
# Usage: experiments/bench/quickstart.sh     (builds first, as the quickstart does, untimed)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
(source "$root/experiments/setup.sh" >/dev/null 2>&1) || { echo "quickstart.sh: the build failed" >&2; exit 1; }
bench_init quickstart.sh "$root/experiments/bench/quickstart.csv"
tmp=$BENCH_TMP
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -; }
before=$(load)
/usr/bin/time -f "%e %U %S" -o "$tmp.time" "$root/experiments/quickstart.sh" >"$tmp.out" 2>&1 ||
    { cat "$tmp.out" >&2; echo "quickstart.sh: the quickstart failed" >&2; exit 1; }
read -r wall user sys <"$tmp.time"
echo "case,wall_s,cpu_s,cores,load_before,load_after" >"$tmp"
awk -v w="$wall" -v u="$user" -v s="$sys" -v c="$(nproc)" -v b="$before" -v a="$(load)" \
    'BEGIN { printf "quickstart after the build,%.0f,%.0f,%s,%s,%s\n", w, u + s, c, b, a }' |
    tee -a "$tmp"
bench_done
