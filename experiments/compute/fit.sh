#!/usr/bin/env bash
# fit.sh: fits the kernel-time model's efficiencies (workloads/compute/compute.h) on Baidu
# DeepBench's measured GEMM and convolution kernels (../shared/reference/measured/deepbench-
# {V100,P100,T4}.tsv, FP32 and FP16), a fixed quarter held out, and prints the parameters and
# the error distribution on the held-out kernels (fit.c says how), then the errors on every FP32
# kernel of five older NVIDIA GPUs it never fits on (1080 Ti, Titan X Pascal, Titan Xp, Titan X
# Maxwell, M40: deepbench-<GPU>.tsv), per GPU and pass. The parameters it finds are
# the ones committed in workloads/compute/kernel_time.c; `--check` exits 1 when they differ
# (ctest runs that; 77 without the shared data). `--dump FILE.tsv` writes every kernel with the
# model's terms and its part, fitted, held-out or unseen (experiments/validation/run.sh reads it).
# `--mechanisms LIST` fits with opt-in refinements (strided-dgrad, winograd-gemm, channel-k-tile,
# cudnn-tiles, wgrad-cudnn, no-split-k, strided-reads: the model's, compute.h; old-cudnn-call:
# the fit's, fit.c) and prints the same report; not with --check.
# Usage: fit.sh [BUILD_DIR] [--check] [--data DIR] [--dump FILE.tsv] [--mechanisms LIST]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    build=$1
    shift
fi
[ -f "$build/CMakeCache.txt" ] ||
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target compute_fit >/dev/null
HYBRIDSIM_HOME=$root "$build/compute_fit" "$@"
