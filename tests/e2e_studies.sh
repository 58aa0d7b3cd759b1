#!/usr/bin/env bash
# e2e_studies.sh: every study under experiments/ (paradl, congestion, topology, layerwise,
# allreduce) run with --quick into a temp dir: each CSV has exactly the rows its sweep
# definition implies (counted below from
# the scripts' quick sizes), no row failed, error rows only where a strategy's limit is expected
# (listed exactly), every plot exists in PNG and SVG and is not empty, the summary and MANIFEST
# are written; a rerun skips every finished row (the CSV is byte-identical); the measured table
# missing still gives the figure; a bad flag exits 2.
# Usage (from ctest): e2e_studies.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
SHARED="$3"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

csv() { awk -f "$SRC/experiments/lib/csv.awk" -v cols="$2" ${3:+-v where="$3"} "$1" | tail -n +2; }
rows() { csv "$1" key "${2:-}" | wc -l; }

# study NAME: runs it quick into $TMP/NAME; its output in $TMP/NAME.log
study() {
    local name="$1"; shift
    if ! bash "$SRC/experiments/$name/run.sh" --quick -o "$TMP/$name" --exe "$HS" -j 2 "$@" \
        >"$TMP/$name.log" 2>&1; then
        fail "$name: run.sh --quick exited non-zero"; tail -20 "$TMP/$name.log"
    fi
}

# expect_rows CSV N: N rows, none failed
expect_rows() {
    [ -s "$1" ] || { fail "$1 missing"; return; }
    local n failed
    n="$(rows "$1")"; failed="$(rows "$1" status=failed)"
    [ "$n" -eq "$2" ] || fail "$(basename "$1"): $n rows, expected $2"
    [ "$failed" -eq 0 ] || fail "$(basename "$1"): $failed rows with status failed"
}

# expect_errors CSV COLS EXPECTED: the error rows' COLS (one line each, sorted) are EXPECTED
expect_errors() {
    local got want
    got="$(csv "$1" "$2" status=error | tr '\t' ' ' | sort)"
    want="$(printf '%s\n' "$3" | sed '/^$/d' | sort)"
    [ "$got" = "$want" ] || { fail "$(basename "$1"): error rows differ from the expected limits"
        diff <(echo "$want") <(echo "$got") | sed 's/^/    /'; }
}

expect_plots() {
    local dir="$1" p t; shift
    for p in "$@"; do for t in png svg; do
        [ -s "$dir/$p.$t" ] || fail "$dir/$p.$t missing or empty"
    done; done
    [ -z "$(find "$dir" -name '*.tmp*')" ] || fail "$dir: temp files left: $(find "$dir" -name '*.tmp*')"
}

# ---- paradl ----
# ResNet-50: data, data+spatial x 16..256 (5) = 10, data+filter 5, filter, channel x 4..64 (5)
# = 10, pipeline 1, 2, 4 = 3: 28. VGG16: 2 x 2 + 2 + 2 x 2 + 3 = 13. CosmoFlow-256: 2 x 2 + 2 +
# filter, channel x 8..32 (3) = 6, + 3 = 15. In all 56; CosmoFlow splits at most 16 filters and
# channels, so filter and channel at 32 are errors.
study paradl --reference "$SHARED/reference"
d="$TMP/paradl"
expect_rows "$d/paradl.csv" 56
expect_errors "$d/paradl.csv" workload,strategy,gpus "cosmoflow-256 filter 32
cosmoflow-256 channel 32"
expect_plots "$d" figure1
[ "$(csv "$d/paradl.csv" key workload=resnet50 | wc -l)" -eq 28 ] || fail "paradl: ResNet-50 rows"
if [ -r "$SHARED/reference/measured/abci-resnet50-tableVIII.tsv" ]; then
    # the 12 measured configurations, each matched by a run (quick covers ResNet-50's range)
    [ "$(tail -n +2 "$d/accuracy.csv" | wc -l)" -eq 12 ] || fail "accuracy.csv: not 12 rows"
    ! grep -q 'not run' "$d/accuracy.csv" || fail "accuracy.csv: a measured configuration not run"
    # ratio = analytic / measured, from the columns themselves (one row checked by hand: data+filter 32)
    awk -F, '$2 == "data+filter" && $3 == 32 { r = $13 / $9; if (r - $17 > 0.001 || $17 - r > 0.001) exit 1 }' \
        "$d/accuracy.csv" || fail "accuracy.csv: analytic_ratio is not analytic / measured"
    grep -q '^resnet50,filter,32,1,32,64,2390,7580,9970,13912' "$d/accuracy.csv" ||
        fail "accuracy.csv: the measured filter row at 32 GPUs is not the reference's"
