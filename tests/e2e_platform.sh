#!/usr/bin/env bash
# e2e_platform.sh: `hybridsim platform` end to end: --help (and a preset's defaults), a generated
# machine that the other commands accept, what-if flags that reach the model (NVLink 20 vs 50
# GB/s; a DGX-1V cube mesh vs an NVSwitch node; EDR vs NDR), the shipped presets by short name,
# the node as built (abci-built: PCIe switch uplinks on the way to host memory; GPU pairs and
# NICs through host memory, P2P through a CPU's root capped), and bad flags and gen: specs:
# exit status 2, a message naming the flag, and no file written or clobbered.
# Usage (from ctest): e2e_platform.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

# --help: usage with defaults and units on stdout, status 0.
if "$HS" platform --help >"$TMP/help" 2>"$TMP/err"; then
    for needle in "--nvlink-bw" "50GBps" "--rack-oversub" "--nic-latency" "15us" "-o" \
        "--nvlink-topology" "cube-mesh" "nvswitch" "--nvlink-gen" "--pcie-gen" "--nic-type" \
        "--nics-per-node" "dgx1" "nvswitch-ndr" "--nic-path" "--gpu-path" "--root-p2p-bw"; do
        grep -qF -- "$needle" "$TMP/help" || fail "--help lacks '$needle'"
    done
else
    fail "--help exit status $?"
fi
# A preset given before --help shows its own defaults.
"$HS" platform --preset dgx1 --help >"$TMP/help" 2>"$TMP/err" || fail "--preset dgx1 --help: $?"
grep -qE -- "--nvlink-topology +cube-mesh" "$TMP/help" || fail "dgx1 help lacks its topology"
grep -qE -- "--nic-type +edr" "$TMP/help" || fail "dgx1 help lacks its NIC type"
"$HS" platform --preset nvswitch-ndr -h >"$TMP/help" 2>"$TMP/err" || fail "nvswitch-ndr -h: $?"
grep -qE -- "--nvlink-topology +nvswitch" "$TMP/help" || fail "nvswitch-ndr help lacks nvswitch"
grep -qE -- "--pcie-bw +48GBps" "$TMP/help" || fail "nvswitch-ndr help lacks NCCL's PCIe Gen5 x16"

# A small machine (8 nodes of 4 GPUs) that analytic accepts by path.
small=(--nodes 8 --nodes-per-leaf 2 --leaves-per-rack 2)
if "$HS" platform "${small[@]}" -o "$TMP/small.xml" 2>"$TMP/err"; then
    compgen -G "$TMP/small.xml*.tmp" >/dev/null && fail "left a small.xml temp behind"
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

# What-if topologies on two 8-GPU nodes: data parallelism inside one node is faster through an
# NVSwitch (450 GB/s a GPU) than over the DGX-1V cube mesh (25 or 50 GB/s a pair, two hops
# for some), and across nodes NDR beats EDR.
two=(--nodes 2 --nodes-per-leaf 2 --leaves-per-rack 1)
"$HS" platform --preset dgx1 "${two[@]}" -o "$TMP/cube.xml" || fail "generating a cube mesh"
"$HS" platform --preset nvswitch-ndr "${two[@]}" -o "$TMP/nvs.xml" || fail "generating nvswitch"
"$HS" platform --preset nvswitch-ndr "${two[@]}" --nic-type edr -o "$TMP/nvs-edr.xml" ||
    fail "generating nvswitch with EDR"
comm_g() { # communication only: the V100 kernels on every machine, on purpose
    "$HS" analytic -w resnet50 -p "$1" -s data -g "$2" -b 256 --compute measured --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["iteration"]["comm_s"])'
}
c_cube=$(comm_g "$TMP/cube.xml" 8)
c_nvs=$(comm_g "$TMP/nvs.xml" 8)
python3 -c "import sys; sys.exit(0 if 0 < $c_nvs < $c_cube else 1)" ||
    fail "8 GPUs: NVSwitch comm $c_nvs s is not below cube-mesh comm $c_cube s"
c_ndr=$(comm_g "$TMP/nvs.xml" 16)
c_edr=$(comm_g "$TMP/nvs-edr.xml" 16)
python3 -c "import sys; sys.exit(0 if 0 < $c_ndr < $c_edr else 1)" ||
    fail "16 GPUs: NDR comm $c_ndr s is not below EDR comm $c_edr s"
