#!/usr/bin/env bash
# e2e_smpi.sh: hybridsim's allreduce against SimGrid's SMPI, an independent implementation
# running real MPI code (tests/smpi/allreduce.c) on the same platform file with the same
# network settings (CM02, no correction factors, no TCP window), ranks placed on the GPUs
# hybridsim places them on, every send synchronous. SMPI's ring (smpi/allreduce:lr) against
# --collectives step and flow, and the hierarchical allreduce built from MPI pieces and NCCL's
# rings written as MPI messages (its pipeline: each ring on its own, a step sent once the step
# it forwards is in) against --allreduce hier and rings (the rings in step mode, which runs
# that pipeline; flow mode prices them as NCCL's cost model, latencies plus bytes, which the
# pipeline beats by overlapping them): within 0.01%, at 16 and 32 ranks, 1 to 100 MB, packed and congested (32
# ranks spread over two racks whose uplinks carry four ring flows each). The whole difference
# is SMPI's 16-byte message envelope (src/smpi/mpi/smpi_request.cpp). Element counts divide by
# the ranks (SMPI's ring reduces a remainder with another algorithm). Skipped (77) without
# smpicc/smpirun (Debian's libsimgrid-dev ships them). HS_TEST_SMALL=1 (the sanitized build,
# tests/CMakeLists.txt) runs hybridsim's side only, every run of it (trace, step, flow; ring,
# hier, rings; packed and congested): SMPI's runs, most of the time, hold no hybridsim code for
# the sanitizers to watch; the plain build compares the two.
# Usage (from ctest): e2e_smpi.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
command -v smpicc >/dev/null && command -v smpirun >/dev/null || { echo "no smpicc"; exit 77; }
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

smpicc -O2 "$SRC/tests/smpi/allreduce.c" -o "$TMP/allreduce" >"$TMP/cc.log" 2>&1 ||
    { echo "smpicc failed: $(cat "$TMP/cc.log")"; exit 1; }
# 8 nodes of 4 GPUs, 2 nodes a leaf, 2 leaves a rack: 2 racks, rack uplinks at 1:3
"$HS" platform --nodes 8 --nodes-per-leaf 2 --leaves-per-rack 2 -o "$TMP/p.xml" >/dev/null ||
    fail "platform"
workload() { # workload FILE WEIGHTS: one fc layer of WEIGHTS = 1000 x K weights, no compute
    local k=$(($2 / 1000))
    cat >"$1" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE workload SYSTEM "workload.dtd">
<workload name="one-allreduce">
  <dataset name="none" samples="64" sample="1000x1x1"/>
  <calibration device="V100-16GB" sample_time_s="1e-9"/>
  <layers><layer id="f" type="fc" x="1000x1x1" w="1000x${k}x1x1" y="${k}x1x1"/></layers>
</workload>
XML
}
smpi=(--cfg=network/model:CM02 --cfg=network/latency-factor:1 --cfg=network/bandwidth-factor:1
      --cfg=network/weight-S:0 --cfg=network/TCP-gamma:1e30 --cfg=network/crosstraffic:0
      --cfg=smpi/allreduce:lr --cfg=smpi/reduce_scatter:ompi_ring --cfg=smpi/allgather:ring
      --cfg=smpi/send-is-detached-thresh:0 --cfg=smpi/async-small-thresh:0
      --cfg=smpi/os:0:0:0:0:0 --cfg=smpi/or:0:0:0:0:0 --cfg=smpi/ois:0:0:0:0:0
      --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --cfg=smpi/host-speed:1Gf
      --log=root.thresh:warning)

# check NAME RANKS PLACEMENT WEIGHTS ALGO: SMPI's time against hybridsim's step and flow
check() {
    local name="$1" g="$2" placement="$3" w="$4" algo="$5"
    workload "$TMP/w.xml" "$w"
    "$HS" simulate -w "$TMP/w.xml" -p "$TMP/p.xml" -s data -g "$g" -b "$g" -P "$placement" \
        --allreduce "$algo" --trace "$TMP/trace.json" --json >/dev/null 2>"$TMP/err" ||
        { fail "$name: trace: $(cat "$TMP/err")"; return; }
    python3 - "$TMP/trace.json" >"$TMP/hosts" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
gpu = {}
for e in d["traceEvents"] if isinstance(d, dict) else d:
    m = re.match(r"gpu (\d+) \(rank (\d+)\)", e.get("args", {}).get("name", "")) \
        if e.get("name") == "thread_name" else None
    if m:
        gpu[int(m.group(2))] = int(m.group(1))
for r in sorted(gpu):
    print(f"n{gpu[r] // 4:04d}-gpu{gpu[r] % 4}")
PY
    local per_node=""
    [ "$algo" = hier ] && per_node=4
    [ "$algo" = rings ] && per_node="4 2" # 4 GPUs a node, 2 NICs: two rings
    local ref=""
    [ "${HS_TEST_SMALL:-0}" = 1 ] ||
        ref=$(smpirun -np "$g" -platform "$TMP/p.xml" -hostfile "$TMP/hosts" "${smpi[@]}" \
              "$TMP/allreduce" "$w" $per_node 2>"$TMP/err") ||
        { fail "$name: smpirun: $(cat "$TMP/err")"; return; }
    local modes="step flow"
    [ "$algo" = rings ] && modes=step
    for c in $modes; do
        local t
        t=$("$HS" simulate -w "$TMP/w.xml" -p "$TMP/p.xml" -s data -g "$g" -b "$g" -P "$placement" \
            --allreduce "$algo" -c $c --json | python3 -c \
            'import json,sys; print(json.load(sys.stdin)["iteration"]["comm_s"])')
        if [ -z "$ref" ]; then # HS_TEST_SMALL: hybridsim's side only
            [ -n "$t" ] || fail "$name $c: no time"
            continue
        fi
        python3 -c "
import sys
ref, t = $ref, $t
print(f'$name $c: SMPI {ref*1e3:.6f} ms, hybridsim {t*1e3:.6f} ms, {abs(ref/t-1):.1e}')
sys.exit(abs(ref / t - 1) > 1e-4)" || fail "$name $c"
    done
}
check "16 ranks packed 1 MB ring" 16 packed 250000 ring
check "16 ranks packed 100 MB ring" 16 packed 25000000 ring
check "16 ranks packed 100 MB hier" 16 packed 25000000 hier
check "32 ranks spread 10 MB ring (congested)" 32 spread 2500000 ring
check "16 ranks packed 100 MB rings" 16 packed 25000000 rings
check "32 ranks spread 10 MB rings (congested)" 32 spread 2500000 rings

finish e2e_smpi
