#!/usr/bin/env bash
# e2e_fabric.sh: jobs sharing one platform (`simulate --job ... --baseline`). On ABCI, two
# data-parallel ResNet-50 jobs of 128 GPUs (32 nodes) each:
#   crossing: both spread over racks 0 and 1, so every ring edge between their nodes crosses
#             the two racks' 283 GB/s uplinks: 16 NIC flows of 12.5 GB/s per job per uplink fit
#             alone (200 GB/s) but not together (400 GB/s): each job must be slower than alone;
#   disjoint: one job packed in rack 0, the other in rack 1: no link in common, so each must
#             take exactly its time alone.
# Also: background traffic across the same uplinks slows a job; GPU sets must be disjoint; the
# JSON is an array of self-contained job reports; identical runs print identical output.
# HS_TEST_SMALL=1 (the sanitized build, tests/CMakeLists.txt) reports flow mode's fallback per
# job on 16 GPUs a job (data+filter 2x8, whose groups span two nodes too: 10 groups stepped)
# instead of 64 (8x8: 16 groups), two thirds of the time; the plain build runs 64.
# Usage (from ctest): e2e_fabric.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

J="w=resnet50,s=data,g=128,b=4096"
# What does not depend on a job's size (GPU sets taken, the table's layout) is checked on jobs of
# 8 GPUs: the 128-GPU jobs are kept for the sharing itself.
small="w=resnet50,s=data,g=8,b=256"

run() { # run NAME args...: JSON to $TMP/NAME.json
    local name="$1"
    shift
    if ! "$HS" simulate -p abci "$@" --baseline --json >"$TMP/$name.json" 2>"$TMP/err"; then
        fail "$name: exit status $? ($*)"; cat "$TMP/err"
    fi
}

run crossing --job "$J,racks=0-1,placement=spread,name=a" --job "$J,racks=0-1,placement=spread,name=b" \
    --links "$TMP/crossing.csv"
run disjoint --job "$J,racks=0,name=a" --job "$J,racks=1,name=b" --links "$TMP/disjoint.csv"
run background --job "$J,racks=0-1,placement=spread,name=a" \
    --background "from=20-33,to=54-67,rate=12.5GBps"
run explicit --job "w=resnet50,s=data+filter:2x4,b=64,gpus=0-3+400-403,name=x" --job "$small,name=y"

cat >"$TMP/check.py" <<'PY'
import json, sys
name = sys.argv[1]
jobs = json.load(open(sys.argv[2]))
bad = []
def rel(a, b):
    return abs(a - b) / abs(b)
if not isinstance(jobs, list) or not jobs:
    bad.append("not a JSON array of jobs")
    jobs = []
for j in jobs:
    run = j["run"]
    shared, alone = run["iteration"]["total_s"], j["alone"]["total_s"]
    if abs(j["slowdown"] - shared / alone) > 1e-12:
        bad.append("%s: slowdown %r != shared / alone" % (j["job"], j["slowdown"]))
    for key in ("workload", "strategy", "gpus", "batch", "iteration", "epoch", "memory_per_gpu_bytes"):
        if key not in run:
            bad.append("%s: its report lacks %s" % (j["job"], key))
    if name == "crossing":
        if not shared > alone * 1.01:
            bad.append("crossing %s: shared %r is not slower than alone %r" % (j["job"], shared, alone))
        if not run["links"]["congestion_share"] > 0.05:
            bad.append("crossing %s: congestion share %r" % (j["job"], run["links"]["congestion_share"]))
        if run["links"]["top"][0]["kind"] != "rack-up":
            bad.append("crossing %s: top link %r" % (j["job"], run["links"]["top"][0]))
    elif name == "disjoint":
        if rel(shared, alone) > 1e-9:
            bad.append("disjoint %s: shared %r differs from alone %r" % (j["job"], shared, alone))
        if abs(run["links"]["congestion_share"]) > 1e-9:
            bad.append("disjoint %s: congestion share %r" % (j["job"], run["links"]["congestion_share"]))
    elif name == "background":
        if not shared > alone * 1.01:
            bad.append("background: job %r not slower than alone %r" % (shared, alone))
    elif name == "explicit":
        want = {"x": "0-3+400-403", "y": "4-11"}[j["job"]]
        if j["gpu_set"] != want:
            bad.append("explicit %s: GPUs %s, expected %s" % (j["job"], j["gpu_set"], want))
        if rel(shared, alone) > 1e-9:
            bad.append("explicit %s: disjoint nodes, yet shared %r != alone %r" % (j["job"], shared, alone))
