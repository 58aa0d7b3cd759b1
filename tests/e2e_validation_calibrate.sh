#!/usr/bin/env bash
# e2e_validation_calibrate.sh: experiments/validation/calibrate.py, the bisection ablate.sh
# calibrates a fit variant's runtime constants with, finds on the shipped model every value
# calibrations.tsv lists as the runtime file commits it (to the file's digits: 0.0277 for
# pytorch-ddp's depthwise_efficiency on dle-throughput.tsv:83, a second each), writes the
# runtime copy it was asked for, and refuses a bracket without the measurement, a row not in
# the results and a key the runtime does not set (exit 2).
# Usage (from ctest): e2e_validation_calibrate.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
cal="$SRC/experiments/validation/calibrate.py"
results="$SRC/experiments/results/validation/results.tsv"

# Every calibrated constant, found again on the shipped model, is the committed one. The
# sanitized build (HS_TEST_SMALL=1) leaves these three bisections out: they run the same
# analytic path as the one-constant bisection below, which it keeps, and the script is Python.
[ -n "${HS_TEST_SMALL:-}" ] ||
while IFS=$'\t' read -r -u 4 runtime key digits low high row command sample_s; do
    file="$SRC/workloads/runtime/$runtime.rt"
    committed="$(sed -n "s/^$key *= *//p" "$file")"
    target=(--results "$results" --row "$row")
    [ "$row" != - ] || target=(--command "$command" --sample-s "$sample_s")
    got="$(python3 "$cal" --exe "$HS" "${target[@]}" --runtime "$file" --key "$key" \
        --digits "$digits" --low "$low" --high "$high" --out "$TMP/$runtime.rt" 2>"$TMP/err")" ||
        fail "calibrate.py $runtime $key: $(cat "$TMP/err")"
    read -r _ value _ <<<"$got"
    python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' \
        "${value:-nan}" "${committed:-nan}" ||
        fail "$runtime's $key: calibrate.py finds $value, the file commits $committed"
    grep -qx "$key = $value" "$TMP/$runtime.rt" || fail "--out: $TMP/$runtime.rt lacks '$key = $value'"
done 4< <(grep -v '^#' "$SRC/experiments/validation/calibrations.tsv" | tail -n +2)
[ -n "${HS_TEST_SMALL:-}" ] || [ -n "${value:-}" ] || fail "calibrations.tsv lists no constant"

# One digit fewer is another value: the bisection's rounding is to the digits asked.
got="$(python3 "$cal" --exe "$HS" --results "$results" --row dle-throughput.tsv:83 \
    --runtime "$SRC/workloads/runtime/pytorch-ddp.rt" --key depthwise_efficiency --digits 2)"
[ "${got%% *}" = depthwise_efficiency ] && [ "$(cut -d' ' -f2 <<<"$got")" = 0.028 ] ||
    fail "depthwise_efficiency to 2 digits: '$got', not 0.028"

ddp="$SRC/workloads/runtime/pytorch-ddp.rt"
expect_bad "a bracket that misses the measurement" "not its 655" \
    python3 "$cal" --exe "$HS" --results "$results" --row dle-throughput.tsv:83 \
    --runtime "$ddp" --key depthwise_efficiency --low 0.1 --high 1
expect_bad "a row not in the results" "no row dle-throughput.tsv:99999" \
    python3 "$cal" --exe "$HS" --results "$results" --row dle-throughput.tsv:99999 \
    --runtime "$ddp" --key depthwise_efficiency
expect_bad "a key the runtime does not set" "sets no no_such_key" \
    python3 "$cal" --exe "$HS" --results "$results" --row dle-throughput.tsv:83 \
    --runtime "$ddp" --key no_such_key
expect_bad "both targets" "give --results and --row, or --command and --sample-s" \
    python3 "$cal" --exe "$HS" --results "$results" --row dle-throughput.tsv:83 \
    --command "analytic -b 1 --runtime x" --sample-s 1 --runtime "$ddp" --key depthwise_efficiency
finish e2e_validation_calibrate
