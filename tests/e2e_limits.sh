#!/usr/bin/env bash
# e2e_limits.sh: runs too large for the memory limits in force are refused up front, and a
# simulation that dies anyway reaches the user as a message, not as SimGrid's abort.
#   1. Under `ulimit -v` (set in a subshell), ResNet-50 data parallelism on 8,192 GPUs (about
#      2.4 GB of address space: 256 KiB stacks) is refused, exit 2, naming the limit; 4,096 GPUs
#      (about 1.3 GB) complete. Before the check counted the stacks against ulimit -v, 8,192 GPUs
#      aborted inside SimGrid ("Failed to allocate stack", exit 134).
#   2. With --cfg contexts/stack-size:32 the same 8,192 GPUs fit under that limit and complete.
# Usage (from ctest): e2e_limits.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
source "$SRC/tests/lib_e2e.sh"
cd "$TMP" || exit 1
run=(simulate -w resnet50 -s data --row)
limit_kib=2000000 # 2.048 GB

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

finish e2e_limits
