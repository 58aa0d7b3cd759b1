#!/usr/bin/env bash
# e2e_determinism.sh: `simulate` is deterministic: the same inputs give byte-identical JSON, for
# every strategy and both collective fidelities.
# Usage (from ctest): e2e_determinism.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
runs=(
    "serial 1 64" "data 64 4096" "spatial 4 64" "filter 16 64" "channel 16 64"
    "pipeline 4 256" "data+filter:16x4 64 1024" "data+spatial:4x4 16 1024"
)
for run in "${runs[@]}"; do
    read -r strategy gpus batch <<<"$run"
    for fidelity in flow step; do
        args=(simulate -w resnet50 -p abci -s "$strategy" -g "$gpus" -b "$batch" --collectives "$fidelity" --json)
        "$HS" "${args[@]}" >"$TMP/a.json" 2>"$TMP/err" && "$HS" "${args[@]}" >"$TMP/b.json" 2>>"$TMP/err"
        if [ $? -ne 0 ] || [ ! -s "$TMP/a.json" ]; then
            fail "$strategy $fidelity: run failed: $(cat "$TMP/err")"
        elif ! cmp -s "$TMP/a.json" "$TMP/b.json"; then
            fail "$strategy $fidelity: two runs differ"; diff "$TMP/a.json" "$TMP/b.json" | head -5
        fi
    done
done
finish e2e_determinism