else
    echo "SKIP [accuracy]: no measured table in $SHARED/reference"
fi
grep -q 'Accuracy against the measured' "$d/summary.txt" && [ -s "$d/MANIFEST" ] ||
    fail "paradl: summary.txt or MANIFEST missing"

# a rerun skips every finished row (the sweep rewrites the CSV in configuration order: unchanged),
# and without the measured table the figure is still drawn, saying what is missing
cp "$d/paradl.csv" "$TMP/paradl-before.csv"
rm -f "$d/figure1.png"
if bash "$SRC/experiments/paradl/run.sh" --quick -o "$d" --exe "$HS" --reference "$TMP/nothing" \
    >"$TMP/rerun.log" 2>&1; then
    cmp -s "$d/paradl.csv" "$TMP/paradl-before.csv" || fail "paradl rerun changed the CSV"
    grep -q 'measured columns are missing' "$TMP/rerun.log" || fail "paradl: no word on the missing table"
    [ -s "$d/figure1.png" ] || fail "paradl: no figure without the measured table"
    grep -q ',not run$' "$d/accuracy.csv" && fail "paradl: accuracy rows without a measured table"
else
    fail "paradl rerun without the measured table"; tail -5 "$TMP/rerun.log"
fi

# ---- congestion ----
# 2 models x (data, data+filter) x 4 oversubscriptions x GPUs 256, 1024 x packed, spread = 64;
# shared fabric: VGG16 x (data, data+filter) x 4 oversubscriptions x spread = 8 runs, 2 jobs each;
# routed uplinks (below).
study congestion
d="$TMP/congestion"
expect_rows "$d/congestion.csv" 64
expect_errors "$d/congestion.csv" workload,strategy,gpus ""
expect_plots "$d" congestion sharing routing machine
[ "$(ls "$d"/links/*.csv 2>/dev/null | wc -l)" -eq 2 ] || fail "congestion: not 2 links CSVs for the machine picture"
# the machine picture's hottest links, as experiments/README.md quotes them (the quick run
# draws the same two runs as the full one)
grep -qF "  1 n0000-nic0 down (nic and 511 more): 0.543, 1.000" "$d/summary.txt" &&
    grep -qF "  4 r00-uplink down (rack-up and 7 more): 0.096, 0.176" "$d/summary.txt" &&
    grep -qF "  1 r00-uplink down (rack-up and 31 more): 0.627, 1.000" "$d/summary.txt" &&
    grep -qF "  2 n0000-nic0 down (nic and 511 more): 0.444, 0.708" "$d/summary.txt" ||
    fail "congestion: the machine's hottest links differ from experiments/README.md's"
[ "$(tail -n +2 "$d/fabric.csv" | wc -l)" -eq 16 ] || fail "fabric.csv: not 16 rows (8 runs x 2 jobs)"
[ "$(awk -F, 'NR > 1 && $11 != "ok"' "$d/fabric.csv" | wc -l)" -eq 0 ] || fail "fabric.csv: a run failed"
for r in 1 2 3 6; do
    [ -s "$d/platforms/abci-r$r.xml" ] || fail "congestion: platform abci-r$r.xml missing"
done
# an identical second job can only slow a job down (slowdown >= 1), and on a 1:1 fabric the rack
# uplinks carry the two data-parallel jobs' rings without a bottleneck: exactly 1
awk -F, 'NR > 1 && ($10 < 0.999999 || ($6 == 1 && $3 == "data" && $10 + 0 != 1)) { bad = 1 } END { exit bad }' \
    "$d/fabric.csv" || fail "fabric.csv: a slowdown below 1, or not 1 for data on 1:1"
# routed uplinks: ResNet-50 x (ring, rings, tree, data+filter) x packed, spread x 3 routings at
# 1024 GPUs = 24; a cable a flow can only slow a job (its cables hold the fat link's capacity,
# and an uncongested route times as the fat one), and hashing slows spread data parallelism
expect_rows "$d/routing.csv" 24
awk -f "$SRC/experiments/lib/csv.awk" -v cols=strategy,placement,platform,sim_iter_total_s \
    "$d/routing.csv" | awk -F '\t' 'NR > 1 { r = $3; sub(/.*=/, "", r); t[$1 "|" $2, r] = $4; k[$1 "|" $2] }
    END { for (x in k) { if (t[x, "dmodk"] < t[x, "fat"] * (1 - 1e-9) || t[x, "hash"] < t[x, "fat"] * (1 - 1e-9)) bad = 1 }
          if (!(t["data|spread", "hash"] > 1.1 * t["data|spread", "fat"])) bad = 1
          exit bad }' || fail "routing.csv: a cable a flow faster than the fat link, or hashing free"

