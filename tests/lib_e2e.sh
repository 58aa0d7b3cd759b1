#!/usr/bin/env bash
# lib_e2e.sh: what the end-to-end tests share, sourced by tests/e2e_*.sh after `set -uo
# pipefail`: a temporary folder TMP removed at exit, a failure counter with fail, the check of a
# bad input (expect_bad) and the closing line and exit status (finish).

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() { echo "FAIL [$1]"; failures=$((failures + 1)); }

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

# finish TEST: the verdict line, and exit 1 if a check failed.
finish() {
    [ "$failures" -eq 0 ] && echo "$1: all checks passed"
    exit $((failures > 0))
}
