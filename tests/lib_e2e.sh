#!/usr/bin/env bash
# lib_e2e.sh: what the end-to-end tests share, sourced by tests/e2e_*.sh after `set -uo
# pipefail`: a temporary folder TMP removed at exit, a failure counter with fail, the check of a
# bad input (expect_bad, expect_bad_hs), of a good run (expect_ok), that no SimGrid text reached
# the user (no_simgrid_text), a sweep CSV without its wall times (strip_wall), the wait for a run
# blocked on a FIFO (wait_fifo_open), a signal to a child that is still one (kill_child), and
# the closing line and exit status (finish).

TMP="$(mktemp -d)"
# Only the test's own shell removes TMP: a child bash forks for `cmd &` runs this EXIT trap too
# when a signal kills it before it execs cmd (e2e_signals sends SIGINT at random moments), which
# removed TMP in the middle of a test under load.
trap '[ "$BASHPID" != "$$" ] || rm -rf "$TMP"' EXIT
failures=0

fail() { echo "FAIL [$*]"; failures=$((failures + 1)); }

# with_setting IN OUT KEY VALUE: strategy file IN copied to OUT with <setting key value> after
# its description, as a user adds one by hand (workloads/README.md, strategy files).
with_setting() {
    python3 - "$@" <<'PY'
import sys
src, dst, key, value = sys.argv[1:5]
s = open(src).read()
i = s.index("</description>") + len("</description>")
open(dst, "w").write(s[:i] + '\n  <setting key="%s" value="%s"/>' % (key, value) + s[i:])
PY
}

# expect_bad NAME NEEDLE COMMAND ARGS...: the command exits 2, NEEDLE is in its stderr and it
# printed nothing on stdout.
expect_bad() {
    local name="$1" needle="$2"
    shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "$name: exit $rc, not 2"
    grep -qF -- "$needle" "$TMP/err" || fail "$name: message lacks '$needle': $(cat "$TMP/err")"
    [ ! -s "$TMP/out" ] || fail "$name: wrote to stdout"
}

# expect_bad_hs NAME NEEDLE ARGS...: expect_bad of the hybridsim under test, "$HS" ARGS.
expect_bad_hs() {
    local name="$1" needle="$2"
    shift 2
    expect_bad "$name" "$needle" "$HS" "$@"
}

# expect_ok NAME ARGS...: "$HS" ARGS exits 0 (its stdout in $TMP/out, stderr in $TMP/err);
# returns 1 when it did not, so that what reads its output can be skipped.
expect_ok() {
    local name="$1"
    shift
    "$HS" "$@" >"$TMP/out" 2>"$TMP/err" && return 0
    fail "$name: exit $? ($*): $(cat "$TMP/err")"
    return 1
}

# no_simgrid_text NAME [FILE]: nothing of SimGrid's internals (a backtrace, xbt_, simgrid::, an
# abort) in FILE (default: the last command's stderr, $TMP/err).
no_simgrid_text() {
    ! grep -qiE "backtrace|xbt_|Aborted|simgrid::" "${2:-$TMP/err}" || fail "$1: SimGrid's text"
}

# need_file PATH WHAT: a test that reads PATH (../shared's reference files) is skipped, exit 77,
# when it is absent, as the gnuplot and SMPI tests are without their tools.
need_file() {
    [ -e "$1" ] || { echo "SKIP: no $1 ($2)"; exit 77; }
}

# need_python MODULE...: a test that runs Debian's python3 with these modules (PyTorch for the
# importer) is skipped, exit 77, without them (experiments/setup.sh installs them).
need_python() {
    local mods
    mods="$(IFS=,; echo "$*")"
    /usr/bin/python3 -c "import $mods" 2>/dev/null ||
        { echo "SKIP: /usr/bin/python3 lacks $* (experiments/setup.sh installs them)"; exit 77; }
}

# strip_wall CSV: a sweep CSV without its wall_s column (found by name in the header): equal for
# two runs of the same configurations. Messages may hold quoted commas; cut splits them the same
# way in both files.
strip_wall() {
    local w
    w="$(head -1 "$1" | tr ',' '\n' | grep -nx wall_s | cut -d: -f1)"
    cut -d, -f"1-$((w - 1)),$((w + 1))-" "$1"
}

# wait_fifo_open PID: until a process of PID's tree (PID, its children, theirs) is blocked opening
# a FIFO, waiting for its other end (the kernel's wchan wait_for_partner), PID has ended (status
# 1), or 60 s have passed (1). For a signal meant to arrive while a run waits there: a fixed
# sleep comes too early on a loaded machine (the sanitized build under ctest -j). Where the
# kernel does not say (this shell's own wchan, waiting on the pipe, reads 0 or nothing), a 1.5 s
# sleep.
wait_fifo_open() {
    local p
    case "$(cat "/proc/$$/wchan" 2>/dev/null)" in
        "" | 0) sleep 1.5; return 0 ;;
    esac
    for _ in $(seq 600); do
        kill -0 "$1" 2>/dev/null || return 1
        for p in $(tree_pids "$1"); do
            [ "$(cat "/proc/$p/wchan" 2>/dev/null)" = wait_for_partner ] && return 0
        done
        sleep 0.1
    done
    return 1
}
# kill_child SIGNAL PID: SIGNAL to PID only while PID is a child of this shell (status 1 if not).
# bash reaps a background job that ended at once, and its PID may then be another process's
# (pid_max is 32768 and wraps within minutes while ctest -j runs the suite): a bare kill would
# hit that process, another test's maybe. child_alive PID: whether PID is still such a child.
child_alive() { [ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = "$$" ]; }
kill_child() { child_alive "$2" && kill "-$1" "$2" 2>/dev/null; }

tree_pids() { # PID and its descendants
    local c
    echo "$1"
    for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do tree_pids "$c"; done
}

# finish TEST: the verdict line, and exit 1 if a check failed.
finish() {
    [ "$failures" -eq 0 ] && echo "$1: all checks passed"
    exit $((failures > 0))
}