# ---- topology ----
# 10 variants x 6 strategies at 1024 GPUs = 60. Expected limits: filter, channel (ResNet-50 splits
# at most 64 filters/channels) and pipeline (166 layers) everywhere; data+spatial on the 8-GPU
# nodes (a group of 8 is more than the 7 columns it can split).
study topology
d="$TMP/topology"
expect_rows "$d/topology-strong.csv" 60
want=""
for v in nvlink-20 abci nvlink-100 nic-hdr nic-ndr gpn-2 gpn-8 dgx1 nvswitch-ndr nvswitch-h100; do
    for s in filter channel pipeline; do want="$want$v $s"$'\n'; done
done
want="${want}gpn-8 data+spatial"$'\n'"dgx1 data+spatial"$'\n'"nvswitch-ndr data+spatial"
want="$want"$'\n'"nvswitch-h100 data+spatial"
expect_errors "$d/topology-strong.csv" platform,strategy "$(echo "$want" | sed 's|^\([^ ]*\) |platforms/\1.xml |')"
expect_plots "$d" topology
[ "$(tail -n +2 "$d/best.csv" | wc -l)" -eq 10 ] || fail "best.csv: not one row per variant"
# the best is the lowest simulated time among the runs that fit: recompute it from the CSV
awk -f "$SRC/experiments/lib/csv.awk" -v cols=platform,strategy,sim_epoch_total_s,fits_in_memory \
    -v where=status=ok "$d/topology-strong.csv" |
    awk -F '\t' 'NR > 1 && $4 == "true" { v = $1; sub(/.*\//, "", v); sub(/\.xml$/, "", v)
                 if (!(v in b) || $3 + 0 < t[v]) { b[v] = $2; t[v] = $3 + 0 } }
                 END { for (v in b) print v "," b[v] }' | sort >"$TMP/best-want"
awk -F, 'NR > 1 { print $3 "," $5 }' "$d/best.csv" | sort >"$TMP/best-got"
cmp -s "$TMP/best-want" "$TMP/best-got" || fail "best.csv: not the lowest simulated time that fits"

# ---- layerwise ----
# abci, 3 models x 16 and 64 GPUs x (best uniform, searched, owt, splitbrain, ghp) = 30 rows,
# none failed or refused; the searched plan never slower simulated than the best uniform one.
study layerwise
d="$TMP/layerwise"
[ "$(tail -n +2 "$d/layerwise.csv" | wc -l)" -eq 30 ] || fail "layerwise.csv: not 30 rows"
grep -Eq ',(failed|refused)$' "$d/layerwise.csv" && fail "layerwise.csv: a failed or refused row"
awk -F, 'NR > 1 { k = $1 FS $2 FS $3; if ($5 ~ /^best uniform/) u[k] = $7; if ($5 == "searched") s[k] = $7 }
         END { for (k in s) if (!(k in u) || s[k] + 0 > u[k] + 0) exit 1 }' "$d/layerwise.csv" ||
    fail "layerwise: a searched plan slower than the best uniform strategy"
[ "$(tail -n +2 "$d/memory.csv" | wc -l)" -eq 6 ] || fail "memory.csv: not 6 rows"
expect_plots "$d" layerwise

# ---- allreduce ----
# quick: ResNet-50 on abci, 8..64 GPUs, every algorithm: 20 rows, none refused; the simulation
# within 1% of the closed form on abci; auto equals one of the four algorithms at every count.
study allreduce
d="$TMP/allreduce"
expect_rows "$d/allreduce.csv" 20
expect_errors "$d/allreduce.csv" strategy,gpus ""
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         { a = $c["an_iter_comm_s"]; s = $c["sim_iter_comm_s"]
           if (a <= 0 || s / a > 1.01 || s / a < 0.99) exit 1 }' "$d/allreduce.csv" ||
    fail "allreduce: simulated and closed form more than 1% apart on abci"
grep -Eq '^abci-resnet50 +(8|16|32|64) .* (ring|hier|tree|rings)$' "$d/summary.txt" ||
    fail "allreduce: summary.txt lacks the rows with auto's pick"
expect_plots "$d" allreduce

# ---- bad input ----
bash "$SRC/experiments/paradl/run.sh" --bogus >/dev/null 2>"$TMP/bad.err"
[ $? -eq 2 ] && grep -q "unknown argument '--bogus'" "$TMP/bad.err" || fail "--bogus: not exit 2 with the flag named"
bash "$SRC/experiments/topology/run.sh" -j 0 --exe "$HS" >/dev/null 2>"$TMP/bad.err"
[ $? -eq 2 ] && grep -q -- "-j needs a positive integer" "$TMP/bad.err" || fail "-j 0: not exit 2"

finish e2e_studies
