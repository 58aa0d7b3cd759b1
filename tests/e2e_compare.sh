#!/usr/bin/env bash
# e2e_compare.sh: `hybridsim compare` names what accounts for a difference above 2%.
# The parts of the iteration (compute, the analytic model's communication terms, waiting for
# other ranks / pipeline bubbles) must add up on both sides: the model's communication terms to
# its comm_s exactly, for every strategy; and the part named must be the one the numbers say,
# checked here against hand computations where they are short:
#   data+spatial 4x4, ResNet-50, 16 GPUs, halos as ParaDL sends them (--halo sendrecv): the
#     halo exchange. Each of the 17 split layers with
#     a window wider than 1 sends 4 staged messages (halo faces of 256 samples, 60.8 MB per
#     set of one message per layer). Both sides pay 4 x 17 x 3 ms staging latency = 0.204 s;
#     the model shares the node's PCIe 8 ways (4 GPUs x 2 directions): + 4 x 60.8 MB x 8 /
#     16 GB/s = 0.1216 s, while each simulated GPU stages through its own PCIe link, one
#     message per direction: + 0.0152 s. Gap -0.106 s, larger than the across-group gradient
#     allreduce's (-0.065 s: the model shares a node's uplink 8 ways, the simulation's 4 rings
#     meet 2 per NIC), so the halo it is; the links that messages waited on are NICs.
#   VGG-16 data+filter 512x4 spread over 2048 GPUs: the gradient allreduce across groups, and
#     the messages wait on the 1:3 oversubscribed rack uplinks.
#   pipeline, 16 stages, on the measured times (--compute measured, the stages ParaDL's
#     partition gives): the pipeline sends (the model charges 2(p+S-2) = 60 sends at the
#     slowest boundary on the critical path; the critical stage's own messages take far less,
#     and the bubbles are within a tenth of that gap). Under the compute model the first
#     stages end at early layers with larger outputs (the model charges 0.495 s of sends
#     there, 0.247 s on the measured partition): the sends are still named, and the critical
#     rank waits longer for the other stages' sends, which the model charges as sends.
#   data+filter 16x4, 64 GPUs: the gradient allreduce across groups, waiting on NICs.
#   data+spatial 64x4, ResNet-50, 256 GPUs, the default halo chain: the gradient allreduce
#     across groups (-0.086 s). The critical rank's own halo messages take 0.12 s of the
#     model's 0.66 s, and it waits 0.52 s in its halo tasks for the messages of the chain
#     before its own: that waiting is the halo term's (the model prices the chain whole), so
#     the halo is -0.019 s, not -0.54 s cancelled by +0.54 s of waiting.
#   the activation collective's label: "reduce-scatter" under the default filter backward,
#     "allreduce" with --filter-backward allreduce.
#   data, 64 GPUs: agrees, no difference printed.
#   DeepBench's allreduce of 64.5 million floats on two P100s whose pairs go through host memory
#     (systems.tsv's "DeepBench 8-GPU", --gpu-path host), --allreduce ring: agrees (43.0 ms
#     both), as the ring's two edges climb one switch's link to the CPU and the model's ring
#     prices that link's sharing (plat_ring_cost; pricing each edge by its own route: 21.5 ms).
# Usage (from ctest): e2e_compare.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

run() { # run NAME args...: compare's JSON to $TMP/NAME.json
    local name="$1"
    shift
    if ! "$HS" compare "$@" --json >"$TMP/$name.json" 2>"$TMP/err"; then
        fail "$name: exit status $? ($*)"
        cat "$TMP/err"
        return 1
    fi
}

# check.py FILE.json PART KIND: the sums, then PART ("none": no difference; "any": not
# checked) is the part with
# the largest |simulated - analytic|, named in the text; KIND ("-": not checked) the link kind
# with the most waiting, named in the text too.
cat >"$TMP/check.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
part, kind = sys.argv[2], sys.argv[3]
an, sim = d["analytic"]["iteration"], d["simulate"]["iteration"]
terms = d["difference_terms"]
bad = []
comm = [k for k, v in terms.items() if "simulated_comm_s" in v]
s = 0.0
for k in comm:  # in the printed order, which is the model's summing order
    s += terms[k]["analytic_s"]
if s != an["comm_s"]:
    bad.append("analytic communication terms sum to %r, comm_s is %r" % (s, an["comm_s"]))
tol = 1e-9 * max(1.0, an["total_s"], sim["total_s"])
for side, key in (("analytic_s", an), ("simulated_s", sim)):
    total = sum(v[side] for v in terms.values())
    if abs(total - key["total_s"]) > tol:
        bad.append("%s parts sum to %r, total is %r" % (side, total, key["total_s"]))
busy = sum(terms[k]["simulated_comm_s"] for k in comm)
if abs(busy - sim["comm_s"]) > tol:
    bad.append("simulated communication terms sum to %r, comm_s is %r" % (busy, sim["comm_s"]))
