#!/usr/bin/env bash
# e2e_readme.sh: every README's examples give the output they show, and every README's links
# name files that exist (tests/readme_examples.py says how a block is read; tests/README.md,
# "README examples"). Skipped (77) without python3.
# Usage (from ctest): e2e_readme.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
python3 "$SRC/tests/readme_examples.py" --hybridsim "$HS" --root "$SRC" >"$TMP/out" 2>&1 ||
    fail "readme_examples.py: $(grep -v '^ran \|^skipped ' "$TMP/out")"
tail -1 "$TMP/out"
grep -q '^readme_examples: .* [1-9][0-9]* commands run' "$TMP/out" || fail "no example ran"
finish e2e_readme
