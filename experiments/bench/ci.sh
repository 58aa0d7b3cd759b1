#!/usr/bin/env bash
# ci.sh: times what CI runs (.ci/run) on a clean clone and prints where the time goes: per phase
# (packages, configure and build, tests; plain then sanitized), the longest tests of each half,
# each half's summed test time, the whole, and the CPU the whole run spent (user + system time
# of every process it waited for: what the machine's other work does not change, where wall
# times stretch with the load). A benchmark, never a test: run it with `nice`.
# Usage: experiments/bench/ci.sh [--keep] [COMMIT]   (default HEAD of this checkout)
#   The commit is cloned into a temporary folder with ../shared beside it (a symlink to this
#   checkout's ../shared, as CI has it), .ci/run runs there, every line of its output stamped
#   with the time it arrived; --keep leaves the clone (and ci.log) for a look.
# The whole script is one block, read before it runs: editing this file meanwhile (it runs for
# many minutes) cannot derail it.
{
set -euo pipefail
keep=0
[ "${1:-}" = --keep ] && { keep=1; shift; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
commit="$(git -C "$root" rev-parse "${1:-HEAD}")" ||
    { echo "ci.sh: '${1:-HEAD}' is not a commit of $root" >&2; exit 2; }
work="$(mktemp -d)"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
git clone -q --no-checkout "$root" "$work/hybridsim"
git -C "$work/hybridsim" checkout -q "$commit"
[ -e "$root/../shared" ] && ln -s "$(cd "$root/../shared" && pwd)" "$work/shared"

# Every line with the seconds since the start (stdout and stderr together, in order). The load
# average before and after says how much else the machine ran meanwhile (figures scale with it).
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
start="${EPOCHREALTIME/./}"
set +e
(cd "$work/hybridsim" && /usr/bin/time -f '%U %S' -o "$work/cpu" bash .ci/run 2>&1) | while IFS= read -r line; do
    t=$((${EPOCHREALTIME/./} - start))
    printf '%d.%06d %s\n' $((t / 1000000)) $((t % 1000000)) "$line"
done >"$work/ci.log"
rc="${PIPESTATUS[0]}"
set -e
end="$(awk 'END { print $1 }' "$work/ci.log")"

# Phases from the markers: setup.sh's "setup: building" (packages checked or installed before
# it), ctest's "Test project" and "Total Test time". Half 1 is plain, half 2 sanitized; the
# sanitized tree builds while the plain tests run (tests/run.sh --ci, its output kept): the
# wait for it after the plain tests ends at run.sh's "built while" line, and half 2's
# configure+build is what is left of it then.
awk -v end="$end" '
    / run.sh: the sanitized tree was built / { wait_end = $1 }
    / setup: building hybridsim in / { h++; build[h] = $1; pk[h] = (h == 1) ? 0 : tend[h - 1]
        if (h == 2 && wait_end) { waited = wait_end - tend[1]; pk[h] = wait_end } }
    / Test project / { tstart[h] = $1 }
    / Total Test time / { tend[h] = $1 }
    / Test +#[0-9]+: / && / sec$/ {
        name = $0; sub(/.*Test +#[0-9]+: /, "", name); sub(/ .*/, "", name)
        secs = $(NF - 1); sum[h] += secs; n[h]++; print h, secs, name > "/dev/stderr" }
    END {
        label[1] = "plain"; label[2] = "sanitized"
        for (i = 1; i <= h; i++) {
            printf "%-9s packages %6.1f s  configure+build %6.1f s  tests %6.1f s wall (%d tests, %.1f s summed)\n",
                label[i], build[i] - pk[i], tstart[i] - build[i], tend[i] - tstart[i], n[i], sum[i]
        }
        if (wait_end)
            printf "the sanitized build, in the background, ended %.1f s after the plain tests\n", waited
        printf "whole     %.1f s\n", end
    }' "$work/ci.log" 2>"$work/tests.txt"
for h in 1 2; do
    label=plain
    [ "$h" = 2 ] && label=sanitized
    echo "longest $label tests (s):"
    awk -v h="$h" '$1 == h { print $2, $3 }' "$work/tests.txt" | sort -g -r | head -12 |
        awk '{ printf "  %8.2f %s\n", $1, $2 }'
done
# (the last line: time writes "Command exited with non-zero status N" before it on a failure)
tail -n 1 "$work/cpu" | awk -v n="$(nproc)" '{ printf "cpu       %.1f s (user %.1f s + system %.1f s): %.1f s on %d cores\n", $1 + $2, $1, $2, ($1 + $2) / n, n }'
echo "load average (1, 5, 15 min) before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo ".ci/run exit status $rc$([ "$keep" = 1 ] && echo ", kept in $work")"
exit "$rc"
}
