#!/usr/bin/env bash
# run.sh: installs what is missing, builds, and runs every test with ctest.
# Usage: tests/run.sh [--sanitize [--quick]] [extra ctest arguments, e.g. -R conformance]
#   --sanitize  build into build-sanitize with AddressSanitizer, LeakSanitizer and
#               UndefinedBehaviorSanitizer (cmake -DHS_SANITIZE=ON; SimGrid's actors on threads)
#               and run the suite there: any report fails its test (exit status 99)
#   --quick     with --sanitize: every test but the four long ones (e2e_studies,
#               e2e_crosscheck, e2e_contention, e2e_fidelity: 156 runs, 10 minutes sanitized)
#               and e2e_signals (it times its interruptions
#               against a run's measured duration, which the sanitizers make erratic under
#               load), all of which the plain suite runs: what CI runs
set -euo pipefail
sanitize=0 quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --sanitize) sanitize=1 ;;
        --quick) quick=1 ;;
        *) break ;;
    esac
    shift
done
[ "$quick" = 0 ] || [ "$sanitize" = 1 ] || { echo "run.sh: --quick goes with --sanitize" >&2; exit 2; }
extra=()
if [ "$sanitize" = 1 ]; then
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    export HS_BUILD="$root/build-sanitize" HS_CMAKE_FLAGS="-DHS_SANITIZE=ON"
    # A distinct exit status, so that a report is never taken for hybridsim's own 1 or 2.
    export ASAN_OPTIONS="exitcode=99:detect_leaks=1:abort_on_error=0"
    export UBSAN_OPTIONS="exitcode=99:print_stacktrace=1:halt_on_error=1"
    [ "$quick" = 0 ] ||
        extra=(-E '^(e2e_studies|e2e_crosscheck|e2e_contention|e2e_fidelity|e2e_signals)$')
fi
source "$(dirname "${BASH_SOURCE[0]}")/../experiments/setup.sh"
cd "$HS_BUILD"
ctest --output-on-failure -j"$(nproc)" "${extra[@]}" "$@"
