#!/usr/bin/env bash
# e2e_frontdoor.sh: what a user trying the front door's tasks reads is what ran. A strategy
# file whose <setting> names the runtime runs under it, and the report's header and JSON name
# it, as they do for --runtime (analytic, simulate, compare, and a --job of a shared fabric,
# whose header also names the precision and how kernels are timed, as a single run's does).
# suggest's "why not first" never blames more seconds of communication (or compute) than the
# candidate spends on it: under pytorch-ddp's input loader, ResNet-50 v1.5's pipelines (their
# first stage loads the whole batch) wait for their samples, and say so. `sweep --help` says which job keys have no CSV
# column (only the row's key): a sweep given them all has a column for exactly the others.
# --links on PCIe nodes with --root-p2p-bw: a link's peak utilisation exceeds 1 only on the
# links sim/README.md says cap each flow (switches, a CPU's root), and the roots do here.
# A what-if of a fat-tree level the machine lacks is refused, not run as if it changed
# something: --rack-oversub (and the spine's latencies) on dgx1's one rack, --leaf-oversub on
# one leaf group; the same on a machine of two racks (or two leaf groups) runs.
# An iteration bound by the input loader (pytorch-ddp's default 8 workers a GPU, on an A100)
# says which flag gives it more workers; with enough workers the line does not.
# `platform --help` points to the measured runs' machines, a file of the source tree whose DGX
# A100 line runs. With --job, a key given outside holds for every job (--precision: the job's
# header says it), and a job's own key given outside is refused naming the KEY= to give inside.
# The link summary's "over X s" (sim/README.md: what mean utilisation divides by) is the
# iteration without the input loader's wait: a loader-bound run's equals the same run's with
# workers enough, below its own iteration.
# A per-layer plan's GPU loads the samples its first layer reads: splitbrain:2's first layers
# split the batch 16 ways on 16 GPUs, so its input pipeline line equals data parallelism's
# (it charged a group's batch, twice that, and bounded the iteration), in analytic and simulate.
# Usage (from ctest): e2e_frontdoor.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

# A data-parallel plan of ResNet-50 on 16 GPUs, with <setting key="runtime" value="pytorch-ddp">.
if expect_ok "generate" strategy --generate data -w resnet50 -g 16 -b 256 -o "$TMP/d.xml"; then
    with_setting "$TMP/d.xml" "$TMP/rt.xml" runtime pytorch-ddp
    for mode in analytic simulate compare; do
        expect_ok "$mode file runtime" "$mode" -w resnet50 -p abci -s "$TMP/rt.xml" -g 16 -b 256 \
            || continue
        head -1 "$TMP/out" | grep -q ", runtime pytorch-ddp," ||
            fail "$mode: the file's runtime is not in the header: $(head -1 "$TMP/out")"
        expect_ok "$mode file runtime json" "$mode" -w resnet50 -p abci -s "$TMP/rt.xml" -g 16 \
            -b 256 --json || continue
        grep -q '"runtime": *"pytorch-ddp"' "$TMP/out" || fail "$mode --json: no runtime key"
    done
    # the same job in a shared fabric: runtime (the file's), precision and kernels named
    if expect_ok "job file runtime" simulate -p abci \
        --job "w=resnet50,s=$TMP/rt.xml,g=16,b=256,precision=mixed,name=a" \
        --job "w=resnet50,s=data,g=16,b=256,compute=measured,name=b"; then
        a=$(grep -A1 '^job a ' "$TMP/out" | tail -1)
        b=$(grep -A1 '^job b ' "$TMP/out" | tail -1)
        case "$a" in
        *", mixed precision, runtime pytorch-ddp, kernels from the model alone on v100-sxm2-16gb")
            ;;
        *) fail "job a's header: $a" ;;
        esac
        case "$b" in
        *", batch 256, kernels measured on V100-16GB") ;;
        *) fail "job b's header: $b" ;;
        esac
    fi
fi

if expect_ok "suggest runtime" suggest -w resnet50-v1.5 -p gen:dgx1 -g 16 --batch-per-gpu 128 \
    --runtime pytorch-ddp --precision mixed --top 2 --json; then
    python3 - "$TMP/out" <<'PY' || fail "suggest: a reason blames more than the part costs"
