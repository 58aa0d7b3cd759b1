#!/usr/bin/env bash
# e2e_signals.sh: SIGINT at random moments into `compare` (with --trace and --links) and into a
# `sweep` (sim/README.md "When something goes wrong"): every run either finishes (exit 0, complete
# files) or ends by the signal (exit 130) with no half-written file and no temp left, says so,
# never aborts or exits 1 (SimGrid's own handler would); an interrupted sweep keeps whole rows,
# leaves no temp directory and no run behind, and a rerun finishes the same CSV as an
# uninterrupted sweep. The moments are spread over 1.5 times a run's own length measured here
# (and shortened when a run finishes sooner), so that both sides of every phase (loading, the
# simulation, writing) are hit on any machine.
# E2E_SIGNALS_N runs per command (default 50).
# Usage (from ctest): e2e_signals.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
N="${E2E_SIGNALS_N:-50}"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
D="$TMP" # the runs' folder, their temp files' too
cd "$D" || exit 1
export TMPDIR="$D/tmp" E2E_SIGNALS_MARK="$D"
mkdir -p "$TMPDIR"

# A pause of up to $1 seconds, uniform.
pause() { awk -v s="$RANDOM$RANDOM" -v t="$1" 'BEGIN { srand(s); printf "%.3f", rand() * t }'; }
# The wall time of a command, in seconds.
seconds() {
    local t0; t0="$(date +%s.%N)"
    "$@" >/dev/null 2>&1
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'
}
# Start "$@" in the background with SIGINT at its default action (job control: a script's
# background job would otherwise ignore it), send SIGINT after $1 s, set rc to its exit status;
# when it finished first, T (the length the moments are spread over) moves halfway to that delay
# (a run's length is at most it): a run measured while the machine was busier (the sanitized
# build beside the plain tests) must not leave the later, faster runs too few interruptions to
# tell, nor one fast run collapse the spread.
interrupt_after() {
    local delay="$1"
    shift
    set -m
    "$@" >out 2>err &
    local pid=$!
    set +m
    sleep "$delay"
    kill_child INT "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -ne 0 ] || T="$(awk -v t="$T" -v d="$delay" 'BEGIN { print (d < t) ? (t + d) / 2 : t }')"
}
complete_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
complete_csv() { head -1 "$1" | grep -q '^link,kind' && [ -z "$(tail -c1 "$1")" ]; }
temps() { find "$D" -name '*.tmp' -o -name 'core*' -o -name 'hybridsim-sweep-*' | head -3; }

# ---- compare ----
run=(compare -w resnet50 -p abci -s data -g 8 -b 512 --trace t.json --links l.csv)
T="$(seconds "$HS" "${run[@]}")"
interrupted=0
for i in $(seq 1 "$N"); do
    rm -f t.json l.csv
    interrupt_after "$(pause "$(awk -v t="$T" 'BEGIN { print 1.5 * t }')")" "$HS" "${run[@]}"
    what="compare #$i (rc $rc)"
    grep -qE "corrupted|Abort|Assertion|Segmentation|backtrace" err && fail "$what: $(head -3 err)"
    [ -z "$(temps)" ] || fail "$what: left $(temps)"
    for f in t.json l.csv; do
        [ -e "$f" ] || continue
        if [ "$f" = t.json ]; then complete_json t.json || fail "$what: t.json half-written"
        else complete_csv l.csv || fail "$what: l.csv half-written"; fi
    done
    if [ "$rc" -eq 130 ]; then
        interrupted=$((interrupted + 1))
        # before main() there is nothing to say and nothing written; after, it says what was kept
        [ -s err ] || [ ! -e t.json ] || fail "$what: files written, nothing said"
        [ ! -s err ] || grep -q "hybridsim: interrupted by SIGINT" err || fail "$what: $(cat err)"
    elif [ "$rc" -eq 0 ]; then
        complete_json t.json && complete_csv l.csv || fail "$what: finished without its files"
    else
        fail "$what: $(head -3 err)"
    fi
done
echo "compare: $interrupted of $N interrupted (moments spread over 1.5 x $T s at the end)"
[ "$interrupted" -ge $((N / 5)) ] || fail "compare: too few runs were interrupted to tell"

# ---- sweep ----
sweep=(sweep -m analytic -w resnet50,vgg16 -p abci -s data -g 4,8,16 --batch-per-gpu 32 -j 2)
k=6 # configurations
"$HS" "${sweep[@]}" -o reference.csv --quiet 2>/dev/null || fail "the reference sweep"
T="$(seconds "$HS" "${sweep[@]}" -o timing.csv --quiet)"
interrupted=0
rm -f s.csv
for i in $(seq 1 "$N"); do
    # resumed where the last one stopped; from scratch once it got to the end
    [ -e s.csv ] && [ "$(tail -n +2 s.csv | wc -l)" -ge "$k" ] && rm -f s.csv
    interrupt_after "$(pause "$(awk -v t="$T" 'BEGIN { print 1.5 * t }')")" "$HS" "${sweep[@]}" -o s.csv --quiet
    what="sweep #$i (rc $rc)"
    # runs in flight die with the sweep (PR_SET_PDEATHSIG): within 10 s, on a busy machine too
    for _ in $(seq 100); do
        grep -lsF "E2E_SIGNALS_MARK=$D" /proc/[0-9]*/environ >/dev/null || break
        sleep 0.1
    done
    grep -lsF "E2E_SIGNALS_MARK=$D" /proc/[0-9]*/environ >/dev/null && fail "$what: runs left alive"
    [ -z "$(temps)" ] || fail "$what: left $(temps)"
    [ ! -e s.csv ] || [ -z "$(tail -c1 s.csv)" ] || fail "$what: a half-written row"
    if [ "$rc" -eq 130 ]; then
        interrupted=$((interrupted + 1))
        [ ! -s err ] || grep -q "interrupted by SIGINT" err || fail "$what: $(cat err)"
    elif [ "$rc" -ne 0 ]; then
        fail "$what: $(head -3 err)"
    fi
done
echo "sweep: $interrupted of $N interrupted (moments spread over 1.5 x $T s at the end)"
[ "$interrupted" -ge $((N / 5)) ] || fail "sweep: too few runs were interrupted to tell"
"$HS" "${sweep[@]}" -o s.csv --quiet 2>/dev/null || fail "the sweep does not resume"
diff <(strip_wall reference.csv) <(strip_wall s.csv) >/dev/null ||
    fail "the resumed CSV differs from the uninterrupted one"

finish e2e_signals
