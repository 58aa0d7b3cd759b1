#!/usr/bin/env bash
# e2e_partial.sh: simulations on generated machines whose node count the tree's levels do not
# divide (platforms/README.md, "Partly filled machines"):
#   gen:abci:nodes=64 (leaf groups of 17, 17, 17, 13 nodes; racks of 34 and 30): ResNet-50
#     data parallelism on all 256 GPUs packed is the run of gen:abci:nodes=68 (two full racks)
#     to the last digit, the routes of the GPUs it uses being the same; spread and scatter run
#     and the simulation is at least the model; the file `hybridsim platform --nodes 64`
#     writes reads back to the same machine;
#   gen:nvswitch-ndr:nodes=8 (one rack holding 2 of its 8 leaf groups): data parallelism on
#     its 64 GPUs agrees with the model, as on the full machine;
#   more GPUs than the machine has: exit 2, the count named.
# Usage (from ctest): e2e_partial.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

run() { # run NAME MODE args...: JSON to $TMP/NAME.json
    local name="$1" mode="$2"
    shift 2
    if ! "$HS" "$mode" -w resnet50 --layers-top 0 "$@" --json >"$TMP/$name.json" 2>"$TMP/err"
    then
        fail "$name: exit status $? ($*)"; cat "$TMP/err"
    fi
}

d256=(-s data -g 256 -b 16384)
run part simulate -p gen:abci:nodes=64 "${d256[@]}"
run full simulate -p gen:abci:nodes=68 "${d256[@]}"
"$HS" platform --preset abci --nodes 64 -o "$TMP/abci64.xml" || fail "platform --nodes 64: $?"
run file simulate -p "$TMP/abci64.xml" "${d256[@]}"
run spread compare -p gen:abci:nodes=64 "${d256[@]}" -P spread
run scatter compare -p gen:abci:nodes=64 -s data -g 64 -b 4096 -P scatter
run ndr compare -p gen:nvswitch-ndr:nodes=8 -s data -g 64 -b 4096

python3 - "$TMP" <<'PY' || fail "the runs' figures"
import json, sys
d = sys.argv[1]
j = lambda n: json.load(open(f"{d}/{n}.json"))
bad = []
part, full, file = j("part"), j("full"), j("file")
for k in ("platform",):
    part.pop(k), full.pop(k), file.pop(k)
if part != full:
    bad.append("64 nodes differ from 68 on the same GPUs: %r vs %r" % (part["iteration"], full["iteration"]))
if file != part:
    bad.append("the written file differs from the spec: %r" % file["iteration"])
for n in ("spread", "scatter"):
    c = j(n)
    a, s = c["analytic"]["iteration"]["total_s"], c["simulate"]["iteration"]["total_s"]
    if not s >= a * (1 - 1e-9):
        bad.append("%s: simulated %r below the model's %r" % (n, s, a))
c = j("ndr")
if abs(c["agreement"] - 1) > 1e-6:
    bad.append("nvswitch-ndr:nodes=8: agreement %r" % c["agreement"])
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

out="$("$HS" analytic -w resnet50 -p gen:abci:nodes=64 -s data -g 260 -b 16640 2>&1)"
status=$?
[ "$status" -eq 2 ] && grep -q "has only 256 GPUs" <<<"$out" ||
    fail "-g 260 on 64 nodes: exit $status, '$out'"

finish e2e_partial