import json, re, sys
bad, loader = [], 0
for c in json.load(open(sys.argv[1]))["ranking"]:
    m = re.search(r"slower: (communication|compute|waiting for the input loader) \+([0-9.]+) s",
                  c["why"])
    if not m:
        continue
    part, by = m.group(1), float(m.group(2))
    loader += part.startswith("waiting")
    own = {"communication": c["comm_s"], "compute": c["compute_s"]}.get(part)
    if own is not None and by > own + 1e-4:
        bad.append("%s: %s (its %s is %.4f s)" % (c["strategy"], c["why"], part, own))
print("\n".join(bad))
sys.exit(1 if bad or loader == 0 else 0)
PY
fi

if expect_ok "sweep job keys" sweep -m analytic -w resnet50-v1.5 -p abci -s data -g 4 \
    --batch-per-gpu 32 --precision mixed --runtime pytorch-ddp --optimizer-every 2 \
    --loader-workers 4 --overlap on --quiet -o "$TMP/keys.csv"; then
    "$HS" sweep --help >"$TMP/help" 2>&1
    python3 - "$TMP/help" "$TMP/keys.csv" <<'PY' || fail "sweep: the help's columns are not the CSV's"
import re, sys
help = " ".join(open(sys.argv[1]).read().split())
m = re.search(r"empty for the default, but (.*?), which are in the row's key only", help)
keyonly = set(re.split(r", | and ", m.group(1))) if m else set()
header = open(sys.argv[2]).readline().strip().split(",")
row_key = open(sys.argv[2]).readlines()[1].split(",")[0]
bad = []
for key in ("precision", "runtime", "optimizer-every", "loader-workers", "overlap"):
    if (key in header) == (key in keyonly):
        bad.append("%s: column %s, help says key only %s" % (key, key in header, key in keyonly))
    if key in keyonly and "|%s=" % key not in row_key:
        bad.append("%s: not in the row's key %s" % (key, row_key))
print("\n".join(bad) or "")
sys.exit(1 if bad or not m else 0)
PY
fi

pcie=gen:abci-built:nvlink-topology=none,gpus-per-node=8,gpus-per-pcie-switch=2,nics-per-node=1
if expect_ok "links root" simulate -w resnet50 -p "$pcie,root-p2p-bw=9GBps,nodes=2" -s data \
    -g 16 -b 512 --layers-top 0 --links "$TMP/links.csv"; then
    python3 - "$TMP/links.csv" <<'PY' || fail "links: a peak utilisation over 1 where none may be"
import csv, sys
over = [r for r in csv.DictReader(open(sys.argv[1])) if float(r["peak_utilisation"]) > 1 + 1e-9]
bad = [r["link"] for r in over if "switch" not in r["kind"] and r["kind"] != "spine"
       and "-rootp2p" not in r["link"]]
print(" ".join(bad))
sys.exit(1 if bad or not any("-rootp2p" in r["link"] for r in over) else 0)
PY
fi

expect_bad_hs "one rack, --rack-oversub" "--rack-oversub: the machine has one rack (--nodes 128" \
    platform --preset dgx1 --rack-oversub 1:6 -o "$TMP/never.xml"
expect_bad_hs "one rack, spine-latency" "--spine-latency: the machine has one rack" \
    analytic -w resnet50 -p gen:dgx1:spine-latency=1us -s data -g 8 -b 256
expect_bad_hs "one leaf group, leaf-oversub" "--leaf-oversub: the machine has one leaf group" \
    analytic -w resnet50 -p gen:abci:nodes=17,leaf-oversub=1:2 -s data -g 8 -b 256
[ -e "$TMP/never.xml" ] && fail "one rack: a platform file was written"
expect_ok "two racks, --rack-oversub" platform --preset dgx1 --nodes 256 --rack-oversub 1:6 \
    -o "$TMP/two.xml"
expect_ok "two leaf groups, leaf-oversub" analytic -w resnet50 \
    -p gen:abci:nodes=18,leaf-oversub=1:2 -s data -g 8 -b 256

