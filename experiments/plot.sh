#!/usr/bin/env bash
# plot.sh: any sweep's CSV as a plot, with gnuplot: a column against another, a line (or, when
# the x column is not numbers, a set of points) per value of the --by columns.
# Usage: experiments/plot.sh CSV --x COL --y COL[/COL] [--by COL[,COL]] [--where COL=VALUE]...
#                            [--log-x|--lin-x] [--log-y] [--title TEXT] -o FILE.png|FILE.svg
#   COL         a column of the CSV's header (sim/README.md "Sweeps"); --y A/B plots the ratio
#   --by        one line per distinct value (joined values for several columns)
#   --where     keep only the rows where COL is VALUE (repeatable); rows not ok are left out
#   --log-x     a log2 x axis (default: when the numbers span 16x or more); --lin-x never
# Every configuration column that differs between the rows kept must be --x or --by (else exit
# 2 naming it: a line through different batches means nothing). The job keys' columns (those
# between layers and batch: allreduce, compute, precision, ...) never join rows: a line per
# combination of the values that differ, named in the legend. The title says what the rows
# share (model, platform, batch, precision ...). Runs whose fits_in_memory is false get a filled
# red dot on their point ("does not fit (fits_in_memory)" in the key). FILE is written as every
# output is (experiments/lib/out.sh): whole or not at all, a device or FIFO in place, a directory
# or dangling link refused (exit 2).
# Example: experiments/plot.sh out.csv --x gpus --y sim_iter_total_s --by strategy -o t.png
set -euo pipefail
lib="$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)"
source "$lib/out.sh"
die() { echo "plot: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: experiments/plot.sh CSV --x COL --y COL [--by COL] -o FILE.png"
csv="$1"; shift
x="" y="" by="" where="" logx=auto logy=0 title="" out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --x|--y|--by|--where|--title|-o)
            [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"
            case "$1" in
                --x) x="$2" ;; --y) y="$2" ;; --by) by="$2" ;; --title) title="$2" ;;
                -o) out="$2" ;; --where) where="${where:+$where;}$2" ;;
            esac
            shift ;;
        --log-x) logx=1 ;;
        --lin-x) logx=0 ;;
        --log-y) logy=1 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see experiments/plot.sh --help)" ;;
    esac
    shift
done
[ -n "$x" ] && [ -n "$y" ] && [ -n "$out" ] || die "--x, --y and -o are required"
[ -f "$csv" ] && [ -r "$csv" ] || die "$csv: not a readable file"
case "$out" in
    *.png) term=png; grep -q pngcairo <<<"$(gnuplot -e 'set terminal' 2>&1)" && term=pngcairo ;;
    *.svg) term=svg ;;
    *) die "-o $out: a .png or .svg file" ;;
esac
command -v gnuplot >/dev/null || die "gnuplot is missing (apt-get install gnuplot-nox)"
msg="$(hs_out_check -o "$out" 2>&1)" || die "$msg"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/hs-plot-XXXXXX")"
trap 'rm -rf "$tmp" ${hs_out_tmp:+"$hs_out_tmp"}' EXIT

# The columns the plot needs, and those that say what the rows are (which must not differ
# unless they are --x or --by).
cols="status,$x,${y%/*}"
[[ "$y" == */* ]] && cols="$cols,${y#*/}"
[ -z "$by" ] || cols="$cols,$by"
header="$(head -1 "$csv")"
for c in mode workload platform strategy gpus batch_rule micro_batches placement collectives layers \
    fits_in_memory; do
    [[ ",$header," == *",$c,"* ]] && cols="$cols,$c"
done
# the job keys' columns: the sweep writes them between layers and batch (sim/README.md)
jobcols="$(tr -d '\r' <<<"$header" | tr ',' '\n' |
    awk '$0 == "batch" { on = 0 } on { printf "%s%s", n++ ? " " : "", $0 } $0 == "layers" { on = 1 }')"
[ -z "$jobcols" ] || cols="$cols,${jobcols// /,}"
IFS=';' read -ra wheres <<<"$where"
for w in "${wheres[@]}"; do cols="$cols,${w%%=*}"; done
cols="$(tr ',' '\n' <<<"$cols" | awk '!seen[$0]++' | paste -sd, -)"
awk -f "$lib/csv.awk" -v cols="$cols" "$csv" >"$tmp/rows.tsv" || die "$csv: see above"
status=0
awk -f "$lib/plotcsv.awk" -v x="$x" -v y="$y" -v by="$by" -v where="$where" -v logx="$logx" \
    -v logy="$logy" -v title="$title" -v jobcols="$jobcols" -v dir="$tmp" -v out="$tmp/plot.out" -v term="$term" \
    "$tmp/rows.tsv" || status=$?
[ "$status" -eq 0 ] || exit 2
gnuplot "$tmp/plot.gp" 2>"$tmp/gnuplot.err" || { cat "$tmp/gnuplot.err" >&2; exit 1; }
[ -s "$tmp/plot.out" ] || { cat "$tmp/gnuplot.err" >&2; die "gnuplot wrote nothing"; }
hs_out_install -o "$tmp/plot.out" "$out" 2>"$tmp/out.err" ||
    { status=$?; echo "plot: $(cat "$tmp/out.err")" >&2; exit "$status"; }
echo "plot: $out"
