#!/usr/bin/env bash
# e2e_wording.sh: what a user reads says what is, in plain words. Counts of one are singular
# (one --job, a sweep merged from one row, a strategy file's layer cut wider than its 1 column,
# a generated machine of one rack and one NIC a node); the search says how polishing changed its
# plan; a generated platform's head comment gives bandwidths in GB/s, not as exact bytes per
# second; a strategy file's header names the ParaDL halo and filter-backward settings only when
# one of its layers is cut spatially or by filters, as a built-in does by its kind; a sweep CSV
# quotes a gen: spec with commas, and sim/README.md's line that reads columns by name (its
# sweeps section) gives them whole.
# Usage (from ctest): e2e_wording.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
cd "$TMP" || exit 1

# ---- counts of one ----
if expect_ok "one job" simulate -p abci --job "w=resnet50,s=data,g=4,b=64,name=a"; then
    grep -q "^hybridsim simulate: 1 job sharing abci" "$TMP/out" ||
        fail "one job: $(head -1 "$TMP/out")"
fi
"$HS" sweep -m analytic -w resnet50 -p abci -s data -g 8 -b 64 --emit parallel jobs.txt \
    2>/dev/null || fail "emit parallel"
bash jobs.txt || fail "the emitted job"
"$HS" sweep --merge jobs.txt.d -o merged.csv 2>merge.err || fail "merge: $(cat merge.err)"
grep -q "^sweep: merged 1 row from jobs.txt.d into merged.csv" merge.err ||
    fail "merge of one row: $(cat merge.err)"

# a strategy file cutting ResNet-50's global pooling (1 column out) in 2
"$HS" strategy --generate data -w resnet50 -p abci -g 2 -b 64 -o r.xml >/dev/null ||
    fail "generate data"
sed 's/<layer ref="APOOL" batch="2"\/>/<layer ref="APOOL" width="2"\/>/' r.xml >wide.xml
expect_bad_hs "a cut wider than 1 column" "layer APOOL: width=2 is more than its output's 1 column" \
    analytic -w resnet50 -p abci -g 2 -b 64 -s wide.xml
grep -q "1 column$" "$TMP/err" || fail "a cut wider than 1 column: $(cat "$TMP/err")"

# ---- a sweep CSV read by column name: sim/README.md's line, on a gen: spec with commas ----
"$HS" sweep -m analytic -w resnet50 -p abci,gen:abci:nodes=64,leaves-per-rack=1 -s data -g 4 \
    --batch-per-gpu 64 -o out.csv --quiet 2>"$TMP/err" || fail "sweep of a gen: spec: $(cat "$TMP/err")"
line="$(grep -m1 "^python3 -c 'import csv" "$SRC/sim/README.md")"
[ -n "$line" ] || fail "sim/README.md: no python3 csv line in its sweeps section"
eval "$line" >cols.out 2>"$TMP/err" || fail "the README's csv line: $(cat "$TMP/err")"
python3 - cols.out <<'PY' || fail "the README's csv line: $(cat cols.out)"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["workload", "platform", "gpus", "an_iter_total_s"], rows
assert [r[:3] for r in rows[1:]] == [["resnet50", "abci", "4"],
                                      ["resnet50", "gen:abci:nodes=64,leaves-per-rack=1", "4"]], rows
assert all(float(r[3]) > 0 for r in rows[1:]), rows
PY
# ... where cut splits the quoted spec (why the README shows the reader)
[ "$(cut -d, -f3 out.csv | tail -1)" = analytic ] || fail "cut's third field is no longer shifted"

# ---- the search's polishing, in words ----
if expect_ok "search" strategy --search -w vgg16 -p abci -g 64 -b 2048 -o v.xml; then
    grep -qE "^  exact model: the search's plan [0-9.]+ s(, [0-9.]+ s after [0-9]+ layers? (was|were) switched to how [^ ]+ \(the best whole-model strategy\) splits (it|them)|; no layer of it is cheaper as)" \
        "$TMP/out" || fail "search: $(grep 'exact model' "$TMP/out")"
    ! grep -qE "\b1 layers|given [^ ]+'s configuration" "$TMP/out" || fail "search: old wording"
