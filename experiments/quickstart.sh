#!/usr/bin/env bash
# quickstart.sh: installs what is missing, builds, and runs the default study:
# ResNet-50 on ABCI at 64 GPUs, every strategy, analytic model and simulation side by side.
# Then the small study from the same runs: analytic vs simulated per strategy and one plot.
# Usage: experiments/quickstart.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh" >/dev/null
HS="$HS_BUILD/hybridsim"

# strategy and global batch: 64 samples per GPU for data parallelism, 64 per node for the
# hybrids (as the ParaDL study), the batch of one GPU for the pure model-parallel strategies.
runs=(
    "serial 1 64"
    "data 64 4096"
    "spatial 64 64"
    "filter 64 64"
    "channel 64 64"
    "pipeline 64 1024"
    "data+filter:16x4 64 1024"
    "data+spatial:16x4 64 4096"
)

rows="$(mktemp "${TMPDIR:-/tmp}/hybridsim-quickstart-XXXXXX")"
trap 'rm -f "$rows"' EXIT
echo "ResNet-50 on ABCI (platforms/abci.xml), seconds per epoch; one line per mode"
"$HS" analytic -w resnet50 -p abci -s data -g 64 -b 4096 --row-header | head -1
for run in "${runs[@]}"; do
    read -r strategy gpus batch <<<"$run"
    for mode in analytic simulate; do
        if ! "$HS" "$mode" -w resnet50 -p abci -s "$strategy" -g "$gpus" -b "$batch" --row \
            2>/tmp/hybridsim-quickstart.err | tee -a "$rows"; then
            printf '%-8s %-16s %5s  not run: %s\n' "$mode" "$strategy" "$gpus" \
                "$(tr '\n' ' ' </tmp/hybridsim-quickstart.err)"
        fi
    done
done

# The small study: the rows above side by side, and the plot (experiments/out/ is not tracked).
"$HS_ROOT/experiments/lib/quickstudy.sh" "$rows" "$HS_ROOT/experiments/out/quickstart" \
    "$HS_ROOT/../shared/reference/measured/abci-resnet50-tableVIII.tsv"
