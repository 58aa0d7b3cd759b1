#!/usr/bin/env bash
# e2e_errors.sh: the error catalogue of sim/README.md, row by row. Every row of the table
# between its "error catalogue" markers is run from the source folder (its bad files are in
# tests/errors/): it must exit 2, print nothing on stdout, name every `excerpt` of its last
# column on stderr, and write no file. A row added to the catalogue is tested by that alone;
# fewer than 30 rows means the markers or the table's form changed, which fails too.
# Usage (from ctest): e2e_errors.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
command -v python3 >/dev/null || { echo "e2e_errors needs python3 to read the table"; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
cd "$SRC" || exit 1
before="$(git status --porcelain --untracked-files=all tests/errors 2>/dev/null)"

python3 - "$HS" sim/README.md <<'PY' || fail "the catalogue's rows"
import re, shlex, subprocess, sys

hs, readme = sys.argv[1], sys.argv[2]
text = open(readme, encoding="utf-8").read()
m = re.search(r"<!-- error catalogue[^>]*-->\n(.*?)<!-- /error catalogue -->", text, re.S)
if not m:
    sys.exit("FAIL: %s has no error catalogue between its markers" % readme)
rows = [l for l in m.group(1).splitlines() if l.startswith("| ")][2:]  # header, rule
failures = 0
for row in rows:
    cells = [c.strip() for c in row.strip().strip("|").split(" | ")]
    if len(cells) != 3:
        print("FAIL [table]: not three cells: %s" % row)
        failures += 1
        continue
    what, command, says = cells
    args = re.fullmatch(r"`(.*)`", command)
    excerpts = re.findall(r"`([^`]+)`", says)
    if not args or not excerpts:
        print("FAIL [%s]: the command or the message is not quoted" % what)
        failures += 1
        continue
    run = subprocess.run([hs] + shlex.split(args.group(1)), capture_output=True, text=True,
                         timeout=120)
    problems = []
    if run.returncode != 2:
        problems.append("exit %d, expected 2" % run.returncode)
    if run.stdout:
        problems.append("wrote to stdout")
    problems += ["message lacks '%s'" % e for e in excerpts if e not in run.stderr]
    if problems:
        print("FAIL [%s]: %s\n  hybridsim %s\n  stderr: %s" % (what, "; ".join(problems),
                                                              args.group(1), run.stderr.strip()))
        failures += 1
if len(rows) < 30:
    print("FAIL: only %d rows in the catalogue" % len(rows))
    failures += 1
print("e2e_errors: %d rows, %d failed" % (len(rows), failures))
sys.exit(1 if failures else 0)
PY
after="$(git status --porcelain --untracked-files=all tests/errors 2>/dev/null)"
[ "$before" = "$after" ] || fail "the catalogue's runs changed tests/errors: $after"
leftovers="$(find tests/errors -name '*.tmp' 2>/dev/null)"
[ -z "$leftovers" ] || fail "temp files left: $leftovers"
finish e2e_errors
