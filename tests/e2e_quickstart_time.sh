#!/usr/bin/env bash
# e2e_quickstart_time.sh: README.md and experiments/README.md quote one figure for how long the
# quickstart takes, the one experiments/bench/quickstart.sh measured (experiments/bench/
# quickstart.csv: CPU seconds, wall seconds and the load it ran under). Timings are the
# benchmark's; this checks that the two READMEs say what it measured, and the same.
# Usage (from ctest): e2e_quickstart_time.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
SRC="$2"
csv="$SRC/experiments/bench/quickstart.csv"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

[ -s "$csv" ] || { echo "FAIL: no $csv (run experiments/bench/quickstart.sh)"; exit 1; }
IFS=, read -r _ wall cpu cores load _ < <(sed -n 2p "$csv")
want="takes $cpu s of CPU, $wall s on $cores cores shared with other"
for readme in README.md experiments/README.md; do
    # the sentence may wrap: join the file's lines
    text="$(tr '\n' ' ' <"$SRC/$readme" | tr -s ' ')"
    grep -qF "$want" <<<"$text" || fail "$readme does not say '$want'"
    grep -qF "(load $load;" <<<"$text" || fail "$readme does not give the load $load"
done
finish e2e_quickstart_time
