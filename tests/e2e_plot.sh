#!/usr/bin/env bash
# e2e_plot.sh: experiments/plot.sh draws any sweep CSV: the committed topology sweep, a line per
# strategy against the platforms (points: the x column is not numbers) to PNG and SVG; a ratio
# of two columns; the title naming what the rows share. Bad requests: exit 2 naming the column
# or flag, no file written: an unknown column, configuration columns that differ inside a line,
# an output that is neither .png nor .svg, a missing CSV. Skipped (77) without gnuplot.
# Usage (from ctest): e2e_plot.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
SRC="$2"
command -v gnuplot >/dev/null || { echo "no gnuplot"; exit 77; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() { echo "FAIL [$1]"; failures=$((failures + 1)); }
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

expect_bad() { # expect_bad NAME NEEDLE ARGS...: exit 2, NEEDLE on stderr, no output file
    local name="$1" needle="$2"
    shift 2
    rm -f "$TMP/bad.png"
    "$plot" "$@" >/dev/null 2>"$TMP/err"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "$name: exit $rc, not 2"
    grep -qF -- "$needle" "$TMP/err" || fail "$name: message lacks '$needle': $(cat "$TMP/err")"
    [ ! -e "$TMP/bad.png" ] || fail "$name: wrote the plot"
}
expect_bad column "no column 'sim_bogus_s'" "$csv" --x platform --y sim_bogus_s -o "$TMP/bad.png"
expect_bad mixed "the rows differ in workload" "$csv" --x platform --y sim_epoch_total_s \
    --by strategy -o "$TMP/bad.png"
expect_bad ext "a .png or .svg file" "$csv" --x platform --y sim_epoch_total_s -o "$TMP/bad.pdf"
expect_bad missing "not a readable file" "$TMP/none.csv" --x gpus --y sim_epoch_total_s \
    -o "$TMP/bad.png"

[ "$failures" -eq 0 ] && echo "e2e_plot: all checks passed"
exit $((failures > 0))
