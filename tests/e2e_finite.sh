#!/usr/bin/env bash
# e2e_finite.sh: no number but a finite one reaches a user. A generated platform's bandwidths,
# speeds, memories, latencies and oversubscriptions outside their physical range (units.h) are
# refused by key (exit 2), in analytic, simulate, compare and a sweep; so is a platform file's
# link or host outside it, by file:line; no JSON or CSV carries inf or NaN.
# Usage (from ctest): e2e_finite.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
source "$SRC/tests/lib_e2e.sh"
job=(-w resnet50 -s data -g 8 -b 256)

for kv in nic-bw=1e-300Bps nic-bw=1e300Bps pcie-bw=1e-300Bps nvlink-link-bw=1e-300Bps \
    gpu-speed=1e-300f gpu-memory=1e-3B nic-latency=1e300s leaf-oversub=1e300; do
    key="${kv%%=*}"
    for cmd in "analytic --json" "simulate --json" "compare --json"; do
        # shellcheck disable=SC2086
        expect_bad "$cmd $kv" "--$key: must be between" \
            timeout 120 "$HS" $cmd -p "gen:abci:$kv" "${job[@]}"
        grep -qiE '(^|[^a-z])(inf|nan)' "$TMP/out" && fail "$cmd $kv: printed a non-number"
    done
done
expect_bad "sweep, a bad platform" "--nic-bw: must be between 1kBps and 1PBps" timeout 120 \
    "$HS" sweep -m analytic -p gen:abci:nic-bw=1e-300Bps "${job[@]}" -o "$TMP/never.csv" --quiet
[ ! -e "$TMP/never.csv" ] || fail "a refused sweep wrote its CSV"

# A platform file: the shipped abci.xml with one link made absurdly slow.
sed '0,/bandwidth="[^"]*"/s//bandwidth="1e-300Bps"/' "$SRC/platforms/abci.xml" >"$TMP/slow.xml"
expect_bad "platform file, slow link" "bandwidth '1e-300Bps' must be between 1kBps and 1PBps" \
    timeout 120 "$HS" analytic -p "$TMP/slow.xml" "${job[@]}" --json

# The range's ends are accepted: nothing refused that a machine could be.
"$HS" analytic -p gen:abci:nic-bw=1kBps,nic-latency=1h "${job[@]}" --json \
    >"$TMP/out" 2>"$TMP/err" ||
    fail "the range's ends: exit $?: $(cat "$TMP/err")"
python3 -c 'import json, math, sys
d = json.load(open(sys.argv[1]))
assert all(math.isfinite(v) for v in d["iteration"].values()), d["iteration"]' "$TMP/out" ||
    fail "the range's ends: not finite JSON: $(head -c 300 "$TMP/out")"

finish e2e_finite