"$HS" simulate -w resnet50 -p "$TMP/cube.xml" -s data+filter:2x8 -g 16 -b 256 >"$TMP/sim" \
    2>"$TMP/err" || { fail "simulate data+filter:2x8 on the cube mesh: exit $?"; cat "$TMP/err"; }

# The shipped presets load by short name. ResNet-50 was measured on a V100: on the DGX-1's
# V100s (32 GB, same speed) and on H100s the compute model's kernels time it by default (the
# measurement aside); a GPU the device table does not know needs --compute said.
for name in dgx1 nvswitch-ndr; do
    "$HS" analytic -w resnet50 -p "$name" -s data -g 1024 -b 32768 --json \
        >"$TMP/a.json" 2>"$TMP/err" || { fail "analytic on $name: exit $?"; cat "$TMP/err"; }
    grep -qF "\"platform\": \"$name\"" "$TMP/a.json" || fail "analytic did not name $name"
done
grep -qF '"compute": "kernels", "device": "h100-sxm5"' "$TMP/a.json" ||
    fail "the JSON does not say the kernels came from the model on the H100"
"$HS" platform --preset abci --nodes 2 --nodes-per-leaf 2 --leaves-per-rack 1 \
    -o "$TMP/v100.xml" >/dev/null 2>&1 || fail "platform for an unknown GPU"
grep -v 'hybridsim:gpu_device' "$TMP/v100.xml" |
    sed 's/id="hybridsim:gpu_model" value="[^"]*"/id="hybridsim:gpu_model" value="x100"/' \
    >"$TMP/x100.xml"
"$HS" analytic -w resnet50 -p "$TMP/x100.xml" -s data -g 8 -b 256 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] &&
    grep -qF "resnet50 was measured on V100-16GB, and x100 has x100: say how to time its kernels, --compute model" "$TMP/err" ||
    fail "V100 times on an unknown GPU without --compute: exit $rc, $(cat "$TMP/err")"

# Bad flags: status 2, the flag named on stderr, nothing on stdout, no file, old file intact.
echo old >"$TMP/keep.xml"
bad_platform() { # bad_platform NEEDLE ARGS...: expect_bad of platform ARGS, keep.xml untouched
    local needle="$1"
    shift
    expect_bad "platform $*" "$needle" "$HS" platform "$@" -o "$TMP/keep.xml"
    [ "$(cat "$TMP/keep.xml")" = old ] || fail "platform $*: clobbered the output file"
    compgen -G "$TMP/keep.xml*.tmp" >/dev/null && fail "platform $*: left a keep.xml temp behind"
}
bad_platform "--nodes" --nodes 0
bad_platform "--nodes-per-leaf" --nodes-per-leaf 0
bad_platform "--leaves-per-rack" --leaves-per-rack 0
bad_platform "--nvlink-bw" --nvlink-bw 50GB
bad_platform "--nic-latency" --nic-latency fast
bad_platform "--rack-oversub" --rack-oversub 1:x
bad_platform "--gpus-per-pcie-switch" --gpus-per-pcie-switch 3
bad_platform "--frobnicate" --frobnicate 1
bad_platform "--preset" --preset summit
bad_platform "--nvlink-topology" --nvlink-topology torus
bad_platform "--nvlink-topology" --nvlink-topology cube-mesh          # 4 GPUs per node
bad_platform "--nvlink-topology" --nvlink-topology pairs --gpus-per-node 3 --gpus-per-pcie-switch 1
bad_platform "only --nvlink-topology all-to-all or pairs" --nvlink-topology none --nvlink-links-per-pair 3
bad_platform "the topology is none" --nvlink-topology none --nvlink-gen 3
bad_platform "the topology is none" --nvlink-topology none --nvlink-latency 5us
bad_platform "--nvlink-gen" --nvlink-gen 5
bad_platform "--pcie-gen" --pcie-gen 2
bad_platform "--nic-type" --nic-type fdr
bad_platform "--nics-per-node" --nics-per-node 3
bad_platform "--nic-bw" --nic-bw 25GBps --nic-type hdr
bad_platform "--nvlink-bw" --preset dgx1 --nvlink-bw 50GBps
bad_platform "--nvlink-links-per-gpu" --nvlink-links-per-gpu 6
bad_platform "--nvswitch-latency" --preset dgx1 --nvswitch-latency 100ns
bad_platform "--pcie-uplink-bw" --pcie-uplink-bw fast
bad_platform "--pcie-uplink-bw" --pcie-uplink-bw -5GBps
bad_platform "--cpu-link-bw" --cpu-link-bw -1GBps
bad_platform "--cpu-link-bw" --cpu-link-bw 40GBps --gpus-per-node 2
bad_platform "--nic-path host: needs --pcie-uplink-bw" --nic-path host
bad_platform "--nic-path: unknown value 'gdr'" --nic-path gdr
bad_platform "--gpu-path host: needs --pcie-uplink-bw" --nvlink-topology none --gpu-path host
bad_platform "--gpu-path: unknown value 'shm'" --gpu-path shm
# every GPU pair has an NVLink way: no pair for --gpu-path or --root-p2p-bw to route over PCIe
bad_platform "--gpu-path: only --nvlink-topology none or pairs uses it (the topology is all-to-all)" \
    --gpu-path host --pcie-uplink-bw 12GBps