fi

# ---- a generated platform's head comment ----
"$HS" platform --preset dgx1 --nodes 256 --leaves-per-rack 16 --rack-oversub 1:6 -o two.xml ||
    fail "dgx1 of 4 racks"
grep -q "4 racks of 16 leaf groups" two.xml || fail "4 racks: $(sed -n 4p two.xml)"
# 16 nodes x 4 NICs x 12.5 GB/s over 6
grep -q "rack uplink 533.333 GB/s, 0s (oversubscription 6)" two.xml ||
    fail "rack uplink in GB/s: $(sed -n 6p two.xml)"
"$HS" platform --preset dgx1 --nodes 1 --nics-per-node 1 -o one.xml || fail "dgx1 of one node"
grep -q "1 node x 8 GPUs, 1 NIC per node; 1 leaf group of 4 nodes, 1 rack of 32 leaf groups (partly filled: the last leaf group 1 node," one.xml ||
    fail "one of each: $(sed -n 4p one.xml)"
# no count of one with a plural, no bandwidth as bare bytes per second, in any head comment
for f in two.xml one.xml "$SRC"/platforms/*.xml; do
    head -8 "$f" | grep -qE "\b1 [a-zA-Z ]*s\b[ ,.;)]|[0-9]Bps" && fail "$f: $(head -8 "$f" | grep -E '\b1 [a-zA-Z ]*s\b|[0-9]Bps')"
done

# ---- ParaDL's halo and filter backward named only for a file that has them ----
"$HS" strategy --generate data+spatial:2x4 -w cosmoflow-256 -p abci -g 8 -b 64 -o ds.xml \
    >/dev/null || fail "generate data+spatial"
"$HS" strategy --generate data+filter:2x4 -w resnet50 -p abci -g 8 -b 64 -o df.xml \
    >/dev/null || fail "generate data+filter"
"$HS" strategy --generate data -w resnet50 -p abci -g 8 -b 64 -o d.xml >/dev/null ||
    fail "generate data"
head_of() { # head_of WORKLOAD FILE: the header of its analytic run under ParaDL's runtime
    "$HS" analytic -w "$1" -p abci -g 8 -b 64 -s "$2" --runtime paradl 2>"$TMP/err" | head -1
}
halo="halos sent and received at once (ParaDL)" fb="output gradients allreduced (ParaDL)"
h="$(head_of resnet50 d.xml)"
[[ "$h" == *"per-layer, d.xml"* && "$h" != *"$halo"* && "$h" != *"$fb"* ]] ||
    fail "data file names halos or filters: $h"
h="$(head_of cosmoflow-256 ds.xml)"
[[ "$h" == *"$halo"* && "$h" != *"$fb"* ]] || fail "data+spatial file: $h"
h="$(head_of resnet50 df.xml)"
[[ "$h" == *"$fb"* && "$h" != *"$halo"* ]] || fail "data+filter file: $h"
"$HS" analytic -w resnet50 -p abci -g 8 -b 64 -s d.xml --runtime paradl --json >d.json ||
    fail "data file --json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert "halo" not in d and "filter_backward" not in d, d' d.json || fail "data file's JSON names halos"

# ---- a batch larger than the dataset: the epoch is part of an iteration, and said so ----
line="$("$HS" analytic -w unet-medical -p abci -s data -g 8 -b 64 | sed -n 2p)"
[[ "$line" == *"1 (the batch 64 is larger than the dataset's 24 samples: an epoch's compute is 0.375 of an iteration's)" ]] ||
    fail "batch over the dataset: $line"
line="$("$HS" analytic -w unet-medical -p abci -s data -g 8 -b 16 | sed -n 2p)"
[[ "$line" == "  iterations per epoch: 2" ]] || fail "batch under the dataset: $line"

finish e2e_wording