a100=gen:nvswitch-ndr:gpu=a100-80gb,nvlink-gen=3,nvlink-links-per-gpu=12,pcie-gen=4,nic-type=hdr
for workers in "" 16; do
    extra=()
    [ -n "$workers" ] && extra=(--loader-workers "$workers")
    expect_ok "loader $workers" analytic -w resnet50-v1.5 -p "$a100" -s data -g 8 -b 2048 \
        --precision mixed --runtime pytorch-ddp "${extra[@]}" || continue
    n=$(grep -c "it bounds the iteration (.*more workers a GPU: --loader-workers N)" "$TMP/out")
    [ "$n" -eq $((workers ? 0 : 1)) ] || fail "loader '$workers': $(grep 'input pipeline' "$TMP/out")"
done

"$HS" platform --help >"$TMP/phelp" 2>&1
tsv=$(tr '\n' ' ' <"$TMP/phelp" | grep -o "experiments/validation/[a-z]*\.tsv" | head -1)
if [ -z "$tsv" ] || [ ! -f "$SRC/$tsv" ]; then
    fail "platform --help names no machine file of the tree ('$tsv')"
else
    spec=$(awk -F'\t' '$1 == "DGX A100" { print $4; exit }' "$SRC/$tsv")
    if expect_ok "systems.tsv DGX A100" analytic -w resnet50 -p "$spec" -s data -g 16 -b 512; then
        grep -q "on a100-" "$TMP/out" || fail "the DGX A100 line '$spec' runs no A100"
    fi
fi

if expect_ok "job outside precision" simulate -p abci --job "w=resnet50,s=data,g=16,b=256" \
    --precision mixed; then
    grep -q "^hybridsim simulate: resnet50 on abci, data, 16 GPUs, batch 256, mixed precision," \
        "$TMP/out" || fail "--precision outside --job: $(sed -n 4p "$TMP/out")"
fi
for own in "--loader-workers 2:loader-workers=" "--optimizer-every 2:optimizer-every=" "-P spread:placement="; do
    # shellcheck disable=SC2086
    expect_bad_hs "job outside ${own%%:*}" "give it inside each --job as ${own#*:}" simulate -p abci \
        --runtime pytorch-ddp --job "w=resnet50,s=data,g=16,b=256" ${own%%:*}
done
"$HS" --help | tr -s ' \n' ' ' | grep -q "keys (w s g b layers S optimizer-every loader-workers placement) go inside" ||
    fail "--help: the --job keys that go inside"

over() { sed -n 's/.*links (link directions that carried traffic, over \([0-9.e+-]*\) s).*/\1/p' "$TMP/out"; }
lrun=(simulate -w resnet50-v1.5 -p "$a100" -s data -g 16 -b 4096 --precision mixed --runtime
    pytorch-ddp --layers-top 0 --links-summary)
if expect_ok "links loader-bound" "${lrun[@]}"; then
    slow=$(over) total=$(awk '/^  per iteration/ { print $6; exit }' "$TMP/out")
    if expect_ok "links loader enough" "${lrun[@]}" --loader-workers 64; then
        fast=$(over)
        python3 -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(not (a == b < t))" \
            "${slow:-0}" "${fast:--1}" "${total:-0}" ||
            fail "links over: $slow s loader-bound, $fast s with 64 workers, iteration $total s"
    fi
fi

if expect_ok "splitbrain plan" strategy --generate splitbrain:2 -w resnet50-v1.5 -g 16 -b 2048 \
    -o "$TMP/sb.xml"; then
    for mode in analytic simulate; do
        for s in data "$TMP/sb.xml"; do
            expect_ok "$mode loader $s" "$mode" -w resnet50-v1.5 -p gen:dgx1 -s "$s" -g 16 \
                -b 2048 --runtime pytorch-ddp --precision mixed &&
                grep '^  input pipeline:' "$TMP/out" | cut -d' ' -f5 >"$TMP/in-$mode-${s##*/}"
        done
        [ -s "$TMP/in-$mode-data" ] && cmp -s "$TMP/in-$mode-data" "$TMP/in-$mode-sb.xml" ||
            fail "$mode: a plan's input pipeline $(cat "$TMP/in-$mode-sb.xml") s, data's $(cat "$TMP/in-$mode-data") s"
    done
fi

finish e2e_frontdoor
