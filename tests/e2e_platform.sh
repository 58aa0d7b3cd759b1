#!/usr/bin/env bash
# e2e_platform.sh: `hybridsim platform` end to end: --help, a generated machine that the other
# commands accept, a what-if flag that reaches the model (NVLink 20 vs 50 GB/s), and bad flags:
# exit status 2, a message naming the flag, and no file written or clobbered.
# Usage (from ctest): e2e_platform.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --help: usage with defaults and units on stdout, status 0.
if "$HS" platform --help >"$TMP/help" 2>"$TMP/err"; then
    for needle in "--nvlink-bw" "50GBps" "--rack-oversub" "--nic-latency" "15us" "-o"; do
        grep -qF -- "$needle" "$TMP/help" || fail "--help lacks '$needle'"
    done
else
    fail "--help exit status $?"
fi

# A small machine (8 nodes of 4 GPUs) that analytic accepts by path.
small=(--nodes 8 --nodes-per-leaf 2 --leaves-per-rack 2)
if "$HS" platform "${small[@]}" -o "$TMP/small.xml" 2>"$TMP/err"; then
    [ -f "$TMP/small.xml.tmp" ] && fail "left small.xml.tmp behind"
    "$HS" analytic -w resnet50 -p "$TMP/small.xml" -s data -g 32 -b 1024 --json >"$TMP/a.json" \
        2>"$TMP/err" || { fail "analytic on the generated platform: exit $?"; cat "$TMP/err"; }
    grep -qF '"platform": "small"' "$TMP/a.json" || fail "analytic did not name the platform"
else
    fail "generating the small platform: exit $?"; cat "$TMP/err"
fi

# What-if: the HPDC paper's 20 GB/s NVLink instead of the oracle's 50 GB/s makes data-parallel
# communication inside one node slower.
comm_s() {
    "$HS" analytic -w resnet50 -p "$1" -s data -g 4 -b 128 --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["iteration"]["comm_s"])'
}
"$HS" platform "${small[@]}" --nvlink-bw 20GBps -o "$TMP/nv20.xml" || fail "generating nv20"
c50=$(comm_s "$TMP/small.xml")
c20=$(comm_s "$TMP/nv20.xml")
python3 -c "import sys; sys.exit(0 if $c20 > 2 * $c50 else 1)" ||
    fail "NVLink 20 GB/s comm $c20 s is not well above 50 GB/s comm $c50 s"

# Bad flags: status 2, the flag named on stderr, nothing on stdout, no file, old file intact.
echo old >"$TMP/keep.xml"
expect_bad() {
    local needle="$1"
    shift
    "$HS" platform "$@" -o "$TMP/keep.xml" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "platform $*: exit $rc, expected 2"
    grep -qF -- "$needle" "$TMP/err" || fail "platform $*: message lacks '$needle': $(cat "$TMP/err")"
    [ -s "$TMP/out" ] && fail "platform $*: wrote to stdout"
    [ "$(cat "$TMP/keep.xml")" = old ] || fail "platform $*: clobbered the output file"
    [ -e "$TMP/keep.xml.tmp" ] && fail "platform $*: left keep.xml.tmp behind"
}
expect_bad "--nodes" --nodes 0
expect_bad "--nodes-per-leaf" --nodes 8
expect_bad "--leaves-per-rack" --nodes 68 --leaves-per-rack 3
expect_bad "--nvlink-bw" --nvlink-bw 50GB
expect_bad "--nic-latency" --nic-latency fast
expect_bad "--rack-oversub" --rack-oversub 1:x
expect_bad "--gpus-per-pcie-switch" --gpus-per-pcie-switch 3
expect_bad "--frobnicate" --frobnicate 1
expect_bad "--preset" --preset summit

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "e2e_platform: all checks passed"
