#!/usr/bin/env bash
# run.sh: builds eng_bench against a hybridsim build and measures the engine's wall time and peak
# memory at 64..4096 ranks, both fidelities. Usage: run.sh [BUILD_DIR] [RANKS...]
# Writes experiments/bench/results.csv (one row per run) and prints it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
shift || true
sizes=${*:-64 256 1024 4096}
cmake --build "$build" --target eng_bench >/dev/null
out=$here/results.csv
echo "ranks,fidelity,makespan_s,messages,bytes,engine_wall_s,us_per_message,process_wall_s,peak_rss_mb" > "$out"
for fid in flow step; do
  for n in $sizes; do
    # step at 4096 ranks is 33 million messages: skip unless asked for explicitly
    if [ "$fid" = step ] && [ "$n" -gt 1024 ] && [ -z "${BENCH_BIG_STEP:-}" ]; then continue; fi
    log=$(mktemp)
    row=$( { /usr/bin/time -v "$build/eng_bench" "$n" "$fid" 2>"$log"; } )
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$log")
    echo "$row,$wall,$rss" | tee -a "$out"
    rm -f "$log"
  done
done
