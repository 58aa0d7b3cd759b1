#!/usr/bin/env bash
# e2e_errors.sh: the error catalogue of sim/README.md, row by row. Every row of the table
# between its "error catalogue" markers is run from the source folder (its bad files are in
# tests/errors/): it must exit 2, print nothing on stdout, name every `excerpt` of its last
# column on stderr, and write no file. A row added to the catalogue is tested by that alone;
# fewer than 30 rows means the markers or the table's form changed, which fails too.
# Then hand-written platform files that SimGrid would stop in the middle of a run (a GPU pair
# without a route, a route from a host to itself, ...), written into TMP from a generated
# machine: each is refused by the check with the file, the line and the hosts named, exit 2.
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
# Two nodes of 4 GPUs under one leaf; each case edits it (its digest dropped, so it is checked
# as a hand-written file) and must be refused before SimGrid starts.
"$HS" platform --nodes 2 --nodes-per-leaf 2 --leaves-per-rack 1 -o "$TMP/two.xml" \
    2>"$TMP/err" || fail "generating two.xml: $(cat "$TMP/err")"
grep -v 'hybridsim:digest' "$TMP/two.xml" >"$TMP/hand.xml"
run_on() { "$HS" simulate -w resnet50 -p "$1" -s data -g 8 -b 256; }
run_on "$TMP/hand.xml" >"$TMP/out" 2>"$TMP/err" || fail "the unedited file: $(cat "$TMP/err")"
bad_xml() { # bad_xml NAME 'NEEDLE|NEEDLE...' SED-ARGS...: hand.xml edited by sed is refused
    local name="$1" needles="$2" f="$TMP/$1.xml" n
    shift 2
    sed "$@" "$TMP/hand.xml" >"$f"
    cmp -s "$f" "$TMP/hand.xml" && { fail "$name: the edit changed nothing"; return; }
    expect_bad "$name" "$f:" run_on "$f"
    local IFS='|'
    for n in $needles; do
        grep -qF -- "$n" "$TMP/err" || fail "$name: message lacks '$n': $(cat "$TMP/err")"
    done
    no_simgrid_text "$name"
}
gpu0='<route src="n0000-gpu0" dst="n0000-gpu1">'
bad_xml self-route "route n0000-gpu0 -> n0000-gpu0|to itself" \
    "s#$gpu0#<route src=\"n0000-gpu0\" dst=\"n0000-gpu0\"><link_ctn id=\"n0000-pcie0\" direction=\"UP\"/></route>&#"
bad_xml self-zone-route "zoneRoute n0000 -> n0000|to itself" \
    -e 's#<zoneRoute src="n0000" dst="n0001" gw_src="n0000-gw" gw_dst="n0001-gw">#<zoneRoute src="n0000" dst="n0000" gw_src="n0000-gw" gw_dst="n0000-cpu">#'
bad_xml no-pair-route "no route from host 'n0000-gpu0' to host 'n0000-gpu1'|zone 'n0000'" \
    "\#$gpu0#d"
bad_xml one-way-route "no route from host 'n0000-gpu1' to host 'n0000-gpu0'" \
    "s#$gpu0#<route src=\"n0000-gpu0\" dst=\"n0000-gpu1\" symmetrical=\"NO\">#"
bad_xml no-zone-route "no route from host 'n0000-gpu0' to host 'n0001-gpu0'|zone 'l000' has no route from 'n0000' to 'n0001'" \
    '/<zoneRoute src="n0000" dst="n0001"/d'
bad_xml no-gateway-route "no route from host 'n0000-gpu0' to host 'n0001-gpu2'|zone 'n0001' has no route from 'n0001-gw' to 'n0001-gpu2'" \
    '/<route src="n0001-gpu2" dst="n0001-gw">/d'
bad_xml no-host-memory-route "no route from host 'n0001-gpu3' to host 'n0001-cpu'" \
    '/<route src="n0001-gpu3" dst="n0001-cpu">/d'
# Floyd zones need the route too: SimGrid 3.32 never completes their paths from a file.
bad_xml floyd-indirect "no route from host 'n0000-gpu0' to host 'n0000-gpu1'" \
    -e 's#<zone id="n0000" routing="Full">#<zone id="n0000" routing="Floyd">#' -e "\#$gpu0#d"
bad_xml dijkstra "zone 'n0000': routing 'Dijkstra' is not supported" \
    's#<zone id="n0000" routing="Full">#<zone id="n0000" routing="Dijkstra">#'
bad_xml unknown-attribute "<host> has the attribute frob" \
    's#<host id="n0000-gpu0" speed="7.8Tf"/>#<host id="n0000-gpu0" speed="7.8Tf" frob="1"/>#'
bad_xml trace-file "<link> has the attribute bandwidth_file" \
    's#<link id="n0000-nvl0-1" #<link id="n0000-nvl0-1" bandwidth_file="bw.trace" #'
bad_xml pstate "host 'n0000-gpu0': pstate '5'" \
    's#<host id="n0000-gpu0" speed="7.8Tf"/>#<host id="n0000-gpu0" speed="7.8Tf,1Tf" pstate="5"/>#'
# Refused before too; SimGrid would abort on each.
bad_xml zero-bandwidth "link 'n0000-nvl0-1': bandwidth '0GBps'" \
    's#<link id="n0000-nvl0-1" bandwidth="50GBps"#<link id="n0000-nvl0-1" bandwidth="0GBps"#'
bad_xml negative-latency "link 'n0000-nvl0-1': latency '-9us'" \
    's#<link id="n0000-nvl0-1" bandwidth="50GBps" latency="9us"#<link id="n0000-nvl0-1" bandwidth="50GBps" latency="-9us"#'
bad_xml duplicate-host "'n0000-gpu1': the name is already used" \
    's#<host id="n0000-cpu"#<host id="n0000-gpu1"#'
bad_xml duplicate-link "link 'n0000-nvl0-1' is declared twice" \
    's#<link id="n0000-nvl0-2"#<link id="n0000-nvl0-1"#'
bad_xml undeclared-link "link 'nolink' is not declared" \
    's#<link_ctn id="n0000-nvl0-1" direction="UP"/>#<link_ctn id="nolink" direction="UP"/>#'
bad_xml no-speed "<host> lacks the attribute speed" \
    's#<host id="n0000-gpu0" speed="7.8Tf"/>#<host id="n0000-gpu0"/>#'

after="$(git status --porcelain --untracked-files=all tests/errors 2>/dev/null)"
[ "$before" = "$after" ] || fail "the catalogue's runs changed tests/errors: $after"
leftovers="$(find tests/errors -name '*.tmp' 2>/dev/null)"
[ -z "$leftovers" ] || fail "temp files left: $leftovers"
finish e2e_errors