for k in comm:
    v = terms[k]
    if not (v["simulated_waiting_s"] <= v["simulated_exposed_s"] + tol
            and v["simulated_exposed_s"] <= v["simulated_comm_s"] + tol):
        bad.append("%s: waiting <= exposed <= comm does not hold: %r" % (k, v))
labels = {"compute": "compute", "halo_exchange": "the halo exchange",
          "gradient_allreduce_across": "the gradient allreduce across data-parallel groups",
          "pipeline_sendrecv": "the pipeline sends and receives",
          "activation_allreduce": "the activation",
          "waiting": "pipeline bubbles"}
text = d.get("difference", "")
if part == "any":
    pass
elif part == "none":
    if d["agreement"] < 0.98 or text:
        bad.append("expected agreement within 2%%, no difference: %r %r" % (d["agreement"], text))
else:
    gap = {k: v["simulated_s"] - v["analytic_s"] for k, v in terms.items()}
    top = max(gap, key=lambda k: abs(gap[k]))
    if top != part:
        bad.append("largest part is %s (%r), expected %s" % (top, gap, part))
    if labels[part] not in text:
        bad.append("the text does not name %r: %r" % (labels[part], text))
if kind != "-":
    w = d["link_waiting_by_kind"]
    top_kind = max(w, key=lambda k: w[k])
    if top_kind != kind or w[kind] <= 0:
        bad.append("messages waited most on %s, expected %s: %r" % (top_kind, kind, w))
    if "on %s links" % kind not in text:
        bad.append("the text does not name %s links: %r" % (kind, text))
    if not d["link_waiting_share"] > 0.01:
        bad.append("link waiting named below 1%%: %r" % d["link_waiting_share"])
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

check() { # check NAME PART KIND
    local out
    out=$(python3 "$TMP/check.py" "$TMP/$1.json" "$2" "$3") || fail "$1: $out"
}

rn=(-w resnet50 -p abci --layers-top 0)

run spatial "${rn[@]}" -s data+spatial:4x4 -g 16 -b 1024 --halo sendrecv &&
    check spatial halo_exchange nic
