#!/usr/bin/env bash
# e2e_readme.sh: every README's examples give the output they show, and every README's links
# name files that exist (tests/readme_examples.py says how a block is read; tests/README.md,
# "README examples"). Skipped (77) without python3.
# HS_TEST_SMALL=1 (the sanitized build, tests/CMakeLists.txt) skips the commands simulating
# more than 64 GPUs (readme_examples.py --max-gpus: 23 of 86 commands, 128 to 2,048 GPUs, three
# fifths of the time), whose outputs the plain build checks: what they add (another platform or
# preset, a routing, --overlap, an allreduce, --compute measured, a runtime, --job) runs
# sanitized on fewer GPUs in e2e_compute, e2e_platform, e2e_links, e2e_sweep, e2e_allreduce,
# e2e_overlap, e2e_runtime, e2e_compare and e2e_fabric.
# Usage (from ctest): e2e_readme.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
small=()
[ "${HS_TEST_SMALL:-0}" = 1 ] && small=(--max-gpus 64)
python3 "$SRC/tests/readme_examples.py" --hybridsim "$HS" --root "$SRC" "${small[@]}" \
    >"$TMP/out" 2>&1 ||
    fail "readme_examples.py: $(grep -v '^ran \|^skipped ' "$TMP/out")"
tail -1 "$TMP/out"
grep -q '^readme_examples: .* [1-9][0-9]* commands run' "$TMP/out" || fail "no example ran"
finish e2e_readme
