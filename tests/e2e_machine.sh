#!/usr/bin/env bash
# e2e_machine.sh: experiments/machine.sh draws the machine from a run's --links CSV.
#   - ResNet-50 data parallelism on the 256 GPUs of gen:abci:nodes=64 (2 racks, the last one
#     partly filled), packed and spread, one picture each and side by side, PNG and SVG;
#   - the layout (machine.awk) on those runs: a box a node (64 nodes fit), the rack uplinks
#     carrying traffic in both, spread's hottest link a rack uplink, packed's not, every link
#     of the CSV placed on the tree, the hottest links' marks on the picture;
#   - large machines aggregate: 256 nodes of abci in 8 racks are a box a leaf group, and a
#     synthetic CSV of 16,384 nodes (482 racks) is drawn as at most 48 boxes of racks;
#   - bad requests exit 2 naming the problem, with no file written.
# Skipped (77) without gnuplot.
# Usage (from ctest): e2e_machine.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
SRC="$2"
command -v gnuplot >/dev/null || { echo "no gnuplot"; exit 77; }
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
machine="$SRC/experiments/machine.sh"
export HYBRIDSIM="$HS"

p=gen:abci:nodes=64
for pl in packed spread; do
    "$HS" simulate -w resnet50 -p "$p" -s data -g 256 -b 16384 -P "$pl" --links "$TMP/$pl.csv" \
        --layers-top 0 >/dev/null || fail "simulate $pl: exit $?"
done
"$machine" "$TMP/packed.csv" -p "$p" -o "$TMP/one.png" >/dev/null 2>"$TMP/err" ||
    fail "one run: $(cat "$TMP/err")"
"$machine" "$TMP/packed.csv" "$TMP/spread.csv" -p "$p" --title packed --title spread \
    -o "$TMP/two.svg" >/dev/null 2>"$TMP/err" || fail "two runs: $(cat "$TMP/err")"
head -c 8 "$TMP/one.png" | grep -q PNG || fail "one.png is not a PNG"
grep -q "packed on gen:abci:nodes=64: mean utilisation" "$TMP/two.svg" || fail "two.svg: no title"
grep -q "spread on gen:abci:nodes=64" "$TMP/two.svg" || fail "two.svg: no second column"

# layout DIR CSV NODES NPL LPR: machine.awk's output for a run
layout() {
    mkdir -p "$1"
    awk -f "$SRC/experiments/lib/machine.awk" -v nodes="$3" -v gpus_per_node=4 \
        -v nodes_per_leaf="$4" -v leaves_per_rack="$5" -v dir="$1" "$2" ||
        fail "machine.awk $2: exit $?"
}
for pl in packed spread; do
    layout "$TMP/$pl" "$TMP/$pl.csv" 64 17 2
    d="$TMP/$pl"
    grep -q '^bottom_note = "a box a node; 2 of 2 racks drawn' "$d/panel.gp" ||
        fail "$pl: not a box a node, 2 racks: $(grep bottom_note "$d/panel.gp")"
    grep -q "links not on the tree" "$d/panel.gp" && fail "$pl: links left out"
    # boxes: every node (the 64, used or not); cables: 64 NIC, 4 leaf and 2 rack uplinks
    [ $(($(wc -l <"$d/boxes.dat") + $(wc -l <"$d/empty.dat") - 2)) -eq 64 ] ||
        fail "$pl: not 64 node boxes"
    [ $(($(wc -l <"$d/cables.dat") + $(wc -l <"$d/idle.dat") - 2)) -eq 70 ] ||
        fail "$pl: not 70 cables"
    [ "$(wc -l <"$d/top.txt")" -eq 5 ] || fail "$pl: not 5 hottest links"
    [ "$(grep -c '"[0-9,]*"$' "$d/marks.dat")" -ge 1 ] || fail "$pl: no mark"
