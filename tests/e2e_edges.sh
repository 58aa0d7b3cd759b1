#!/usr/bin/env bash
# e2e_edges.sh: runs at their edges: two sweeps sharing -o (the second refused while the first
# holds the CSV, no row lost); inputs that never end (bounded, refused naming the file); a
# signal while a sweep's --log is a FIFO (the signal's exit status); runs refused with exit 2
# write nothing; a row of unknown status; a list of repeated values; -l naming a directory; an
# interrupted simulate naming every output it has not written.
# Usage (from ctest): e2e_edges.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
source "$SRC/tests/lib_e2e.sh"
cd "$TMP" || exit 1
rows() { tail -n +2 "$1" | wc -l; }
an=(-m analytic -w resnet50 -p abci -s data --batch-per-gpu 32)

# ---- two sweeps, one -o: the first holds the CSV while it waits to open its --log (a FIFO
# nobody reads yet), the second is refused naming the CSV; then both complete: 16 rows ----
mkfifo first.log
timeout 120 "$HS" sweep "${an[@]}" -g 1,2,4,8,16,32,64,128 -o shared.csv --log first.log \
    --quiet 2>first.err &
first=$!
wait_fifo_open "$first" || fail "the first sweep never waited for its --log"
timeout 60 "$HS" sweep "${an[@]}" -g 256,512,1024,2048,3,6,12,24 -o shared.csv --quiet \
    >second.out 2>second.err
rc=$?
[ "$rc" -eq 2 ] || fail "second sweep on a shared -o: exit $rc, not 2"
grep -qF "shared.csv: another sweep is writing it" second.err ||
    fail "second sweep: message: $(cat second.err)"
timeout 60 cat first.log >/dev/null
wait "$first" || fail "first sweep: exit $?: $(cat first.err)"
timeout 60 "$HS" sweep "${an[@]}" -g 256,512,1024,2048,3,6,12,24 -o shared.csv --quiet ||
    fail "second sweep, run again: exit $?"
[ "$(rows shared.csv)" -eq 16 ] || fail "shared -o: $(rows shared.csv) rows, expected 16"
left="$(find . -name 'shared.csv?*')"
[ -z "$left" ] || fail "shared -o: left behind: $left"

# ---- inputs that never end or are not text: refused naming the file, exit 2, within the
# timeout (before the change: a sweep file from /dev/zero grew without bound, -w and -l on
# NUL bytes spun forever, -l DIR said "the file ends after 0 entries") ----
hs_args=(-p abci -s filter -g 4 -b 64)
mkfifo endless.sweep
(yes '# a comment' >endless.sweep 2>/dev/null &)
expect_bad "a sweep file that never ends" "endless.sweep: longer than 16 MiB, the limit" \
    timeout 60 "$HS" sweep endless.sweep -o never.csv
head -c 65536 /dev/zero >nuls.net
printf 'workloads = resnet50\n\0\n' >nul.sweep
expect_bad "a sweep file with a NUL byte" "nul.sweep:2: a NUL byte: not a text file" \
    timeout 60 "$HS" sweep nul.sweep -o never.csv
expect_bad "-w on NUL bytes" "nuls.net:1: a NUL byte: not a text file" \
    timeout 60 "$HS" analytic -w ./nuls.net "${hs_args[@]}"
expect_bad "-l on NUL bytes" "nuls.net:1: a NUL byte: not a text file" \
    timeout 60 "$HS" analytic -w resnet50 "${hs_args[@]}" -l nuls.net
mkdir layers.d
expect_bad "-l a directory" "layers.d: read error: Is a directory" \
    timeout 60 "$HS" analytic -w resnet50 "${hs_args[@]}" -l layers.d
if mknod zero c 1 5 2>/dev/null; then # a private endless device of NUL bytes
    expect_bad "a sweep file from a zero device" "zero:1: a NUL byte" \
        timeout 60 "$HS" sweep zero -o never.csv
    expect_bad "-w on a zero device" "zero:1: a NUL byte" \
        timeout 60 "$HS" analytic -w ./zero "${hs_args[@]}"
    expect_bad "-l on a zero device" "zero:1: a NUL byte" \
        timeout 60 "$HS" analytic -w resnet50 "${hs_args[@]}" -l zero
fi
[ ! -e never.csv ] || fail "a refused sweep wrote never.csv"