none=(--nvlink-topology none)
bad_platform "--root-p2p-bw: must be between" "${none[@]}" --root-p2p-bw -9GBps
bad_platform "--root-p2p-bw: must be between" "${none[@]}" --root-p2p-bw 9      # bytes/s: unit missing
bad_platform "--root-p2p-bw: cannot read '9GB'" "${none[@]}" --root-p2p-bw 9GB
bad_platform "--root-p2p-bw: cannot read 'fast'" "${none[@]}" --root-p2p-bw fast
bad_platform "--root-p2p-bw: only --nvlink-topology" --preset nvswitch-ndr --root-p2p-bw 9GBps
bad_platform "the topology is cube-mesh" --preset dgx1 --root-p2p-bw 9GBps
bad_platform "--root-p2p-bw: caps P2P through a CPU's root, but --gpu-path host" "${none[@]}" \
    --root-p2p-bw 9GBps --gpu-path host --pcie-uplink-bw 12GBps
bad_platform "--root-p2p-bw: no GPU pair goes over PCIe between two switches" "${none[@]}" \
    --root-p2p-bw 9GBps --gpus-per-pcie-switch 4                   # one switch a node
bad_platform "--root-p2p-bw: no GPU pair goes over PCIe between two switches" \
    --nvlink-topology pairs --gpus-per-node 2 --gpus-per-pcie-switch 1 --root-p2p-bw 9GBps
# The same refused in a gen: spec, by simulate and analytic alike (nothing on stdout).
for kv in nic-path=host gpu-path=host root-p2p-bw=9GBps nvlink-topology=none,root-p2p-bw=9 \
    nvlink-topology=none,pcie-uplink-bw=12GBps,gpu-path=host,root-p2p-bw=9GBps; do
    for cmd in simulate analytic; do
        expect_bad "$cmd gen:abci:$kv" "-p gen:abci:nodes=2,$kv: --" \
            "$HS" $cmd -w resnet50 -p "gen:abci:nodes=2,$kv" -s data -g 8 -b 256
    done
done

# The node as built (abci-built): each PCIe switch's link to its CPU is on its two GPUs' way
# to host memory, not on their way to the NIC; the spec says it, other presets' specs do not.
"$HS" platform --preset abci-built --nodes 2 --nodes-per-leaf 2 --leaves-per-rack 1 \
    -o "$TMP/built.xml" >/dev/null 2>&1 || fail "abci-built"
# has_route SRC DST LINK:DIR...: built.xml routes SRC to DST over exactly these links, in order
has_route() {
    local r="<route src=\"n0000-$1\" dst=\"n0000-$2\">" hop
    shift 2
    for hop in "$@"; do r="$r<link_ctn id=\"n0000-${hop%%:*}\" direction=\"${hop#*:}\"/>"; done
    grep -qF "$r</route>" "$TMP/built.xml"
}
has_route gpu1 cpu pcie1:UP pcieup0:UP ||
    fail "abci-built: gpu1 to host memory does not cross switch 0's uplink"
has_route gpu2 gw pcie2:UP nic1:UP || fail "abci-built: gpu2 to its NIC changed"
grep -q 'pcie-uplink-bw=16GBps' "$TMP/built.xml" || fail "abci-built: spec lacks pcie-uplink-bw"
grep -q 'pcie-uplink-bw' "$SRC/platforms/abci.xml" && fail "abci.xml: spec names pcie-uplink-bw"
# Its two CPUs have a memory each, joined by UPI: a GPU reaches its own CPU's memory as above
# and the other's across the link between them (DOWN from CPU 1 to CPU 0).
has_route gpu2 cpu1 pcie2:UP pcieup1:UP || fail "abci-built: gpu2 to its CPU's memory"
has_route gpu2 cpu pcie2:UP pcieup1:UP cpulink:DOWN ||
    fail "abci-built: gpu2 to the other CPU's memory across the CPU link"