if name in ("crossing", "disjoint") and [j["job"] for j in jobs] != ["a", "b"]:
    bad.append("job names %s" % [j["job"] for j in jobs])
if name == "disjoint" and [j["gpu_set"] for j in jobs] != ["0-127", "136-263"]:
    bad.append("disjoint GPU sets %s" % [j["gpu_set"] for j in jobs])
for b in bad:
    print("FAIL [%s]: %s" % (name, b))
sys.exit(1 if bad else 0)
PY
for name in crossing disjoint background explicit; do
    [ -s "$TMP/$name.json" ] && { python3 "$TMP/check.py" "$name" "$TMP/$name.json" || fail "$name: the checks above"; }
done

# the shared run's CSV holds both jobs' traffic; identical runs, identical output
run crossing2 --job "$J,racks=0-1,placement=spread,name=a" --job "$J,racks=0-1,placement=spread,name=b" \
    --links "$TMP/crossing2.csv"
cmp -s "$TMP/crossing.json" "$TMP/crossing2.json" || fail "identical shared runs printed different JSON"
cmp -s "$TMP/crossing.csv" "$TMP/crossing2.csv" || fail "identical shared runs wrote different CSVs"

# the table form: one report per job, alone vs shared, the fabric's summary
"$HS" simulate -p abci --job "$small,racks=0,name=a" --job "$small,racks=1,name=b" --baseline \
    --links "$TMP/t.csv" >"$TMP/table" 2>&1 || fail "table run"
for needle in "job a (--job 1), GPUs 0-7" "job b (--job 2), GPUs 136-143" "alone:" \
    "the shared fabric" "most utilised links"; do
    grep -qF "$needle" "$TMP/table" || fail "table lacks '$needle'"
done
[ "$(grep -c '^hybridsim simulate: resnet50 on abci, data, 8 GPUs' "$TMP/table")" -eq 2 ] ||
    fail "table: not one report per job"

# bad input: exit 2, a message naming the flag, nothing on stdout
bad_fabric() { # bad_fabric NAME NEEDLE ARGS...: expect_bad of "$HS" ${CMD:-simulate} -p abci ARGS
    local name="$1" needle="$2"
    shift 2
    expect_bad "$name" "$needle" "$HS" "${CMD:-simulate}" -p abci "$@"
}
bad_fabric "overlapping GPU sets" "--job 2 (job2): gpus=: GPU 100 is also used by --job 1" \
    --job "$J,gpus=0-127" --job "$J,gpus=100-227"
bad_fabric "GPU listed twice" "gpus= lists GPU 3 twice" --job "w=resnet50,s=data,b=64,gpus=0-3+3"
bad_fabric "missing key" "--job 1: b=BATCH is required" --job "w=resnet50,s=data,g=4"
bad_fabric "unknown key" "unknown key 'gpu'" --job "$J,gpu=3"
bad_fabric "not key=value" "'resnet50' is not KEY=VALUE" --job "resnet50"
bad_fabric "bad range" "racks='1-0'" --job "$J,racks=1-0"
bad_fabric "rack out of range" "not within 0-31" --job "$J,racks=32"
bad_fabric "too many GPUs for the racks" "--job 1 (job1): needs 64 whole free nodes" \
    --job "w=resnet50,s=data,g=256,b=4096,racks=0"
bad_fabric "bad strategy inside a job" "--job 2 (job2):" --job "$J" --job "w=resnet50,s=data+filter:3x3,g=128,b=4096"
bad_fabric "bad workload inside a job" "nosuch" --job "w=nosuch,s=data,g=4,b=64"
bad_fabric "-w with --job" "-w cannot be combined with --job" -w resnet50 --job "$J"
CMD=compare bad_fabric "--job with compare" "--job is for simulate" --job "$J"
bad_fabric "background without a job" "--background needs at least one --job" --background "from=0,to=1,rate=1GBps"
bad_fabric "background to itself" "--background 1: flow 1 goes from node 3 to itself" \
    --job "$J" --background "from=3,to=3,rate=1GBps"
