#!/usr/bin/env bash
# e2e_halo_chain.sh: --halo chain (the default), spatial halos as ChainerMN sends them over MPI: a synchronous
# send (done when the receiver has the message, staged through host memory; the staging latency
# paid once the receiver answered), then the receive, so a direction's p2 - 1 messages follow
# one another. ResNet-50 spatial on 4 GPUs: the simulated iteration agrees with the closed form
# ((p2 - 1) halo messages a direction, each alone on its links) within 1% and exceeds the
# sendrecv exchange's; without the flag the chain runs; other strategies refuse the flag
# (exit 2).
# Usage (from ctest): e2e_halo_chain.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

for h in sendrecv chain; do
    "$HS" compare -w resnet50 -p abci -s spatial -g 4 -b 64 --halo $h --json >"$TMP/$h.json" \
        2>"$TMP/err" || fail "compare --halo $h: $(cat "$TMP/err")"
done
python3 - "$TMP" <<'PY' || fail "chain"
import json, sys
d = sys.argv[1]
sr, ch = (json.load(open(f"{d}/{h}.json")) for h in ("sendrecv", "chain"))
assert ch["simulate"]["halo"] == "chain" and sr["simulate"]["halo"] == "sendrecv"
a, s = ch["analytic"]["iteration"]["total_s"], ch["simulate"]["iteration"]["total_s"]
assert abs(s / a - 1) < 0.01, (a, s)
assert s > 2 * sr["simulate"]["iteration"]["total_s"] * 0.9, (s, sr["simulate"]["iteration"])
print(f"spatial 4 GPUs: sendrecv {sr['simulate']['iteration']['total_s']:.4f} s, chain {s:.4f} s "
      f"simulated, {a:.4f} s analytic")
PY
"$HS" simulate -w resnet50 -p abci -s spatial -g 4 -b 64 --json >"$TMP/default.json" 2>"$TMP/err" ||
    fail "spatial, default halo: $(cat "$TMP/err")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
assert d["halo"] == "chain" and d["iteration"] == c["simulate"]["iteration"], d' \
    "$TMP/default.json" "$TMP/chain.json" || fail "the default is not the chain"
"$HS" analytic -w resnet50 -p abci -s filter -g 4 -b 64 --halo chain >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] &&
    grep -qF -- "--halo: for spatial and data+spatial, not filter" "$TMP/err" ||
    fail "filter with --halo: exit $rc, $(cat "$TMP/err")"

finish e2e_halo_chain
