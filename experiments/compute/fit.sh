#!/usr/bin/env bash
# fit.sh: fits the kernel-time model (workloads/compute/compute.h) once, on the per-sample times
# the shipped workloads measured on one V100, and prints the parameters, each workload's error,
# the leave-one-out errors and where each workload's modelled time goes. The parameters it finds
# are the ones committed in kt_fitted() (workloads/compute/kernel_time.c); `--check` exits 1
# when they differ (ctest runs that). Usage: fit.sh [BUILD_DIR] [--check] [--free P1,P2,..]
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
