#!/usr/bin/env bash
# run.sh: fuzz every parser of hybridsim with libFuzzer (tests/fuzz/README.md): builds
# build-fuzz with clang (AddressSanitizer, UndefinedBehaviorSanitizer, libFuzzer), then runs each
# harness for SECONDS, one after the other, starting from its kept inputs (tests/fuzz/NAME/,
# read only) and the corpus of earlier runs (experiments/out/fuzz/NAME/corpus/, grown). A crash
# leaves its input in experiments/out/fuzz/NAME/crashes/: fix the bug, copy the input into
# tests/fuzz/NAME/ (ctest's fuzz_NAME then replays it in every build), rerun.
# Usage: experiments/fuzz/run.sh SECONDS [NAME ...]   (default: every tests/fuzz/fuzz_*.c)
# Environment: FUZZ_NICE (default 19, the machine is shared), FUZZ_FLAGS (more libFuzzer flags).
# Exit status: 0 no crash, 1 a crash (listed), 2 bad usage.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[ $# -ge 1 ] && [[ "$1" =~ ^[1-9][0-9]*$ ]] || {
    echo "usage: experiments/fuzz/run.sh SECONDS [NAME ...]" >&2; exit 2; }
seconds="$1"
shift
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in "$root"/tests/fuzz/fuzz_*.c; do n="$(basename "$f" .c)"; names+=("${n#fuzz_}"); done
fi
for n in "${names[@]}"; do
    [ -f "$root/tests/fuzz/fuzz_$n.c" ] || { echo "run.sh: no harness tests/fuzz/fuzz_$n.c" >&2; exit 2; }
done
# clang, and libFuzzer with the sanitizers' runtimes, which Debian's clang only recommends.
missing=()
for pkg in clang libclang-rt-14-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "fuzz: installing ${missing[*]}" >&2
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null ||
        { echo "run.sh: needs ${missing[*]} (apt-get install ${missing[*]})" >&2; exit 2; }
fi

build="$root/build-fuzz"
echo "fuzz: building $build (clang, ASan, UBSan, libFuzzer)" >&2
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DHS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=()
for n in "${names[@]}"; do targets+=("fuzz_$n"); done
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >&2

out="$root/experiments/out/fuzz"
crashed=()
for n in "${names[@]}"; do
    dir="$out/$n"
    mkdir -p "$dir/corpus" "$dir/crashes"
    echo "fuzz: $n for $seconds s" >&2
    # shellcheck disable=SC2086
    if ! (cd "$dir" && nice -n "${FUZZ_NICE:-19}" "$build/tests/fuzz_$n" \
            -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=65536 \
            -print_final_stats=1 -artifact_prefix="$dir/crashes/" ${FUZZ_FLAGS:-} \
            "$dir/corpus" "$root/tests/fuzz/$n" >"$dir/log" 2>&1); then
        crashed+=("$n")
    fi
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "$dir/log" | tr '\n' ' ' >&2
    echo >&2
done
if [ ${#crashed[@]} -gt 0 ]; then
    for n in "${crashed[@]}"; do
        echo "fuzz: $n CRASHED: $(ls "$out/$n/crashes" | head -5 | tr '\n' ' ') (log: $out/$n/log)"
        grep -m3 -E "ERROR|SUMMARY|runtime error|deadly" "$out/$n/log" || true
    done
    exit 1
fi
echo "fuzz: ${#names[@]} harnesses, $seconds s each: no crash"
