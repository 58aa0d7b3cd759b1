#!/usr/bin/env bash
# e2e_ablation.sh: the opt-in mechanisms' table (experiments/validation/ablate.sh), without
# running it (a validation a variant, minutes): experiments/results/ablation/summary.txt is
# what ablate.py renders from the committed summary.tsv, of the variants ablations.tsv lists
# today; experiments/README.md quotes summary.txt whole (a `<!-- file: -->` block, compared line
# by line as tests/readme_examples.py compares its excerpts); ablate.py still finds in
# kernel_time.c what its fit variants rewrite, every runtime variant's copies load in
# hybridsim, and run.sh --swap-runtime runs that runtime's rows, and no other, under the copy
# (the pinned dle-pytorch rows, a second); bad arguments and a bad ablations.tsv are refused
# (exit 2) before any run.
# Usage (from ctest): e2e_ablation.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2" SHARED="$3"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
results="$SRC/experiments/results/ablation"
ablate="$SRC/experiments/validation/ablate.sh"
py="$SRC/experiments/validation/ablate.py"

# summary.txt is summary.tsv's tables.
python3 "$py" render "$results/summary.tsv" >"$TMP/summary.txt" 2>"$TMP/err" ||
    fail "ablate.py render: $(cat "$TMP/err")"
cmp -s "$TMP/summary.txt" "$results/summary.txt" ||
    fail "summary.txt is not ablate.py render summary.tsv: $(diff "$TMP/summary.txt" \
        "$results/summary.txt" | head -5)"
# Its variants are shipped and ablations.tsv's, in that order: the committed run is of today's.
python3 "$py" variants "$SRC/experiments/validation/ablations.tsv" | cut -f1 |
    sed '1i shipped' >"$TMP/listed"
cut -f1 "$results/summary.tsv" | sed 1d | uniq >"$TMP/ran"
cmp -s "$TMP/listed" "$TMP/ran" || fail "summary.tsv's variants ($(tr '\n' ' ' <"$TMP/ran")) \
are not shipped and ablations.tsv's ($(tr '\n' ' ' <"$TMP/listed")): run ablate.sh again"

# recalibrated.tsv has each fit variant's value of every constant calibrations.tsv lists, the
# committed value beside as the runtime file has it today, and a prediction within 1% of the
# calibration run's measurement.
python3 - "$SRC" "$TMP/listed" >"$TMP/recal" 2>&1 <<'PY' || fail "recalibrated.tsv: $(cat "$TMP/recal")"
import csv, os, re, sys
src, listed = sys.argv[1:3]
v = os.path.join(src, "experiments", "validation")
def table(path):
    with open(path) as f:
        return list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"))
fits = [r["name"] for r in table(os.path.join(v, "ablations.tsv")) if r["kind"] == "fit"]
cals = table(os.path.join(v, "calibrations.tsv"))
got = {(r["variant"], r["runtime"], r["key"]): r for r in
       table(os.path.join(src, "experiments", "results", "ablation", "recalibrated.tsv"))}
if len(got) != len(fits) * len(cals):
    sys.exit("%d lines, not %d fit variants x %d constants" % (len(got), len(fits), len(cals)))
for name in fits:
    for c in cals:
        r = got.get((name, c["runtime"], c["key"]))
        if r is None:
            sys.exit("no %s %s %s" % (name, c["runtime"], c["key"]))
        text = open(os.path.join(src, "workloads", "runtime", c["runtime"] + ".rt")).read()
        m = re.search(r"^%s *= *(\S+)" % c["key"], text, re.M)
        if not m or float(m.group(1)) != float(r["committed"]):
            sys.exit("%s %s: committed %s, the file %s" % (name, c["key"], r["committed"],
                                                       m and m.group(1)))
        if abs(float(r["predicted"]) / float(r["measured"]) - 1) > 0.01:
            sys.exit("%s %s: predicted %s against %s" % (name, c["key"], r["predicted"],
                                                        r["measured"]))
PY

# experiments/README.md quotes summary.txt, every line of it.
python3 - "$SRC" >"$TMP/readme" 2>&1 <<'PY' || fail "experiments/README.md: $(cat "$TMP/readme")"
import os, sys
src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "tests"))
import readme_examples as rx
want = "experiments/results/ablation/summary.txt"
lines = open(os.path.join(src, "experiments", "README.md"), encoding="utf-8").read().split("\n")
quoted = [body for _, marker, body in rx.blocks(lines)
          if (rx.FROM_FILE.match(marker) or [None, None])[1] == want]
actual = open(os.path.join(src, want), encoding="utf-8").read().split("\n")
if len(quoted) != 1:
    sys.exit("%d blocks quote %s, not 1" % (len(quoted), want))
if "..." in quoted[0] or not rx.matches(quoted[0], actual):
    sys.exit("its block is not %s whole: %s" % (want, rx.first_difference(quoted[0], actual)))
PY