done
# the rack uplinks (y from 3.09 to 3.91) carried traffic in both runs
for pl in packed spread; do
    awk '$2 == 3.09 && $5 > 0 { n++ } END { exit n != 2 }' "$TMP/$pl/cables.dat" ||
        fail "$pl: the 2 rack uplinks are not coloured"
done
awk 'NR == 1 { exit $4 != "rack-up" }' "$TMP/spread/top.txt" ||
    fail "spread: the hottest link is not a rack uplink: $(head -1 "$TMP/spread/top.txt")"
awk 'NR == 1 { exit $4 == "rack-up" }' "$TMP/packed/top.txt" ||
    fail "packed: the hottest link is a rack uplink"

# 1024 GPUs packed on abci: 256 nodes in 8 racks, a box a leaf group
"$HS" simulate -w resnet50 -p abci -s data -g 1024 -b 65536 --links "$TMP/big.csv" \
    --layers-top 0 >/dev/null || fail "simulate 1024: exit $?"
layout "$TMP/big" "$TMP/big.csv" 1088 17 2
grep -q '"a box a leaf group (17 nodes); 8 of 32 racks drawn' "$TMP/big/panel.gp" ||
    fail "1024 GPUs: $(grep bottom_note "$TMP/big/panel.gp")"
# 482 racks: boxes of 11 racks, 44 of them
awk 'BEGIN { print "link,kind,direction,bandwidth_Bps,messages,bytes,background_bytes,busy_s,mean_utilisation,peak_utilisation"
             for (n = 0; n < 16384; n += 5) printf "n%05d-nic0,nic,up,1,1,1,0,0,0.5,0.9\n", n
             for (r = 0; r < 482; r++) printf "r%03d-uplink,rack-up,up,1,1,1,0,0,%.3f,1\n", r, r / 1000 }' \
    >"$TMP/huge.csv"
layout "$TMP/huge" "$TMP/huge.csv" 16384 17 2
grep -q '"a box 11 racks; 482 of 482 racks drawn' "$TMP/huge/panel.gp" ||
    fail "16,384 nodes: $(grep bottom_note "$TMP/huge/panel.gp")"
[ $(($(wc -l <"$TMP/huge/boxes.dat") + $(wc -l <"$TMP/huge/empty.dat") - 2)) -eq 44 ] ||
    fail "16,384 nodes: not 44 boxes"
"$machine" "$TMP/huge.csv" -p gen:abci:nodes=16384 -o "$TMP/huge.png" >/dev/null 2>"$TMP/err" ||
    fail "16,384 nodes: $(cat "$TMP/err")"

# expect_refused NAME NEEDLE ARGS...: machine.sh exits 2 naming NEEDLE, writes no picture
expect_refused() {
    local name="$1" needle="$2"
    shift 2
    rm -f "$TMP/bad.png"
    expect_bad "$name" "$needle" "$machine" "$@"
    [ ! -e "$TMP/bad.png" ] || fail "$name: wrote the picture"
}
printf 'a,b\n1,2\n' >"$TMP/notlinks.csv"
expect_refused "not a links CSV" "no column 'link'" "$TMP/notlinks.csv" -o "$TMP/bad.png"
expect_refused "no -o" "-o FILE.png|FILE.svg is required" "$TMP/packed.csv"
expect_refused "missing CSV" "not a readable file" "$TMP/none.csv" -o "$TMP/bad.png"
expect_refused "three CSVs" "one or two links CSVs" "$TMP/packed.csv" "$TMP/packed.csv" \
    "$TMP/packed.csv" -o "$TMP/bad.png"
expect_refused "bad platform" "no platform file" "$TMP/packed.csv" -p nosuch -o "$TMP/bad.png"
expect_refused "bad spec" "-p gen:abci:nodez=4" "$TMP/packed.csv" -p gen:abci:nodez=4 -o "$TMP/bad.png"
expect_refused "bad extension" "a .png or .svg file" "$TMP/packed.csv" -o "$TMP/bad.pdf"

finish e2e_machine