# the halo by hand (see the top): the model's and the simulation's, from the workload file
python3 - "$TMP/spatial.json" "$SRC/workloads/resnet50.xml" <<'PY' || fail "spatial: halo by hand"
import json, re, sys
d = json.load(open(sys.argv[1]))
n, set_bytes = 0, 0.0
for line in open(sys.argv[2]):
    split = re.search(r'split="([^"]*)"', line)
    if "<layer " not in line or not split or "spatial" not in split.group(1):
        continue
    w, win = re.search(r' w="([^"]*)"', line), re.search(r'kernel="([^"]*)"', line)
    k = int(w.group(1).split("x")[2]) if w else int(win.group(1).split("x")[0]) if win else 1
    if k <= 1:
        continue
    x = [int(v) for v in re.search(r' x="([^"]*)"', line).group(1).split("x")]
    n += 1
    set_bytes += 256 * x[0] * ((k - 1) // 2) * x[2] * 4   # b = 1024 / 4 groups, 4 bytes
latency = 4 * n * 0.003                                     # ABCI's staging latency
want_an = latency + 4 * set_bytes * 8 / 16e9               # PCIe shared 8 ways
want_sim = latency + 4 * set_bytes / 16e9                   # one message per PCIe direction
h = d["difference_terms"]["halo_exchange"]
# the routes' own latencies (microseconds) are left out of the hand sums
ok = n == 17 and abs(h["analytic_s"] - want_an) < 1e-4 and abs(h["simulated_s"] - want_sim) < 1e-4
if not ok:
    print("halo: %d layers, analytic %r vs %r, simulated %r vs %r"
          % (n, h["analytic_s"], want_an, h["simulated_s"], want_sim))
sys.exit(0 if ok else 1)
PY

# HS_TEST_SMALL=1 (the sanitized build, tests/CMakeLists.txt) leaves this one out, a third of
# the time: the same attribution code names the NIC in dfilter below; spread placement across
# racks runs sanitized in e2e_flow_contention and e2e_fabric.
if [ "${HS_TEST_SMALL:-0}" != 1 ]; then
    run vgg -w vgg16 -p abci -s data+filter:512x4 -g 2048 -b 16384 -P spread --layers-top 0 &&
        check vgg gradient_allreduce_across rack-up
fi

run pipeline-model "${rn[@]}" -s pipeline -g 16 -b 1024 && check pipeline-model pipeline_sendrecv -
run pipeline "${rn[@]}" -s pipeline -g 16 -b 1024 --compute measured &&
    check pipeline pipeline_sendrecv - &&
    python3 - "$TMP/pipeline.json" <<'PY' || fail "pipeline: bubbles against sends"
import json, sys
t = json.load(open(sys.argv[1]))["difference_terms"]
gap = lambda k: t[k]["simulated_s"] - t[k]["analytic_s"]
ok = t["waiting"]["analytic_s"] > 0 and t["waiting"]["simulated_s"] > 0 and \
     abs(gap("waiting")) < abs(gap("pipeline_sendrecv")) / 5
print("" if ok else "bubbles %r, sends %r" % (t["waiting"], t["pipeline_sendrecv"]))
sys.exit(0 if ok else 1)
PY

run dfilter "${rn[@]}" -s data+filter:16x4 -g 64 -b 1024 &&
    check dfilter gradient_allreduce_across nic

run data "${rn[@]}" -s data -g 64 -b 1024 && check data none -

# the halo chain's waiting is the halo's: the across-group allreduce is the gap, and the
# waiting outside communication is nil
run chain "${rn[@]}" -s data+spatial:64x4 -g 256 -b 16384 &&
    check chain gradient_allreduce_across nic &&
    python3 - "$TMP/chain.json" <<'PY' || fail "chain: the halo's waiting"
import json, sys
d = json.load(open(sys.argv[1]))
t, text = d["difference_terms"], d["difference"]
h = t["halo_exchange"]
ok = h["simulated_waiting_s"] > 0.4 and h["simulated_s"] == h["simulated_exposed_s"] and \
     abs(h["simulated_s"] - h["analytic_s"]) < 0.05 and t["waiting"]["simulated_s"] < 1e-3 and \
     "halo" not in text and " 90% of the difference)" in text
print("" if ok else "halo %r, waiting %r, text %r" % (h, t["waiting"], text))
sys.exit(0 if ok else 1)
PY

# the activation collective named as it runs
"$HS" compare "${rn[@]}" -s data+filter:16x4 -g 64 -b 1024 >"$TMP/rs.txt" 2>&1 ||
    fail "reduce-scatter table: exit status $?"
grep -q "^    the activation reduce-scatter  *0.03625" "$TMP/rs.txt" &&
    ! grep -q "activation allreduce" "$TMP/rs.txt" ||
    fail "the default filter backward is not labelled a reduce-scatter: $(grep activation "$TMP/rs.txt")"
"$HS" compare "${rn[@]}" -s data+filter:16x4 -g 64 -b 1024 --filter-backward allreduce \
    >"$TMP/ar.txt" 2>&1 || fail "allreduce table: exit status $?"
grep -q "^    the activation allreduce  *0.07250" "$TMP/ar.txt" ||
    fail "--filter-backward allreduce is not labelled an allreduce: $(grep activation "$TMP/ar.txt")"

# every strategy: the sums hold (which part differs is not asserted here)
i=0
for s in "serial -g 1 -b 64" "data -g 8 -b 256" "spatial -g 4 -b 32" "filter -g 4 -b 64" \
    "channel -g 4 -b 64" "pipeline -g 4 -b 64" "data+filter:2x4 -g 8 -b 64" \
    "data+spatial:2x4 -g 8 -b 32"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    run "s$i" "${rn[@]}" -s $s || continue
    check "s$i" any -
done

deepbench=$(awk -F'\t' '$1 == "DeepBench 8-GPU" && $2 == "P100" { print $4 }' \
    "$SRC/experiments/validation/systems.tsv")
[ -n "$deepbench" ] || fail "deepbench: no DeepBench 8-GPU P100 row in systems.tsv"
run deepbench2 -w "$SRC/experiments/validation/workloads/allreduce-64500000.xml" \
    -p "$deepbench" -s data -g 2 -b 2 --precision fp32 --allreduce ring &&
    check deepbench2 none -

# the table says the same as the JSON, and identical runs print identical bytes
"$HS" compare "${rn[@]}" -s data+spatial:4x4 -g 16 -b 1024 --halo sendrecv >"$TMP/spatial.txt" 2>&1 ||
    fail "table: exit status $?"
grep -q "^  difference: .*the largest part is the halo exchange" "$TMP/spatial.txt" ||
    fail "table: no difference line naming the halo exchange"
grep -q "^    the halo exchange  *0.3256" "$TMP/spatial.txt" || fail "table: no halo part line"
"$HS" compare "${rn[@]}" -s data -g 64 -b 1024 >"$TMP/data64.txt" || fail "data on 64 GPUs: exit $?"
if grep -q "difference" "$TMP/data64.txt"; then
    fail "table: data on 64 GPUs agrees but prints a difference"
fi
run spatial2 "${rn[@]}" -s data+spatial:4x4 -g 16 -b 1024 --halo sendrecv &&
    { cmp -s "$TMP/spatial.json" "$TMP/spatial2.json" || fail "two identical runs differ"; }

finish e2e_compare