bad_fabric "background rate" "--background 1: rate='fast'" --job "$J" --background "from=0,to=1,rate=fast"
bad_fabric "background node range" "--background 1: from='0-5000'" --job "$J" --background "from=0-5000,to=1,rate=1GBps"
bad_fabric "unwritable links" "no-such-dir" --job "$J" --links "$TMP/no-such-dir/x.csv"

# Flow mode's fallback is reported per job, as a single run reports it: data+filter 8x8's rings
# (its groups span two nodes, so their rings and the data-parallel rings share the NICs) run
# step by step (as alone: 16 groups; 2x8 on 16 GPUs: 10); the data job's do not.
read -r shape g b stepped <<<"8x8 64 512 16"
[ "${HS_TEST_SMALL:-0}" = 1 ] && read -r shape g b stepped <<<"2x8 16 128 10"
sp="w=resnet50,s=data+filter:$shape,g=$g,b=$b,racks=0,name=a"
dp="w=resnet50,s=data,g=$g,b=$b,racks=0,name=b"
alone="$("$HS" simulate -w resnet50 -p abci -s "data+filter:$shape" -g "$g" -b "$b" |
    grep "flow mode")"
"$HS" simulate -p abci --job "$sp" --job "$dp" >"$TMP/rings.txt" || fail "rings: exit status"
awk '/^job a /{j="a"} /^job b /{j="b"} /flow mode/{print j": "$0}' "$TMP/rings.txt" >"$TMP/rings"
[ "$(cat "$TMP/rings")" = "a: $alone" ] || fail "rings per job: $(cat "$TMP/rings") (alone: $alone)"
"$HS" simulate -p abci --json --job "$sp" --job "$dp" | python3 -c '
import json, sys
d = json.load(sys.stdin)
stepped = d[0]["run"]["flow_rings"]["stepped_groups"]
sys.exit(not (stepped == int(sys.argv[1]) and "flow_rings" not in d[1]["run"]))
' "$stepped" || fail "rings per job in the JSON"

# How each job trains is its own: a job with allreduce=, overlap=, precision= runs as a single
# run with those flags (alone on its rack: the same times), beside a job that says none; a
# flag outside --job holds for every job that does not say its own (overlap=off wins).
"$HS" simulate -w resnet50 -p abci -s data -g 8 -b 256 --allreduce tree --overlap \
    --precision mixed --json >"$TMP/single.json" || fail "single run: exit status"
"$HS" simulate -w resnet50 -p abci -s data -g 8 -b 256 --json >"$TMP/plain.json" ||
    fail "plain run: exit status"
"$HS" simulate -p abci --json --job "$small,racks=0,allreduce=tree,overlap=on,precision=mixed" \
    --job "$small,racks=1" >"$TMP/own.json" || fail "per-job settings: exit status"
"$HS" simulate -p abci --json --allreduce tree --overlap --precision mixed --job "$small,racks=0" \
    --job "$small,racks=1,allreduce=ring,overlap=off,precision=fp32" >"$TMP/wide.json" ||
    fail "run-wide settings: exit status"
python3 - "$TMP" <<'PY' || fail "per-job allreduce/overlap/precision"
import json, sys
d = sys.argv[1]
total = lambda r: r["iteration"]["total_s"]
single, plain = (json.load(open(f"{d}/{n}.json")) for n in ("single", "plain"))
assert total(single) < total(plain), (total(single), total(plain))
for name in ("own", "wide"):
    jobs = json.load(open(f"{d}/{name}.json"))
    got = [total(j["run"]) for j in jobs]
    assert got == [total(single), total(plain)], (name, got, total(single), total(plain))
PY
bad_fabric "overlap neither on nor off" "--job 1: overlap: 'yes' is not on or off" \
    --job "$small,overlap=yes"

finish e2e_fabric
