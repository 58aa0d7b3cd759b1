#!/usr/bin/env bash
# run.sh: installs what is missing, builds, and runs every test with ctest.
# Usage: tests/run.sh [--ci | --sanitize [--quick]] [extra ctest arguments, e.g. -R conformance]
#   --ci        what CI runs (.ci/run): the plain suite, then --sanitize --quick (whether or not
#               the plain one passed); the sanitized tree builds while the plain tests run
#               (nice 10: from the cores they leave idle); the sanitized e2e_import reads
#               and e2e_models read what the plain ones imported (HS_TEST_IMPORTED)
#   --sanitize  build into build-sanitize with AddressSanitizer, LeakSanitizer and
#               UndefinedBehaviorSanitizer (cmake -DHS_SANITIZE=ON; SimGrid's actors on threads)
#               and run the suite there: any report fails its test (exit status 99)
#   --quick     with --sanitize: every test but the four long ones (e2e_studies,
#               e2e_crosscheck, e2e_contention, e2e_fidelity: 156 runs, 10 minutes sanitized)
#               and e2e_signals (it times its interruptions
#               against a run's measured duration, which the sanitizers make erratic under
#               load), all of which the plain suite runs: what CI runs
set -euo pipefail
sanitize=0 quick=0 ci=0
while [ $# -gt 0 ]; do
    case "$1" in
        --ci) ci=1 ;;
        --sanitize) sanitize=1 ;;
        --quick) quick=1 ;;
        *) break ;;
    esac
    shift
done
[ "$quick" = 0 ] || [ "$sanitize" = 1 ] || { echo "run.sh: --quick goes with --sanitize" >&2; exit 2; }
[ "$ci" = 0 ] || [ "$sanitize" = 0 ] || { echo "run.sh: --ci runs --sanitize itself" >&2; exit 2; }
extra=() jobs="$(nproc)"
if [ "$sanitize" = 1 ]; then
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    export HS_BUILD="$root/build-sanitize" HS_CMAKE_FLAGS="-DHS_SANITIZE=ON"
    # A distinct exit status, so that a report is never taken for hybridsim's own 1 or 2.
    export ASAN_OPTIONS="exitcode=99:detect_leaks=1:abort_on_error=0"
    export UBSAN_OPTIONS="exitcode=99:print_stacktrace=1:halt_on_error=1"
    [ "$quick" = 0 ] ||
        extra=(-E '^(e2e_studies|e2e_crosscheck|e2e_contention|e2e_fidelity|e2e_signals)$')
    # One test more than cores: each simulation's actors are threads handing over through
    # futexes (half the CPU these tests spend is the kernel's), a core waiting on a wake-up
    # runs the extra test.
    jobs=$(($(nproc) + 1))
fi
source "$(dirname "${BASH_SOURCE[0]}")/../experiments/setup.sh"
if [ "$ci" = 1 ]; then
    # The sanitized build, in the background below the plain tests' priority; its output is
    # kept and shown only if it fails (the sanitized run's own setup finds it built).
    san_log="$HS_BUILD/sanitize-build.log"
    HS_BUILD="$HS_ROOT/build-sanitize" HS_CMAKE_FLAGS="-DHS_SANITIZE=ON" \
        nice -n 10 bash "$HS_ROOT/experiments/setup.sh" >"$san_log" 2>&1 &
    san_pid=$!
    # A plain failure does not stop the sanitized half: CI reports both, and fails if either did.
    plain_rc=0
    (cd "$HS_BUILD" && ctest --output-on-failure -j"$(nproc)" "$@") || plain_rc=$?
    wait "$san_pid" || { cat "$san_log" >&2; echo "run.sh: the sanitized build failed" >&2; exit 1; }
    echo "run.sh: the sanitized tree was built while the plain tests ran" >&2
    san_rc=0
    # The imports the plain e2e_import and e2e_models kept: the sanitized ones run hybridsim on
    # them, without importing again (torch is Python, which the sanitizers do not watch).
    HS_TEST_IMPORTED="$HS_BUILD/tests/imported" \
        bash "$HS_ROOT/tests/run.sh" --sanitize --quick "$@" || san_rc=$?
    [ "$plain_rc" = 0 ] || echo "run.sh: the plain suite failed (ctest exit $plain_rc)" >&2
    exit $((plain_rc != 0 ? plain_rc : san_rc))
fi
cd "$HS_BUILD"
ctest --output-on-failure -j"$jobs" "${extra[@]}" "$@"