# ---- XML inputs that are no file to read: a directory, an empty file, a FIFO nobody writes
# (whose open would wait forever), refused before libxml2 reads them, in one line naming the
# file and what it is (before: libxml2's "I/O error : Is a directory" on stderr, then
# "Document is empty" or "Extra content at the end"; -p and -w on a FIFO waited forever) ----
mkdir xml.d
: >empty.xml
mkfifo nobody.xml
for input in xml.d empty.xml nobody.xml; do
    what=("is a directory, not a" "is empty (a" "is a FIFO, not a")
    case $input in xml.d) w=${what[0]} ;; empty.xml) w=${what[1]} ;; *) w=${what[2]} ;; esac
    for flag in -w -p -s; do
        args=(-w resnet50 -p abci -s data -g 4 -b 64)
        case $flag in -w) args[1]=./$input ;; -p) args[3]=./$input ;; -s) args[5]=./$input ;; esac
        expect_bad "$flag $input" "$input: $w" timeout 60 "$HS" analytic "${args[@]}"
        [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$flag $input: more than one line: $(cat "$TMP/err")"
    done
    expect_bad "sweep -p $input" "-p: ./$input: $w" timeout 60 "$HS" sweep -m analytic \
        -w resnet50 -p "./$input" -s data -g 4 -b 64 -o never.csv
done
[ ! -e never.csv ] || fail "a refused sweep wrote never.csv"

# ---- a signal while the --log (a FIFO nobody reads) is being opened: the signal's status,
# 143 for SIGTERM (before: "Interrupted system call", exit 2) ----
mkfifo stuck.log
timeout 120 "$HS" sweep "${an[@]}" -g 1,2 -o stuck.csv --log stuck.log --quiet 2>stuck.err &
stuck=$!
wait_fifo_open "$stuck" || fail "the sweep never waited for its --log"
kill_child TERM "$stuck"
wait "$stuck"
rc=$?
[ "$rc" -eq 143 ] || fail "SIGTERM while opening a FIFO --log: exit $rc, not 143: $(cat stuck.err)"
grep -qF "interrupted by SIGTERM" stuck.err ||
    fail "SIGTERM while opening the log: $(cat stuck.err)"
! grep -q "Interrupted system call" stuck.err || fail "SIGTERM said as a system call's error"

# ---- runs refused with exit 2 write nothing (before: a header-only CSV, the emit folder,
# the job list) ----
mkdir logdir
expect_bad "--log a directory" "--log $TMP/logdir: is a directory" \
    "$HS" sweep "${an[@]}" -g 1 -o "$TMP/nolog.csv" --log "$TMP/logdir" --quiet
[ ! -e nolog.csv ] || fail "--log refused, yet the CSV was written: $(cat nolog.csv)"
expect_bad "--log in no folder" "--log $TMP/none/x.log" \
    "$HS" sweep "${an[@]}" -g 1 -o "$TMP/nolog.csv" --log "$TMP/none/x.log" --quiet
[ ! -e nolog.csv ] || fail "--log refused, yet the CSV was written"
mkdir jobs.dir
expect_bad "--emit a directory" "--emit $TMP/jobs.dir: is a directory" \
    "$HS" sweep "${an[@]}" -g 1 --emit parallel "$TMP/jobs.dir" --quiet
[ ! -e jobs.dir.d ] || fail "--emit refused, yet its folder jobs.dir.d was made"
echo not-a-folder >emit-file
expect_bad "--emit-dir a file" "--emit-dir $TMP/emit-file: is not a directory" \
    "$HS" sweep "${an[@]}" -g 1 --emit parallel "$TMP/j.txt" --emit-dir "$TMP/emit-file" --quiet
[ ! -e j.txt ] || fail "--emit-dir refused, yet j.txt was written"
[ "$(cat emit-file)" = not-a-folder ] || fail "--emit-dir's file was changed"

# ---- a row whose status is none of ok, error, failed (a CSV edited by hand or cut short) is
# run again, not kept (before: kept forever) ----
"$HS" sweep "${an[@]}" -g 1,2 -o status.csv --quiet || fail "status sweep: exit $?"
sed -i '3s/,ok,/,0k,/' status.csv
grep -q ',0k,' status.csv || fail "could not plant a row of unknown status"
"$HS" sweep "${an[@]}" -g 1,2 -o status.csv --log status.log --quiet || fail "status rerun: exit $?"
[ "$(grep -c . status.log 2>/dev/null)" -ge 1 ] ||
    fail "the row of unknown status was not run again"
! grep -q ',0k,' status.csv || fail "the row of unknown status is still there"
[ "$(rows status.csv)" -eq 2 ] || fail "status rerun: $(rows status.csv) rows, expected 2"

# ---- 100,000 repeated values in a list: refused at once naming the key and the value, before
# anything is loaded (before: each workload was loaded, 120 s on 2 cores) ----
python3 -c 'print("mode = analytic\nplatforms = abci\nstrategies = data\nbatch = 64\ngpus = 4\n"
               "workloads = " + ",".join(["resnet50"] * 100000))' >repeated.sweep
expect_bad "repeated values" "repeated.sweep:6: workloads: 'resnet50' is given more than once" \
    timeout 20 "$HS" sweep repeated.sweep -o never.csv
expect_bad "repeated values, flag" "-g: '8' is given more than once" \
    timeout 20 "$HS" sweep "${an[@]}" -g 8,4,8 -o never.csv
[ ! -e never.csv ] || fail "a refused sweep wrote never.csv"

# ---- an interrupt names every output not written: simulate waits to open its --trace (a FIFO
# nobody reads) when SIGTERM comes; its --links file is named too (before: "no file written")
mkfifo trace.fifo
timeout 120 "$HS" simulate -w resnet50 -p abci -s data -g 8 -b 256 --trace trace.fifo \
    --links links.csv >/dev/null 2>sim.err &
sim=$!
wait_fifo_open "$sim" || fail "simulate never waited for its --trace"
kill_child TERM "$sim"
wait "$sim"
rc=$?
[ "$rc" -eq 143 ] || fail "simulate, SIGTERM: exit $rc, not 143: $(cat sim.err)"
grep -qF "links.csv not written" sim.err ||
    fail "the interrupt message forgets links.csv: $(cat sim.err)"
[ ! -e links.csv ] || fail "links.csv written by an interrupted run"

finish e2e_edges
