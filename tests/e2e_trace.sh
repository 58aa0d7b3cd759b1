#!/usr/bin/env bash
# e2e_trace.sh: "see inside a run" end to end. The Chrome trace of a simulated run parses as
# JSON, has a track for every GPU of the run on its node's process, and its slices sum, per GPU,
# to the compute and communication times the JSON of the same run reports for that rank, no
# slice starting before the previous one on its track ends;
# --trace-gpus keeps exactly the listed GPUs; the per-layer breakdown sums to the iteration's
# compute, communication and exposed communication; the memory parts sum to the total; and every
# wrong flag exits 2 with a message naming it, leaving no file behind.
# Usage (from ctest): e2e_trace.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
if ! command -v python3 >/dev/null; then
    echo "e2e_trace needs python3 to read the JSON it checks"; exit 1
fi

# check_run JSON TRACE GPUS_PER_NODE [KEPT]: the trace against the run's JSON (the "simulate"
# object of compare). KEPT: the GPU list the trace must hold exactly (default: every rank's).
check_run() {
    python3 - "$@" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run = run.get("simulate", run)
trace = json.load(open(sys.argv[2]))
per_node = int(sys.argv[3])
events = trace["traceEvents"]
threads = {}   # (pid, tid) -> name
procs = {}
for e in events:
    if e["ph"] == "M" and e["name"] == "thread_name":
        threads[(e["pid"], e["tid"])] = e["args"]["name"]
    if e["ph"] == "M" and e["name"] == "process_name":
        procs[e["pid"]] = e["args"]["name"]
gpu_rank = {}  # GPU -> rank, from the compute tracks' names "gpu G (rank r)"
for (pid, tid), name in threads.items():
    words = name.split()
    if len(words) == 4 and words[0] == "gpu":
        g, r = int(words[1]), int(words[3].rstrip(")"))
        assert tid == 2 * g + 1, name
        assert pid == g // per_node + 1, (name, pid)
        assert procs[pid] == "node %d" % (pid - 1), procs.get(pid)
        assert threads.get((pid, tid + 1)) == name + " comm", name
        gpu_rank[g] = r
kept = sorted(gpu_rank)
if len(sys.argv) > 4:
    want = set()
    for item in sys.argv[4].split(","):
        lo, _, hi = item.partition("-")
        want.update(range(int(lo), int(hi or lo) + 1))
    assert kept == sorted(want), (kept, sorted(want))
else:
    assert sorted(gpu_rank.values()) == list(range(run["gpus"])), sorted(gpu_rank.values())
busy = {}      # (GPU, stream) -> seconds
for e in events:
    if e["ph"] != "X":
        continue
    g, stream = divmod(e["tid"] - 1, 2)
    assert g in gpu_rank, e
    assert e["dur"] >= 0 and e["ts"] >= 0, e
    assert ("comm" if stream else "compute") == e["cat"], e
    busy[(g, stream)] = busy.get((g, stream), 0.0) + e["dur"] * 1e-6
    args = e["args"]
    assert "layer" in args and "phase" in args and "seconds" in args, e
    if stream:
        assert "bytes" in args, e
        assert "group_size" in args or "peer_rank" in args or "send_to_rank" in args, e
# No slice starts before the previous one on its track ends (times in whole nanoseconds, as
# written: rounding start and duration apart made 1 ns overlaps).
tracks = {}
for e in events:
    if e["ph"] == "X":
        tracks.setdefault((e["pid"], e["tid"]), []).append((round(e["ts"] * 1000),
                                                            round(e["dur"] * 1000)))
for key, slices in tracks.items():
    slices.sort()
    for (a, d), (b, _) in zip(slices, slices[1:]):
        assert b >= a + d, ("slice overlaps the previous one on its track", key, a, d, b)
# The critical rank's slices are the iteration's compute and communication.
crit = run["layers_rank"]
it = run["iteration"]
for g, r in gpu_rank.items():
    if r != crit:
        continue
    n = sum(1 for e in events if e["ph"] == "X" and (e["tid"] - 1) // 2 == g)
    tol = 1e-9 * n + 1e-9 * it["total_s"]
    assert abs(busy.get((g, 0), 0) - it["compute_s"]) <= tol, (busy.get((g, 0)), it)
    assert abs(busy.get((g, 1), 0) - it["comm_s"]) <= tol, (busy.get((g, 1)), it)
# The per-layer breakdown adds up to the iteration, and layers are all there, in order.
L = run["layers"]
assert [l["index"] for l in L] == list(range(len(L)))
cells = [c for l in L + [run["whole_model"]] for k, c in l.items() if isinstance(c, dict)]
for key in ("compute_s", "comm_s", "exposed_comm_s"):
    s = sum(c[key] for c in cells)
    assert abs(s - it[key]) <= 1e-9 * max(1.0, it[key]), (key, s, it[key])
s = sum(l["time_s"] for l in L) + run["whole_model"]["time_s"]
assert abs(s - it["total_s"]) <= 1e-9 * it["total_s"], (s, it["total_s"])
m = run["memory_breakdown"]
assert sum(m.values()) == run["memory_per_gpu_bytes"], (m, run["memory_per_gpu_bytes"])
PY
}

trace_case() {
    local what="$1" per_node="$2" kept="$3"
    shift 3
    rm -f "$TMP/t.json"
    expect_ok "$what" "$@" --json --trace "$TMP/t.json" || return
    compgen -G "$TMP/t.json*.tmp" >/dev/null && fail "$what: a temp file left behind"
    python3 -m json.tool "$TMP/t.json" >/dev/null || { fail "$what: json.tool"; return; }
    cp "$TMP/out" "$TMP/run.json"
    if [ -n "$kept" ]; then check_run "$TMP/run.json" "$TMP/t.json" "$per_node" "$kept" || fail "$what"
    else check_run "$TMP/run.json" "$TMP/t.json" "$per_node" || fail "$what"; fi
}

rn=(-w resnet50 -p abci)
trace_case "data, 8 GPUs" 4 "" simulate "${rn[@]}" -s data -g 8 -b 256
trace_case "data+filter compare" 4 "" compare "${rn[@]}" -s data+filter:2x4 -g 8 -b 64
trace_case "pipeline" 4 "" simulate "${rn[@]}" -s pipeline -g 4 -b 64 --micro-batches 4
trace_case "data+spatial, step" 4 "" simulate -w cosmoflow-256 -p abci -s data+spatial:2x4 -g 8 -b 16 --collectives step
trace_case "spread placement" 4 "" simulate "${rn[@]}" -s data -g 8 -b 256 --placement spread
trace_case "overlap, data" 4 "" simulate "${rn[@]}" -s data -g 8 -b 256 --overlap
trace_case "overlap, data+filter" 4 "" compare "${rn[@]}" -s data+filter:2x4 -g 8 -b 64 --overlap
trace_case "overlap, pipeline" 4 "" simulate "${rn[@]}" -s pipeline -g 4 -b 64 --micro-batches 8 --overlap
trace_case "data+filter, 64 GPUs" 4 "" simulate "${rn[@]}" -s data+filter:16x4 -g 64 -b 1024
trace_case "--trace-gpus" 4 "1,4-5" simulate "${rn[@]}" -s data -g 8 -b 256 --trace-gpus 1,4-5
trace_case "--trace-gpus, one" 4 "7" compare "${rn[@]}" -s data -g 8 -b 256 --trace-gpus 7

# The trace's GPUs under spread placement are the GPUs the ranks run on, not 0..p-1.
expect_ok "spread json" simulate "${rn[@]}" -s data -g 8 -b 256 --placement spread --json --trace "$TMP/s.json" &&
python3 - "$TMP/s.json" <<'PY' || fail "spread: GPUs"
import json, sys
names = [e["args"]["name"] for e in json.load(open(sys.argv[1]))["traceEvents"]
         if e["ph"] == "M" and e["name"] == "thread_name" and not e["args"]["name"].endswith("comm")]
gpus = sorted(int(n.split()[1]) for n in names)
assert len(gpus) == 8 and gpus[-1] >= 8, gpus
PY

# With --links, the busiest links (the JSON's "top") become counter tracks of a network process.
expect_ok "links counters" simulate "${rn[@]}" -s data -g 16 -b 512 --json --links "$TMP/l.csv" --trace "$TMP/l.json" &&
python3 - "$TMP/out" "$TMP/l.json" <<'PY' || fail "links counters"
import json, sys
run, trace = (json.load(open(p)) for p in sys.argv[1:])
ev = trace["traceEvents"]
net = [e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"
       and e["args"]["name"] == "network"]
assert len(net) == 1, net
counters = {}
for e in ev:
    if e["ph"] == "C":
        assert e["pid"] == net[0], e
        counters.setdefault(e["name"], []).append((e["ts"], e["args"]["utilisation"]))
top = run["links"]["top"]
assert len(top) > 0 and len(counters) == len(top), (len(counters), len(top))
for t in top:
    c = counters["%s %s mean utilisation" % (t["link"], t["direction"])]
    assert c[0][0] == 0 and abs(c[0][1] - t["mean_utilisation"]) <= 1e-6 * t["mean_utilisation"], c
    assert c[1][1] == 0 and abs(c[1][0] * 1e-6 - run["iteration"]["total_s"]) < 1e-9, c
PY

# Tables: top 10 by default, all with --per-layer, none with --layers-top 0.
if expect_ok "table" simulate "${rn[@]}" -s data -g 8 -b 256; then
    grep -q "top 10 of 166 layers" "$TMP/out" || fail "table: top 10"
    grep -q "weights .* + gradients .* + activations .* + optimizer state" "$TMP/out" || fail "table: memory parts"
fi
if expect_ok "per-layer" simulate "${rn[@]}" -s data -g 8 -b 256 --per-layer; then
    grep -q "all 166 layers" "$TMP/out" || fail "--per-layer"
    [ "$(grep -c ' conv ' "$TMP/out")" -eq "$(grep -c 'type="conv"' "$SRC/workloads/resnet50.xml")" ] ||
        fail "--per-layer: a row per conv layer"
fi
if expect_ok "layers-top 0" simulate "${rn[@]}" -s data -g 8 -b 256 --layers-top 0; then
    grep -q "per layer" "$TMP/out" && fail "--layers-top 0 still prints layers"
fi
if expect_ok "layers-top 3" compare "${rn[@]}" -s data -g 8 -b 256 --layers-top 3; then
    grep -q "top 3 of 166" "$TMP/out" || fail "--layers-top 3"
fi

# Memory: a configuration that does not fit still reports its times, and says so.
if expect_ok "does not fit" simulate "${rn[@]}" -s data -g 2 -b 256 --json; then
    python3 - "$TMP/out" <<'PY' || fail "does not fit: json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["fits_in_memory"] is False and d["iteration"]["total_s"] > 0, d
assert d["memory_per_gpu_bytes"] > d["gpu_memory_bytes"] == 16e9, d
m = d["memory_breakdown"]
assert sum(m.values()) == d["memory_per_gpu_bytes"] > 16e9, m
PY
fi
expect_ok "does not fit table" analytic "${rn[@]}" -s data -g 2 -b 256 && {
    grep -q "DOES NOT FIT" "$TMP/out" || fail "verdict"
    grep -q "does not fit: .* GB more than the GPU has" "$TMP/out" || fail "verdict: by how much"; }

# Optimizer state: Adam adds two values per weight held, and nothing else changes.
sed 's|<calibration |<calibration optimizer="adam" |' "$SRC/workloads/resnet50.xml" >"$TMP/adam.xml"
grep -q 'optimizer="adam"' "$TMP/adam.xml" || fail "could not make the Adam workload"
expect_ok "sgd" analytic "${rn[@]}" -s data+filter:2x4 -g 8 -b 64 --json && cp "$TMP/out" "$TMP/sgd.json"
expect_ok "adam" analytic -w "$TMP/adam.xml" -p abci -s data+filter:2x4 -g 8 -b 64 --json &&
python3 - "$TMP/sgd.json" "$TMP/out" <<'PY' || fail "adam"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ma, mb = a["memory_breakdown"], b["memory_breakdown"]
assert ma["optimizer_state_bytes"] == 0
assert mb["optimizer_state_bytes"] == 2 * mb["weights_bytes"] > 0, mb
assert b["memory_per_gpu_bytes"] == a["memory_per_gpu_bytes"] + mb["optimizer_state_bytes"]
assert a["iteration"] == b["iteration"]
PY
sed 's|<calibration |<calibration optimizer="lion" |' "$SRC/workloads/resnet50.xml" >"$TMP/lion.xml"
expect_bad_hs "unknown optimizer" "lion.xml:" analytic -w "$TMP/lion.xml" -p abci -s data -g 4 -b 64

# Wrong flags: exit 2, the flag named, no trace file or temporary left.
b8=(simulate "${rn[@]}" -s data -g 8 -b 256)
expect_bad_hs "reversed range" "--trace-gpus: '7-3'" "${b8[@]}" --trace "$TMP/x.json" --trace-gpus 7-3
expect_bad_hs "not a list" "--trace-gpus: 'gpu0'" "${b8[@]}" --trace "$TMP/x.json" --trace-gpus gpu0
expect_bad_hs "empty list" "--trace-gpus" "${b8[@]}" --trace "$TMP/x.json" --trace-gpus ""
expect_bad_hs "empty item" "--trace-gpus" "${b8[@]}" --trace "$TMP/x.json" --trace-gpus 1,,2
expect_bad_hs "GPU not in the run" "--trace-gpus: GPU 8 runs no rank" "${b8[@]}" --trace "$TMP/x.json" --trace-gpus 0-8
expect_bad_hs "GPU beyond the platform" "--trace-gpus: GPU 99999 does not exist" "${b8[@]}" --trace "$TMP/x.json" --trace-gpus 99999
expect_bad_hs "--trace-gpus alone" "--trace-gpus needs --trace" "${b8[@]}" --trace-gpus 1
expect_bad_hs "--trace on analytic" "--trace is for simulate and compare" analytic "${rn[@]}" -s data -g 8 -b 256 --trace "$TMP/x.json"
expect_bad_hs "unwritable trace" "--trace $TMP/no/such/dir/x.json: cannot create a file there" "${b8[@]}" --trace "$TMP/no/such/dir/x.json"
expect_bad_hs "--trace without a value" "--trace needs a value" "${b8[@]}" --trace
expect_bad_hs "--layers-top negative" "--layers-top: -1 is out of range" "${b8[@]}" --layers-top -1
expect_bad_hs "--layers-top word" "--layers-top: 'ten'" "${b8[@]}" --layers-top ten
ls "$TMP"/x.json* >/dev/null 2>&1 && fail "a failed run left a trace file"

finish e2e_trace
