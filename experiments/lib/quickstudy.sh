#!/usr/bin/env bash
# quickstudy.sh: the small study at the end of experiments/quickstart.sh, made from the rows its
# table already ran (no simulation repeated): per strategy, analytic vs simulated epoch time and
# their ratio, and ONE plot (compute and communication bars, the paradl study's layout,
# with the measured ABCI epoch times beside them when the reference table is there and has the
# configuration with the same batch).
# Usage: quickstudy.sh ROWS.txt OUTDIR [MEASURED.tsv]
#   ROWS.txt  `hybridsim analytic|simulate ... --row` lines (mode strategy gpus p1 p2 batch
#             epoch_comp_s epoch_comm_s epoch_total_s iter_total_s mem_GB fits), any order
# Writes OUTDIR/quickstart.png (through a temp file). Exit 2 on a missing argument.
set -euo pipefail
lib="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 2 ] || { echo "usage: quickstudy.sh ROWS.txt OUTDIR [MEASURED.tsv]" >&2; exit 2; }
rows="$1" out="$2" measured="${3:-}"
[ -r "$rows" ] || { echo "quickstudy: cannot read $rows" >&2; exit 2; }
[ -n "$measured" ] && [ -r "$measured" ] || measured=""
mkdir -p "$out"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/hs-quickstudy-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# The two modes of one strategy side by side (strategies that ran in both modes only).
awk 'BEGIN { OFS = "\t"; print "workload", "strategy", "gpus", "batch", "an_comp", "an_comm", "sim_comp", "sim_comm", "fits", "status" }
     $1 == "analytic" || $1 == "simulate" {
         k = $2 SUBSEP $3
         if (!(k in seen)) { seen[k] = 1; order[++n] = k; s[k] = $2; g[k] = $3; b[k] = $6 }
         if ($1 == "analytic") { ac[k] = $7; am[k] = $8; fit[k] = $12 == "yes" ? "true" : "false" }
         else { sc[k] = $7; sm[k] = $8 }
     }
     END { for (i = 1; i <= n; i++) { k = order[i]
               if ((k in ac) && (k in sc))
                   print "resnet50", s[k], g[k], b[k], ac[k], am[k], sc[k], sm[k], fit[k], "ok" } }' \
    "$rows" >"$tmp/runs.tsv"

echo
echo "Analytic vs simulated, seconds per epoch (sim/an = simulated / analytic):"
awk -F '\t' 'NR == 1 { print "strategy\tgpus\tanalytic\tsimulated\tsim/an\tfits"; next }
    { a = $5 + $6; s = $7 + $8; printf "%s\t%s\t%.1f\t%.1f\t%.3f\t%s\n", $2, $3, a, s, s / a, $9 == "true" ? "yes" : "no" }' \
    "$tmp/runs.tsv" | column -t -s "$(printf '\t')"

command -v gnuplot >/dev/null || { echo "(gnuplot is missing: no plot)"; exit 0; }
pngterm=png
grep -q pngcairo <<<"$(gnuplot -e 'set terminal' 2>&1)" && pngterm=pngcairo # read whole: pipefail
panels="$(awk -f "$lib/../paradl/bars.awk" -v dir="$tmp" -v measured="$measured" -v platform=abci "$tmp/runs.tsv")"
[ -n "$panels" ] || { echo "(no strategy ran in both modes: no plot)"; exit 0; }
gnuplot -e "term='png'; pngterm='$pngterm'; out='$out/quickstart.tmp.png'; dir='$tmp'; models='$panels'" \
    "$lib/../paradl/figure1.gp"
mv -f "$out/quickstart.tmp.png" "$out/quickstart.png"
echo
echo "plot: $out/quickstart.png"
