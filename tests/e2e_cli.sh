#!/usr/bin/env bash
# e2e_cli.sh: the command line's contract: bad input of every kind gives exit status 2, a message
# on stderr naming the flag or file, and nothing on stdout; good input gives a table or JSON.
# Usage (from ctest): e2e_cli.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

base=(-w resnet50 -p abci)
expect_bad_hs "no command" "usage"
expect_bad_hs "unknown command" "unknown command 'simulat'" simulat "${base[@]}" -s data -g 4 -b 64
expect_bad_hs "unknown flag" "--frobnicate" analytic "${base[@]}" -s data -g 4 -b 64 --frobnicate
expect_bad_hs "missing -g" "-g GPUS is required" analytic "${base[@]}" -s data -b 64
expect_bad_hs "missing -w" "-w WORKLOAD is required" analytic -p abci -s data -g 4 -b 64
# a value that starts with '-' but is no flag stays the value (hs_parse_whole_flag refuses
# only the command's own flags): a negative number is checked as one; '-' is standard output
expect_bad_hs "negative value" "-g: -1 is out of range" analytic "${base[@]}" -s data -g -1 \
    -b 64
# '-' as an output: standard output where the file is all the command prints (its messages
# then on stderr), no file named '-' made; ./- is one
dash() { # NAME ARGS...: run in $TMP/dash, stdout to NAME.out, stderr to NAME.err
    local name=$1
    shift
    (cd "$TMP/dash" && "$HS" "$@" >"$name.out" 2>"$name.err") ||
        fail "$name: exit $?: $(cat "$TMP/dash/$name.err")"
}
mkdir -p "$TMP/dash"
dash generate strategy --generate data -w resnet50 -g 8 -b 256 -o -
dash generate-file strategy --generate data -w resnet50 -g 8 -b 256 -o ./-
cmp -s "$TMP/dash/generate.out" "$TMP/dash/-" || fail "strategy --generate -o - is not -o ./-"
grep -q "^wrote standard output: data for resnet50 on 8 GPUs" "$TMP/dash/generate.err" ||
    fail "strategy --generate -o -: $(cat "$TMP/dash/generate.err")"
rm -f "$TMP/dash/-"
dash platform platform --preset dgx1 --nodes 2 -o -
dash platform-stdout platform --preset dgx1 --nodes 2
cmp -s "$TMP/dash/platform.out" "$TMP/dash/platform-stdout.out" ||
    fail "platform -o - is not platform's standard output"
dash emit sweep -m analytic -w resnet50 -p abci -s data -g 4,8 -b 256 --emit parallel - \
    --emit-dir rows
[ "$(wc -l <"$TMP/dash/emit.out")" = 2 ] || fail "--emit parallel -: $(cat "$TMP/dash/emit.out")"
(cd "$TMP/dash" && bash emit.out) || fail "the jobs --emit parallel - printed"
dash merge sweep --merge rows -o -
dash log sweep -m analytic -w resnet50 -p abci -s data -g 4,8 -b 256 -o direct.csv --log -
[ "$(strip_wall "$TMP/dash/merge.out")" = "$(strip_wall "$TMP/dash/direct.csv")" ] ||
    fail "--merge rows -o - is not the sweep's CSV"
[ "$(cut -f1 "$TMP/dash/log.out")" = "$(tail -n +2 "$TMP/dash/direct.csv" | cut -d, -f1)" ] ||
    fail "--log -: $(cat "$TMP/dash/log.out")"
[ ! -e "$TMP/dash/-" ] || fail "an output '-' made a file named '-'"
# a search's output path is checked before it prices anything (hs_out_check)
expect_bad_hs "search -o a directory" "-o $TMP: is a directory" strategy --search -w alexnet \
    -g 4 -b 64 --analytic-only -o "$TMP"
! grep -q "pricing every strategy" "$TMP/err" || fail "search -o a directory: searched first"
expect_bad_hs "non-numeric -g" "-g: 'four'" analytic "${base[@]}" -s data -g four -b 64
expect_bad_hs "trailing junk -b" "-b: '64x'" analytic "${base[@]}" -s data -g 4 -b 64x
expect_bad_hs "zero gpus" "-g: 0 is out of range" analytic "${base[@]}" -s data -g 0 -b 64
# a job key given twice (issue 29 point 7), in every command that reads the table of job keys
expect_bad_hs "-g twice" "-g is given twice" analytic "${base[@]}" -s data -g 4 -g 8 -b 64
expect_bad_hs "--gpus after -g" "-g is given twice" simulate "${base[@]}" -s data -g 4 -b 64 --gpus 8
expect_bad_hs "--precision twice" "--precision is given twice" analytic "${base[@]}" -s data -g 4 \
    -b 64 --precision mixed --precision fp32
expect_bad_hs "suggest -b twice" "-b is given twice" suggest -w resnet50 -g 4 -b 64 -b 128
expect_bad_hs "search -g twice" "-g is given twice" strategy --search -w resnet50 -g 4 -g 8 -b 64
expect_bad_hs "sweep -g twice" "-g is given twice" sweep "${base[@]}" -s data -g 4 -g 8 -b 64 -o x.csv
expect_bad_hs "--job g= twice" "--job 1: g is given twice" simulate -p abci \
    --job "w=resnet50,s=data,g=4,b=64,g=8"