grep -q 'cpu-link-bw=41.6GBps' "$TMP/built.xml" || fail "abci-built: spec lacks cpu-link-bw"
grep -q 'cpu-link' "$SRC/platforms/abci.xml" && fail "abci.xml: spec names cpu-link"
grep -q 'nic-path\|gpu-path' "$TMP/built.xml" && fail "abci-built: spec names nic-path or gpu-path"
# Through host memory (--nic-path host --gpu-path host): a GPU reaches its NIC, and two GPUs
# of one switch without NVLink each other, up that switch's link to the CPU and down again.
"$HS" platform --preset abci-built --nodes 2 --nodes-per-leaf 2 --leaves-per-rack 1 \
    --nvlink-topology none --nic-path host --gpu-path host -o "$TMP/built.xml" >/dev/null 2>&1 ||
    fail "abci-built host"
has_route gpu0 gw pcie0:UP pcieup0:UP pcieup0:DOWN nic0:UP ||
    fail "--nic-path host: gpu0 to its NIC not through host memory"
has_route gpu0 gpu1 pcie0:UP pcieup0:UP pcieup0:DOWN pcie1:DOWN ||
    fail "--gpu-path host: gpu0 to gpu1 not through host memory"
grep -q 'nic-path=host,gpu-path=host' "$TMP/built.xml" || fail "spec lacks nic-path, gpu-path"
# P2P through a CPU's root, capped (--root-p2p-bw): the pairs of two switches cross the cap.
"$HS" platform --preset abci-built --nodes 2 --nodes-per-leaf 2 --leaves-per-rack 1 \
    --nvlink-topology none --root-p2p-bw 9GBps -o "$TMP/built.xml" >/dev/null 2>&1 ||
    fail "abci-built root-p2p-bw"
r='<route src="n0000-gpu0" dst="n0000-gpu2"><link_ctn id="n0000-pcie0" direction="UP"/>'
r="$r"'<link_ctn id="n0000-pcieup0" direction="UP"/><link_ctn id="n0000-cpulink" direction="UP"/>'
r="$r"'<link_ctn id="n0000-pcieup1" direction="DOWN"/><link_ctn id="n0000-rootp2p0"/>'
r="$r"'<link_ctn id="n0000-pcie2" direction="DOWN"/></route>'
grep -qF "$r" "$TMP/built.xml" || fail "--root-p2p-bw: gpu0 to gpu2 does not cross CPU 0's root"
grep -q 'root-p2p-bw=9GBps' "$TMP/built.xml" || fail "spec lacks root-p2p-bw"
# A staged halo between GPUs of the two CPUs is relayed through the sender's CPU's memory, so
# it crosses the CPU link (both ways, as many messages as bytes say: 40 a direction in steps;
# 36 in flow mode, where the gradients' ring crosses it as one flow an edge, not one a step).
for mode in step:40 flow:36; do
    "$HS" simulate -w resnet50 -p gen:abci-built -s spatial -g 4 -b 64 --links "$TMP/l.csv" \
        --row -c "${mode%:*}" >/dev/null 2>&1 || fail "spatial 4 on abci-built, ${mode%:*}"
    [ "$(grep -c "^n0000-cpulink,other,\(up\|down\),41600000000,${mode#*:}," "$TMP/l.csv")" = 2 ] ||
        fail "abci-built, ${mode%:*}: the CPU link does not carry the cross-CPU halos:" \
             "$(grep cpulink "$TMP/l.csv")"
done
# Staged halos of the two GPUs of a switch share it: data+spatial slower than on abci (pinned;
# halos sent at once, ParaDL's, so that the two GPUs' stage together). Steps are exact; flow
# mode keeps the data-parallel rings as flows beside the staged halos, 0.06% slower here.
for p in abci:step gen:abci-built:step gen:abci-built:flow; do
    "$HS" simulate -w resnet50 -p "${p%:*}" -s data+spatial -g 64 -b 4096 --compute measured \
        --halo sendrecv -c "${p##*:}" --row |
        awk '{print $10}'
done >"$TMP/ds"
[ "$(tr '\n' ' ' <"$TMP/ds")" = "0.507904 0.530075 0.530403 " ] ||
    fail "data+spatial 64 on abci, abci-built (steps), abci-built (flows):" \
         "$(tr '\n' ' ' <"$TMP/ds"), expected 0.507904 0.530075 0.530403"

finish e2e_platform
