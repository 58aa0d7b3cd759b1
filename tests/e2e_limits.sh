#!/usr/bin/env bash
# e2e_limits.sh: runs too large for the memory limits in force are refused up front, and a
# simulation that dies anyway reaches the user as a message, not as SimGrid's abort.
#   1. Under `ulimit -v` (set in a subshell), ResNet-50 data parallelism on 8,192 GPUs (about
#      2.4 GB of address space: 256 KiB stacks) is refused, exit 2, naming the limit; 4,096 GPUs
#      (about 1.3 GB) complete. Before the check counted the stacks against ulimit -v, 8,192 GPUs
#      aborted inside SimGrid ("Failed to allocate stack", exit 134).
#   2. With --cfg contexts/stack-size:32 the same 8,192 GPUs fit under that limit and complete.
#   3. A hybridsim-sim that dies as SimGrid does (abort, crash, its out-of-memory words) gives one
#      message and exit 1, nothing of SimGrid's; one that refuses a run is relayed as it was.
#   4. Under the smallest ulimit -v the front door runs with, hybridsim-sim cannot load: the same.
# Usage (from ctest): e2e_limits.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
source "$SRC/tests/lib_e2e.sh"
cd "$TMP" || exit 1
run=(simulate -w resnet50 -s data --row)
limit_kib=2000000 # 2.048 GB

# A sanitized build maps terabytes of shadow memory (it cannot start under ulimit -v) and relays
# all its child prints (its reports are what it is for): skipped there, exit 77.
if ! (ulimit -v "$limit_kib" && exec "$HS" --version) >/dev/null 2>&1; then
    echo "SKIP: hybridsim does not start under ulimit -v $limit_kib (a sanitized build)"
    exit 77
fi

# ---- 1. over the address-space limit: refused with the limit named; under it: completes ----
(ulimit -v "$limit_kib" && exec "$HS" "${run[@]}" -p gen:abci:nodes=2048 -g 8192 -b 8192) \
    >over.out 2>over.err
rc=$?
[ "$rc" -eq 2 ] || fail "8192 GPUs under ulimit -v $limit_kib: exit $rc, not 2: $(head -3 over.err)"
grep -qE "simulating 8192 GPUs needs about [0-9.]+ GB of address space; the address-space limit \
\(ulimit -v\) is 2\.0 GB" over.err || fail "8192 GPUs over the limit: message: $(head -3 over.err)"
[ ! -s over.out ] || fail "8192 GPUs over the limit: wrote to stdout"
grep -q "Backtrace\|CRITICAL" over.err && fail "8192 GPUs over the limit: SimGrid's output shown"

(ulimit -v "$limit_kib" && exec "$HS" "${run[@]}" -p gen:abci:nodes=1024 -g 4096 -b 4096) \
    >under.out 2>under.err
rc=$?
[ "$rc" -eq 0 ] || fail "4096 GPUs under ulimit -v $limit_kib: exit $rc: $(head -3 under.err)"
grep -q "^simulate data *4096 4096 " under.out || fail "4096 GPUs: no row: $(cat under.out)"

# ---- 2. smaller stacks (the message's advice): 8,192 GPUs fit the same limit ----
(ulimit -v "$limit_kib" && exec "$HS" "${run[@]}" -p gen:abci:nodes=2048 -g 8192 -b 8192 \
    --cfg contexts/stack-size:32) >small.out 2>small.err
rc=$?
[ "$rc" -eq 0 ] || fail "8192 GPUs, 32 KiB stacks: exit $rc: $(head -3 small.err)"
grep -q "^simulate data *8192 8192 " small.out || fail "32 KiB stacks: no row: $(cat small.out)"

