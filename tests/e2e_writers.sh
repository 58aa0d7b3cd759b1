#!/usr/bin/env bash
# e2e_writers.sh: the writers outside hs_out's usual callers write as every output does
# (workloads/common/hs_out.h): `strategy --generate -o` (C, hs_out), experiments/plot.sh -o
# (experiments/lib/out.sh) and experiments/import/import.py -o (experiments/lib/hs_out.py).
# Each is pointed at: a new file (0666 minus the umask), a regular file (replaced, its mode
# kept), a symbolic link to one (the link kept, the file behind it written), a planted
# PATH.tmp link to a victim (the victim untouched), a FIFO with a reader (written in place, not
# replaced), a directory and a dangling link (exit 2 naming the path, nothing written), and a
# private null device made with mknod (kept a device; skipped when mknod is not allowed).
# No temp file may be left behind.
# Usage (from ctest): e2e_writers.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$2"
PY=/usr/bin/python3 # Debian's, with python3-onnx (experiments/setup.sh)
source "$SRC/tests/lib_e2e.sh"
umask 022

# check NAME EXT CMD...: run CMD with @OUT@ replaced by each kind of output path.
run() { # OUT CMD...: the command with its output path, exit status in $rc
    local out="$1" args=()
    shift
    for a in "$@"; do args+=("${a//@OUT@/$out}"); done
    timeout 60 "${args[@]}" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
check() {
    local name="$1" ext="$2"
    shift 2
    local D="$TMP/$name"
    mkdir -p "$D"
    run "$D/new.$ext" "$@"
    [ "$rc" -eq 0 ] && [ -s "$D/new.$ext" ] || fail "$name new file: exit $rc: $(cat "$TMP/err")"
    [ "$(stat -c %a "$D/new.$ext" 2>/dev/null)" = 644 ] ||
        fail "$name new file: mode $(stat -c %a "$D/new.$ext" 2>/dev/null), not 644 (umask 022)"

    echo old >"$D/keep.$ext" && chmod 640 "$D/keep.$ext" && ln -s "keep.$ext" "$D/link.$ext"
    run "$D/link.$ext" "$@"
    [ "$rc" -eq 0 ] || fail "$name link: exit $rc: $(cat "$TMP/err")"
    [ -L "$D/link.$ext" ] && [ "$(readlink "$D/link.$ext")" = "keep.$ext" ] ||
        fail "$name: the link was replaced"
    ! grep -qx old "$D/keep.$ext" || fail "$name: the file behind the link was not written"
    [ "$(stat -c %a "$D/keep.$ext")" = 640 ] ||
        fail "$name: the replaced file's mode became $(stat -c %a "$D/keep.$ext")"

    echo PRECIOUS >"$D/victim" && ln -s victim "$D/planted.$ext.tmp"
    run "$D/planted.$ext" "$@"
    [ "$rc" -eq 0 ] || fail "$name planted: exit $rc: $(cat "$TMP/err")"
    [ "$(cat "$D/victim")" = PRECIOUS ] ||
        fail "$name: wrote through a planted planted.$ext.tmp link"
    rm -f "$D/planted.$ext.tmp"

    mkfifo "$D/fifo.$ext"
    exec 3<>"$D/fifo.$ext" # held open while the writer runs: the reader never waits for it
    # The reader's end is opened here, before the writer starts: a reader left to open the FIFO
    # itself could come after the writer and fd 3 had both closed it, the written bytes gone
    # with the last opener, and wait for a writer until its timeout.
    exec 4<"$D/fifo.$ext"
    timeout 60 cat <&4 >"$D/from-fifo" 3>&- 4<&- &
    local reader=$!
    exec 4<&-
    run "$D/fifo.$ext" "$@" 3>&-
    exec 3>&- # then the reader's end of file, whether the writer opened the FIFO or not
    wait "$reader"
    [ "$rc" -eq 0 ] || fail "$name FIFO: exit $rc: $(cat "$TMP/err")"
    [ -p "$D/fifo.$ext" ] || fail "$name: the FIFO was replaced by $(stat -c %F "$D/fifo.$ext")"
    [ -s "$D/from-fifo" ] || fail "$name: nothing came through the FIFO"

    mkdir "$D/dir.$ext" && ln -s nothing "$D/dangling.$ext"
    for bad in dir dangling; do
        run "$D/$bad.$ext" "$@"
        [ "$rc" -eq 2 ] || fail "$name $bad: exit $rc, not 2"
        grep -qF "$D/$bad.$ext" "$TMP/err" ||
            fail "$name $bad: the message does not name the path: $(cat "$TMP/err")"
    done
    [ -d "$D/dir.$ext" ] && [ -z "$(ls -A "$D/dir.$ext")" ] && [ -L "$D/dangling.$ext" ] &&
        [ ! -e "$D/nothing" ] || fail "$name: a refused path was changed or written"

    if mknod "$D/null.$ext" c 1 3 2>/dev/null; then
        run "$D/null.$ext" "$@"
        [ "$rc" -eq 0 ] || fail "$name null device: exit $rc: $(cat "$TMP/err")"
        [ "$(stat -c '%F %t,%T' "$D/null.$ext")" = "character special file 1,3" ] ||
            fail "$name: the device became $(stat -c %F "$D/null.$ext")"
    else
        echo "e2e_writers: mknod not allowed here: $name's device case skipped"
    fi
    local left
    left="$(find "$D" -name '*.tmp*')"
    [ -z "$left" ] || fail "$name: temp files left: $left"
}

check strategy xml "$HS" strategy --generate owt -w alexnet -g 4 -b 64 -o @OUT@

if command -v gnuplot >/dev/null; then
    csv="$SRC/experiments/results/topology/topology-strong.csv"
    check plot png "$SRC/experiments/plot.sh" "$csv" \
        --x platform --y sim_epoch_total_s --by strategy --where workload=vgg16 -o @OUT@
else
    echo "e2e_writers: no gnuplot: plot.sh skipped"
fi

if "$PY" -c 'import onnx' 2>/dev/null; then
    "$PY" - "$TMP/tiny.onnx" <<'EOF' || fail "building tiny.onnx"
import sys
import onnx
from onnx import TensorProto, helper as h
x = h.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
w = h.make_tensor_value_info("w", TensorProto.FLOAT, [4, 3, 3, 3])
y = h.make_tensor_value_info("y", TensorProto.FLOAT, None)
conv = h.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3])
graph = h.make_graph([conv], "tiny", [x, w], [y])
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]), sys.argv[1])
EOF
    check import xml "$PY" "$SRC/experiments/import/import.py" "$TMP/tiny.onnx" -o @OUT@
else
    fail "$PY lacks python3-onnx (experiments/setup.sh installs it)"
fi

finish e2e_writers
