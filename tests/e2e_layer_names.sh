#!/usr/bin/env bash
# e2e_layer_names.sh: the per-layer table keeps different layer names different. Imported
# models name layers by their module path (mobilenet_v2's features_2_conv_0_0, _0_1, _1_0),
# which a column cut at 18 characters printed alike. Here ResNet-50 with every layer id
# prefixed (features_blocks_CONV_2a1 ..., 24 characters) and one id of 51: the column widens
# to the longest name up to 40 characters and elides a longer one in the middle, so every
# layer row's name is distinct and the columns stay aligned.
# Usage (from ctest): e2e_layer_names.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

long=a_very_long_layer_name_that_goes_on_and_on_CONV_5c3
sed 's/\b\([A-Z]\+_[0-9][0-9a-z]*\)\b/features_blocks_\1/g' "$SRC/workloads/resnet50.xml" |
    sed "s/id=\"features_blocks_CONV_5c3\"/id=\"$long\"/" >"$TMP/long.xml"
"$HS" simulate -w "$TMP/long.xml" -p abci -s data -g 4 -b 256 --per-layer >"$TMP/table.txt" 2>&1 ||
    fail "simulate: exit status $?"
# the layer rows: an index, a name, a type; names of conv layers (the others print their
# type's name, BNORM, RELU ...)
awk '$1 ~ /^[0-9]+$/ && $3 == "conv" { print $2 }' "$TMP/table.txt" >"$TMP/names"
rows=$(wc -l <"$TMP/names")
distinct=$(sort -u "$TMP/names" | wc -l)
[ "$rows" -eq 49 ] || fail "49 conv rows expected, $rows"
[ "$distinct" -eq "$rows" ] || fail "$rows conv rows but $distinct distinct names: $(sort "$TMP/names" | uniq -d | head -3)"
grep -q "^    160 a_very_long_layer_n.._on_and_on_CONV_5c3 conv " "$TMP/table.txt" ||
    fail "the long name is not elided in the middle: $(grep ' 160 ' "$TMP/table.txt")"
# aligned: the type column starts at the same place on every layer row
cols=$(awk '$1 ~ /^[0-9]+$/ { print index($0, " " $3 " ") }' "$TMP/table.txt" | sort -u | wc -l)
[ "$cols" -eq 1 ] || fail "the type column moves between rows ($cols places)"

finish e2e_layer_names