# ---- 3. a simulation that dies anyway: hybridsim (the front door) runs hybridsim-sim beside
# it as a child; a copy of hybridsim beside a stand-in that prints what SimGrid prints when it
# aborts and dies by the signal. The user sees one message and exit 1, nothing of SimGrid's
# (before: hybridsim exec'd hybridsim-sim in place, so its abort reached the user: exit 134) ----
mkdir fake
cp "$HS" fake/hybridsim
stand_in() { # stand_in SIGNAL|exit:N LINE...: a hybridsim-sim that says LINEs on stderr, then ends
    local how="$1"
    shift
    printf '%s\n' "$@" >fake/lines
    case "$how" in
    exit:*) end="exit ${how#exit:}" ;;
    *) end="kill -$how \$\$" ;;
    esac
    printf '#!/bin/sh\ncat "$(dirname "$0")/lines" >&2\n%s\n' "$end" >fake/hybridsim-sim
    chmod +x fake/hybridsim-sim
}
small=(simulate -w resnet50 -p abci -s data -g 4 -b 64)
stand_in ABRT "[0.000000] ./src/kernel/context/ContextSwapped.cpp:104: [root/CRITICAL] Failed \
to allocate stack." "Backtrace (displayed in actor maestro):" "  ->  0# 0x00007FE0A343DFD0 in x"
(ulimit -c 0; exec fake/hybridsim "${small[@]}") >abrt.out 2>abrt.err
rc=$?
[ "$rc" -eq 1 ] || fail "SimGrid's abort: exit $rc, not 1"
grep -qF "hybridsim: the simulation ran out of memory (hybridsim-sim stopped by SIGABRT" abrt.err ||
    fail "SimGrid's abort: message: $(cat abrt.err)"
grep -q "Backtrace\|CRITICAL\|->" abrt.err &&
    fail "SimGrid's abort: its output shown: $(cat abrt.err)"
[ "$(wc -l <abrt.err)" -eq 1 ] || fail "SimGrid's abort: more than one line: $(cat abrt.err)"

stand_in SEGV "suggest: simulating 1 of 2" "Access violation or Bus error detected."
(ulimit -c 0; exec fake/hybridsim "${small[@]}") >segv.out 2>segv.err
rc=$?
[ "$rc" -eq 1 ] || fail "a crash: exit $rc, not 1"
grep -qF "suggest: simulating 1 of 2" segv.err ||
    fail "a crash: progress line lost: $(cat segv.err)"
grep -qF "the simulation failed (hybridsim-sim stopped by SIGSEGV without saying why" segv.err ||
    fail "a crash: message: $(cat segv.err)"
grep -q "Access violation" segv.err && fail "a crash: SimGrid's output shown"

stand_in exit:2 "[0.1] something of SimGrid's" "hybridsim: -b 3: a bad batch"
fake/hybridsim "${small[@]}" >bad.out 2>bad.err
rc=$?
[ "$rc" -eq 2 ] || fail "a refusal through the child: exit $rc, not 2"
want="$(printf '%s\n' "[0.1] something of SimGrid's" "hybridsim: -b 3: a bad batch")"
[ "$(cat bad.err)" = "$want" ] ||
    fail "a refusal through the child: stderr not relayed whole and in order: $(cat bad.err)"

stand_in exit:1 "[0.000000] [xbt/CRITICAL] Memory callocation failed"
fake/hybridsim "${small[@]}" >exit1.out 2>exit1.err
rc=$?
[ "$rc" -eq 1 ] || fail "SimGrid's exit 1: exit $rc"
grep -qF "the simulation ran out of memory (hybridsim-sim ended with exit status 1" exit1.err ||
    fail "SimGrid's exit 1: message: $(cat exit1.err)"

# ---- 4. a real child that cannot start: under the smallest address-space limit that lets the
# front door run, hybridsim-sim cannot even map its libraries: one message, exit 1 (or the run
# completes or is refused, where the window is not there); never the loader's or SimGrid's
# words (before: "error while loading shared libraries", exit 127) ----
for kib in $(seq 20000 10000 300000); do # the smallest under which the front door runs
    (ulimit -v "$kib" && exec "$HS" --version) >/dev/null 2>&1 && break
done
(ulimit -v "$kib" && exec "$HS" "${small[@]}") >tiny.out 2>tiny.err
rc=$?
case "$rc" in
0 | 2) ;;
1) grep -qF "hybridsim: the simulation ran out of memory" tiny.err ||
    fail "ulimit -v $kib: exit 1: $(cat tiny.err)" ;;
*) fail "ulimit -v $kib: exit $rc: $(cat tiny.err)" ;;
esac
grep -q "error while loading\|Backtrace\|CRITICAL" tiny.err &&
    fail "ulimit -v $kib: the loader's or SimGrid's words shown: $(cat tiny.err)"

finish e2e_limits
