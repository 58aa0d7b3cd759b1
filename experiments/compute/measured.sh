#!/usr/bin/env bash
# measured.sh: the compute column of every measured ABCI row (ResNet-50, Table VIII) against
# hybridsim's two ways of timing kernels: the measured per-sample times scaled linearly by the
# samples and the ways a layer is split (--compute measured, ParaDL's model), and the compute
# model at each GPU's real kernel shapes, anchored on the same measurement (--compute model).
# Epoch seconds of compute, from `hybridsim analytic` (the simulation's compute is the same).
# Usage: experiments/compute/measured.sh [HYBRIDSIM] [MEASURED.tsv]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
hs="${1:-${HYBRIDSIM:-$root/build/hybridsim}}"
tsv="${2:-$root/../shared/reference/measured/abci-resnet50-tableVIII.tsv}"
[ -x "$hs" ] || { echo "measured.sh: no hybridsim at $hs (build first)" >&2; exit 2; }
[ -f "$tsv" ] || { echo "measured.sh: no measured table at $tsv" >&2; exit 2; }
epoch_compute() {
    "$hs" analytic "$@" --json | python3 -c \
        'import json, sys; print("%.0f" % json.load(sys.stdin)["epoch"]["compute_s"])'
}
printf "%-18s %5s %10s %10s %10s %14s\n" strategy GPUs measured linear model "model/measured"
grep -v '^#' "$tsv" | while IFS=$'\t' read -r model strategy p p1 p2 batch emp_comp rest; do
    s="$strategy"
    case "$strategy" in data+*) s="$strategy:${p1}x${p2}" ;; esac
    run=(-w "$model" -p abci -s "$s" -g "$p" -b "$batch")
    linear=$(epoch_compute "${run[@]}" --compute measured)
    modelled=$(epoch_compute "${run[@]}" --compute model)
    printf "%-18s %5d %10.0f %10.0f %10.0f %14.2f\n" "$strategy" "$p" "$emp_comp" "$linear" \
        "$modelled" "$(python3 -c "print($modelled / $emp_comp)")"
done