# The fit variants' rewrite of kernel_time.c still finds every value it replaces.
fit="$(dirname "$HS")/compute_fit"
if [ -f "$SHARED/reference/measured/deepbench-V100.tsv" ] && [ -x "$fit" ]; then
    cp "$SRC/workloads/compute/kernel_time.c" "$TMP/kernel_time.c"
    "$fit" --data "$SHARED/reference/measured" --mechanisms strided-dgrad,channel-k-tile \
        >"$TMP/fit.txt" || fail "compute_fit --mechanisms failed"
    python3 "$py" patch-fit "$TMP/kernel_time.c" "$TMP/fit.txt" strided-dgrad,channel-k-tile \
        2>"$TMP/err" || fail "ablate.py patch-fit: $(cat "$TMP/err")"
    grep -q "mechanisms = KT_MECH_STRIDED_DGRAD | KT_MECH_CHANNEL_K_TILE," "$TMP/kernel_time.c" ||
        fail "patch-fit did not set the mechanisms"
    # run.sh --swap-runtime runs the rows of that runtime, and no other, under the copy (the
    # pinned rows of dle-pytorch: nnU-Net 2-D's own runtime among them; a second)
    runtime=experiments/validation/runtime/pytorch-nnunet-2d.rt
    python3 "$py" runtime-copy "$SRC/$runtime" "norm_blocks = any" test "$TMP/nn2d.rt" &&
        "$SRC/experiments/validation/run.sh" --subset --dataset dle-pytorch -j 2 \
            --exe "$HS" --fit "$fit" --measured "$SHARED/reference/measured" -o "$TMP/swap" \
            --swap-runtime "$runtime=$TMP/nn2d.rt" >/dev/null 2>"$TMP/err" ||
        fail "run.sh --swap-runtime: $(cat "$TMP/err")"
    swapped="$(awk -F'\t' '$1 == "dle-pytorch" && $6 != "" && index($12, "nn2d.rt") {print $2}' \
        "$TMP/swap/results.tsv" 2>/dev/null)"
    [ "$swapped" = "dle-throughput.tsv:236" ] ||
        fail "--swap-runtime ran '$swapped' under the copy, not dle-throughput.tsv:236 alone"
    expect_bad "--swap-runtime of no row's runtime" "--swap-runtime pytorch-apex=...: no row runs" \
        "$SRC/experiments/validation/run.sh" --subset --exe "$HS" --fit "$fit" \
        --measured "$SHARED/reference/measured" -o "$TMP/swap2" \
        --swap-runtime "pytorch-apex=$TMP/nn2d.rt"
    # a runtime file hybridsim refuses stops run.sh before any run, -o not made
    { cat "$SRC/workloads/runtime/pytorch-ddp.rt"; echo "no_such_key = 1"; } >"$TMP/badkey.rt"
    expect_bad "--swap-runtime of a file with a key no runtime has" \
        "pytorch-ddp=$TMP/badkey.rt: hybridsim: $TMP/badkey.rt:" \
        "$SRC/experiments/validation/run.sh" --subset --exe "$HS" --fit "$fit" \
        --measured "$SHARED/reference/measured" -o "$TMP/swap3" \
        --swap-runtime "pytorch-ddp=$TMP/badkey.rt"
    [ ! -e "$TMP/swap3" ] || fail "run.sh refused a runtime file but made its -o"
else
    echo "no DeepBench data or compute_fit: patch-fit and --swap-runtime not checked"
fi
# Every runtime variant's copies are runtime files hybridsim takes.
python3 "$py" variants "$SRC/experiments/validation/ablations.tsv" >"$TMP/variants" ||
    fail "ablations.tsv refused"
while IFS=$'\t' read -r name kind sets where source; do
    [ "$kind" = runtime ] || continue
    for runtime in $where; do
        file="$SRC/workloads/runtime/$runtime.rt"
        [ "${runtime#*/}" = "$runtime" ] || file="$SRC/$runtime"
        python3 "$py" runtime-copy "$file" "$sets" "$source" "$TMP/copy.rt" ||
            { fail "$name: runtime-copy $runtime"; continue; }
        "$HS" analytic -w resnet50 -p dgx1 -s data -g 8 -b 256 --runtime "$TMP/copy.rt" \
            >/dev/null 2>"$TMP/err" || fail "$name: $runtime's copy: $(cat "$TMP/err")"
    done
done <"$TMP/variants"

# Bad arguments and a bad variants file: exit 2, a message, nothing written.
expect_bad "unknown argument" "unknown argument '--bogus'" "$ablate" --bogus
expect_bad "-j 0" "-j needs a positive integer" "$ablate" -j 0
expect_bad "--only unknown" "--only nope: not a variant of" "$ablate" --only nope -o "$TMP/o1"
bad() {  # bad NAME NEEDLE LINE: ablations.tsv with LINE added is refused
    { cat "$SRC/experiments/validation/ablations.tsv"; printf '%s\n' "$3"; } >"$TMP/bad.tsv"
    expect_bad "$1" "$2" "$ablate" --variants "$TMP/bad.tsv" -o "$TMP/o2"
}
bad "unknown mechanism" "unknown mechanism 'strided'" $'x\tfit\tstrided\t-\tnone'
bad "none with a mechanism" "sets 'none' goes alone" $'x\tfit\tnone,strided-dgrad\t-\tnone'
bad "unknown kind" "kind 'model' is neither fit nor runtime" $'x\tmodel\tnone\t-\tnone'
bad "not key = value" "sets 'norm_blocks' is not \`key = value\`" \
    $'x\truntime\tnorm_blocks\tall\tnone'
bad "no runtime file" "no runtime file for 'nope'" $'x\truntime\tnorm_blocks = any\tnope\tnone'
bad "twice" "given twice" $'refit\tfit\tnone\t-\tnone'
bad "a key no runtime has" "variant x: pytorch-ddp with 'no_such_key = 1'" \
    $'x\truntime\tno_such_key = 1\tpytorch-ddp\tnone'
bad "a line short of a column" "(x): needs name, kind, sets, where and source" $'x\truntime\tnorm_blocks = any'
: >"$TMP/o3"
expect_bad "-o a file" "-o: $TMP/o3 is not a directory" "$ablate" --only refit -o "$TMP/o3"
[ ! -e "$TMP/o1" ] && [ ! -e "$TMP/o2" ] || fail "a refused run created its -o folder"
finish e2e_ablation
