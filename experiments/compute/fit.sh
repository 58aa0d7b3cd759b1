#!/usr/bin/env bash
# fit.sh: fits the kernel-time model's efficiencies (workloads/compute/compute.h) on Baidu
# DeepBench's measured GEMM and convolution kernels (../shared/reference/measured/deepbench-
# {V100,P100,T4}.tsv, FP32 and FP16), a fixed quarter held out, and prints the parameters and
# the error distribution on the held-out kernels (fit.c says how). The parameters it finds are
# the ones committed in workloads/compute/kernel_time.c; `--check` exits 1 when they differ
# (ctest runs that; 77 without the shared data). `--dump FILE.tsv` writes every kernel with the
# model's terms (experiments/validation/run.sh reads it).
# Usage: fit.sh [BUILD_DIR] [--check] [--data DIR] [--dump FILE.tsv]
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