expect_bad_hs "generate -g twice" "-g is given twice" strategy --generate owt -w alexnet -g 4 \
    --gpus=8 -b 64 -o x.xml
expect_bad_hs "generator key twice" "nodes= is given twice" analytic \
    "${base[@]/abci/gen:abci:nodes=4,nodes=8}" -s data -g 8 -b 64
expect_bad_hs "platform flag twice" "--nodes is given twice" platform --nodes 4 --nodes=8 -o x.xml
expect_bad_hs "too large" "-g: 2147483648 is too large (at most 2147483647)" analytic "${base[@]}" \
    -s data -g 2147483648 -b 64
expect_bad_hs "--job too large" "--job 1: b: 9999999999999999999 is too large" simulate -p abci \
    --job "w=resnet50,s=data,g=4,b=9999999999999999999"
expect_bad_hs "missing workload file" "nosuch.xml" analytic -w "$TMP/nosuch.xml" -p abci -s data -g 4 -b 64
expect_bad_hs "unknown workload name" "resnet51" analytic -w resnet51 -p abci -s data -g 4 -b 64
expect_bad_hs "missing platform file" "nosuch-platform.xml" analytic -w resnet50 -p "$TMP/nosuch-platform.xml" -s data -g 4 -b 64
printf '<?xml version="1.0"?>\n<platform version="4.1">\n<zone id="x" routing="Full">\n</platform>\n' >"$TMP/bad-platform.xml"
expect_bad_hs "malformed platform" "bad-platform.xml:4" analytic -w resnet50 -p "$TMP/bad-platform.xml" -s data -g 4 -b 64
printf '<?xml version="1.0"?>\n<workload>\n<dataset name="x"\n</workload>\n' >"$TMP/bad-workload.xml"
expect_bad_hs "malformed workload" "bad-workload.xml:" analytic -w "$TMP/bad-workload.xml" -p abci -s data -g 4 -b 64
expect_bad_hs "missing layer file" "nosuch.lc" analytic "${base[@]}" -s filter -g 4 -b 64 --layers "$TMP/nosuch.lc"
expect_bad_hs "unknown strategy" "hybrid" analytic "${base[@]}" -s hybrid -g 4 -b 64
expect_bad_hs "hybrid shape" "8x4" analytic "${base[@]}" -s data+filter:8x4 -g 16 -b 64
expect_bad_hs "more GPUs than the platform" "4352" analytic "${base[@]}" -s data -g 5000 -b 5000
expect_bad_hs "batch does not divide" "-b" analytic "${base[@]}" -s data -g 64 -b 100
expect_bad_hs "data beyond p <= B" "-g" analytic "${base[@]}" -s data -g 128 -b 64
expect_bad_hs "filter beyond min F" "-g" analytic "${base[@]}" -s filter -g 128 -b 64
expect_bad_hs "unknown fidelity" "--collectives" simulate "${base[@]}" -s data -g 4 -b 64 --collectives exact
expect_bad_hs "unknown placement" "--placement" simulate "${base[@]}" -s data -g 4 -b 64 --placement random

expect_ok "help" --help && grep -q "hybridsim analytic" "$TMP/out" || fail "help text"
if expect_ok "analytic table" analytic "${base[@]}" -s data -g 64 -b 4096; then
    grep -q "per epoch" "$TMP/out" || fail "table has no epoch row"
fi
# ParaDL's headline figure in its own kernels (the measured per-sample times)
if expect_ok "analytic json" analytic "${base[@]}" -s data -g 1024 -b 65536 --compute measured \
    --json; then
    if command -v python3 >/dev/null; then
        python3 - "$TMP/out" <<'PY' || fail "analytic json: the numbers"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("mode", "workload", "platform", "strategy", "gpus", "p1", "p2", "batch",
          "iterations_per_epoch", "iteration", "epoch", "memory_per_gpu_bytes", "fits_in_memory"):
    assert k in d, "json lacks " + k
assert abs(d["epoch"]["compute_s"] - 3.90) < 0.005, d["epoch"]
assert abs(d["epoch"]["comm_s"] - 1.56) < 0.005, d["epoch"]
PY
    fi
fi

# --cfg's help names only the settings --cfg takes (issue 28.4: it cited maxmin/... and
# tracing..., which it refuses): each named is taken (a bad value is refused as a value), and
# at least the contexts ones are named.
cfg_names="$("$HS" --help | awk '/--cfg NAME:VALUE/ { on = 1 } on && /\(hybridsim sets/ { on = 0 }
    on { print }' | sed 's/.*passes on://' | tr ',' '\n' | grep -o '[a-z-]*/[a-z-]*')"
[ "$(wc -l <<<"$cfg_names")" -ge 4 ] || fail "cfg help: lists '$cfg_names'"
for name in $cfg_names; do
    "$HS" simulate -w resnet50 -p abci -s data -g 4 -b 64 --cfg "$name:no-such-value" \
        >/dev/null 2>"$TMP/err"
    if grep -q "not a setting hybridsim passes on" "$TMP/err"; then
        fail "cfg help: --help names $name, which --cfg refuses"
    fi
done

finish e2e_cli
