#!/usr/bin/env bash
# e2e_plot.sh: experiments/plot.sh draws any sweep CSV: the committed topology sweep, a line per
# strategy against the platforms (points: the x column is not numbers) to PNG and SVG; a ratio
# of two columns; the title naming what the rows share. Bad requests: exit 2 naming the column
# or flag, no file written: an unknown column, configuration columns that differ inside a line,
# an output that is neither .png nor .svg, a missing CSV. A sweep CSV holding runs of two
# precisions (the same sweep rerun with --precision mixed): a line per precision, named, never
# one through both; the precision the rows share in the title; runs that do not fit in memory
# marked in the key. Skipped (77) without gnuplot.
# Usage (from ctest): e2e_plot.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
SRC="$2"
command -v gnuplot >/dev/null || { echo "no gnuplot"; exit 77; }
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
plot="$SRC/experiments/plot.sh"
csv="$SRC/experiments/results/topology/topology-strong.csv"

for ext in png svg; do
    "$plot" "$csv" --x platform --y sim_epoch_total_s --by strategy --where workload=vgg16 \
        -o "$TMP/t.$ext" >"$TMP/out" 2>"$TMP/err" || fail "plot $ext: $(cat "$TMP/err")"
    [ -s "$TMP/t.$ext" ] || fail "plot $ext: empty"
done
head -c 8 "$TMP/t.png" | grep -q PNG || fail "t.png is not a PNG"
grep -q "vgg16, 1024 GPUs" "$TMP/t.svg" || fail "the title does not say what the rows share"
"$plot" "$csv" --x platform --y sim_epoch_total_s/an_epoch_total_s --by strategy \
    --where workload=resnet50 -o "$TMP/r.png" >/dev/null 2>"$TMP/err" || fail "ratio: $(cat "$TMP/err")"
[ -s "$TMP/r.png" ] || fail "ratio: empty"

# Lines of equal value stay visible: two series with the same values get different dash
# types and point shapes (the SVG's dash patterns and point symbols), the later drawn thinner.
cat >"$TMP/eq.csv" <<'CSV'
key,mode,workload,platform,strategy,gpus,batch_rule,sim_iter_total_s,status
a,compare,resnet50,abci,data,4,64/gpu,0.2,ok
b,compare,resnet50,abci,data,16,64/gpu,0.21,ok
c,compare,resnet50,abci,filter,4,64/gpu,0.2,ok
d,compare,resnet50,abci,filter,16,64/gpu,0.21,ok
CSV
"$plot" "$TMP/eq.csv" --x gpus --y sim_iter_total_s --by strategy -o "$TMP/eq.svg" >/dev/null \
    2>"$TMP/err" || fail "equal lines: $(cat "$TMP/err")"
# (a symbol drawn is used more than once: its points and its key sample; the grid's dash is
# one pattern, a dashed series another)
[ "$(grep -o "xlink:href='#gpPt[0-9]*'" "$TMP/eq.svg" | sort | uniq -c | awk '$1 > 1' |
    wc -l)" -ge 2 ] || fail "equal lines: one point shape for both series"
[ "$(grep -o "dasharray='[^']*'" "$TMP/eq.svg" | sort -u | wc -l)" -ge 2 ] ||
    fail "equal lines: no dashed series"

# The paradl/quickstart bars: the log axis's floor lies below every bar, the communication
# bars too (ResNet-50 data parallelism on 64 GPUs: 5.7 s of communication under 62 s of
# compute, which a floor of 10 s hid).
printf 'workload\tstrategy\tgpus\tbatch\tan_comp\tan_comm\tsim_comp\tsim_comm\tfits\tstatus\n' \
    >"$TMP/runs.tsv"
printf 'resnet50\tdata\t64\t4096\t62.39\t5.678\t62.39\t5.678\ttrue\tok\n' >>"$TMP/runs.tsv"
printf 'resnet50\tfilter\t64\t64\t3317.8\t11077.9\t3317.8\t11077.9\ttrue\tok\n' >>"$TMP/runs.tsv"
mkdir -p "$TMP/bars"
awk -f "$SRC/experiments/paradl/bars.awk" -v dir="$TMP/bars" -v measured= "$TMP/runs.tsv" \
    >/dev/null || fail "bars.awk: exit $?"
floor=$(sed -n 's/^set yrange \[\([^:]*\):.*/\1/p' "$TMP/bars/panel-resnet50.gp")
awk -v f="$floor" 'BEGIN { exit !(f + 0 > 0 && f + 0 < 5.678) }' ||
    fail "bars: the axis floor $floor hides data's 5.678 s of communication"

# Settings never mixed: a sweep, then the same sweep with --precision mixed into the same CSV
# (issue 28.1: one zig-zag line per strategy through both, the title silent).
sweep() { "$1" sweep -m analytic -w resnet50 -p abci -s data,filter -g 4,16 --batch-per-gpu 32 \
    --quiet -o "$TMP/mix.csv" "${@:2}" >/dev/null 2>>"$TMP/err"; }
: >"$TMP/err"
sweep "$1" && sweep "$1" --precision mixed || fail "mixed sweep: $(cat "$TMP/err")"
[ "$(grep -c ',mixed,' "$TMP/mix.csv")" -eq 4 ] || fail "mixed sweep: no precision column of 4 mixed rows"
"$plot" "$TMP/mix.csv" --x gpus --y an_iter_total_s --by strategy -o "$TMP/mix.svg" >/dev/null \
    2>"$TMP/err" || fail "mixed plot: $(cat "$TMP/err")"
for t in "data, precision default" "data, precision mixed" "filter, precision mixed"; do
    grep -q "<title>$t</title>" "$TMP/mix.svg" || fail "mixed plot: no line '$t'"
done
[ "$(grep -c "<title>data" "$TMP/mix.svg")" -eq 2 ] || fail "mixed plot: not 2 lines of data"
grep -q "<title>does not fit (fits_in_memory)</title>" "$TMP/mix.svg" ||
    fail "mixed plot: filter's runs that do not fit are not marked"
"$plot" "$TMP/mix.csv" --x gpus --y an_iter_total_s --by strategy --where precision=mixed \
    -o "$TMP/one.svg" >/dev/null 2>"$TMP/err" || fail "one precision: $(cat "$TMP/err")"
grep -q "batch 32/gpu, precision mixed (analytic)" "$TMP/one.svg" ||
    fail "one precision: the title does not name it"
grep -q "<title>data, precision" "$TMP/one.svg" && fail "one precision: the lines name it again"

bad_plot() { # bad_plot NAME NEEDLE ARGS...: expect_bad of plot.sh ARGS, and no output file
    rm -f "$TMP/bad.png"
    local name="$1" needle="$2"
    shift 2
    expect_bad "$name" "$needle" "$plot" "$@"
    [ ! -e "$TMP/bad.png" ] || fail "$name: wrote the plot"
}
bad_plot column "no column 'sim_bogus_s'" "$csv" --x platform --y sim_bogus_s -o "$TMP/bad.png"
bad_plot mixed "the rows differ in workload" "$csv" --x platform --y sim_epoch_total_s \
    --by strategy -o "$TMP/bad.png"
bad_plot ext "a .png or .svg file" "$csv" --x platform --y sim_epoch_total_s -o "$TMP/bad.pdf"
bad_plot missing "not a readable file" "$TMP/none.csv" --x gpus --y sim_epoch_total_s \
    -o "$TMP/bad.png"

finish e2e_plot
