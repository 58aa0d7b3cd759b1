#!/usr/bin/env bash
# e2e_outputs.sh: no output path but a regular file is ever replaced or grown, and no failed
# write passes for a success (sim/README.md "When something goes wrong"). Every writer (--trace,
# --links, platform -o, sweep -o / --log / --merge -o / --emit, standard output) is pointed at
# private devices made with mknod in a temporary folder (never the system's /dev entries): a
# full one (1,7: writes fail with ENOSPC, reads never end), a null one (1,3), a symbolic link to
# the full one; and at a FIFO, a directory, a dangling link, a regular file and a link to one.
# Exit 77 (skipped, for ctest) when mknod is not allowed here, after the checks that need no
# device.
# Usage (from ctest): e2e_outputs.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
D="$TMP" # the folder the devices and files are made in
cd "$D" || exit 1

small=(-w resnet50 -p abci -s data -g 8 -b 256)
# expect RC NEEDLE WHAT -- args: exit status RC and NEEDLE in the message ("" for none).
expect() {
    local rc="$1" needle="$2" what="$3"
    shift 4
    timeout 120 "$HS" "$@" >"$D/out" 2>"$D/err"
    local got=$?
    [ "$got" -eq "$rc" ] || { fail "$what: exit $got, expected $rc"; cat "$D/err"; return; }
    [ -z "$needle" ] || grep -qF -- "$needle" "$D/err" || { fail "$what: message lacks '$needle'"; cat "$D/err"; }
}
# kind PATH: what stat says it is (type and device numbers).
kind() { stat -L -c '%F %t,%T' "$1"; }

# ---- paths that need no privilege ----
mkfifo fifo
mkdir dir
ln -s "$D/nothing" dangling
for w in "--trace" "--links"; do
    expect 2 "$w $D/dir: is a directory" "simulate $w dir" -- simulate "${small[@]}" "$w" "$D/dir"
    expect 2 "a symbolic link to nothing" "simulate $w dangling" -- simulate "${small[@]}" "$w" "$D/dangling"
done
expect 2 "is a directory" "platform -o dir" -- platform -o "$D/dir"
expect 2 "is a FIFO, not a regular file" "sweep -o fifo" -- sweep -m analytic "${small[@]}" -o "$D/fifo" --quiet
[ -d dir ] && [ -p fifo ] && [ -L dangling ] && [ ! -e nothing ] || fail "a refused path was changed"

# A FIFO with a reader is written in place, whole.
cat fifo >from-fifo.json &
expect 0 "" "--trace fifo" -- simulate "${small[@]}" --trace "$D/fifo"
wait
[ -p fifo ] || fail "the FIFO was replaced"
python3 -m json.tool from-fifo.json >/dev/null 2>&1 || fail "the trace through the FIFO is not JSON"

# A regular file is replaced whole, keeping its permissions; a link to one keeps pointing at it.
echo old >keep.xml && chmod 640 keep.xml && ln -s keep.xml link.xml
expect 0 "" "platform -o link" -- platform --nodes 8 --nodes-per-leaf 2 --leaves-per-rack 2 -o "$D/link.xml"
[ -L link.xml ] && [ "$(readlink link.xml)" = keep.xml ] || fail "the link was replaced"
[ "$(stat -c %a keep.xml)" = 640 ] || fail "the replaced file lost its permissions: $(stat -c %a keep.xml)"
grep -q '</platform>' keep.xml || fail "the file behind the link was not written"

# ---- private devices ----
if ! mknod full c 1 7 2>/dev/null || ! mknod null c 1 3 2>/dev/null || ! echo x >null 2>/dev/null; then
    echo "e2e_outputs: mknod is not allowed here: the device checks are skipped"
    [ "$failures" -eq 0 ] && exit 77
    finish e2e_outputs
fi
ln -s "$D/full" lfull
full_kind="$(kind full)" null_kind="$(kind null)"
for dev in full lfull; do
    expect 1 "--trace $D/$dev: write error: No space left on device" "--trace $dev" -- simulate "${small[@]}" --trace "$D/$dev"
    expect 1 "--links $D/$dev: write error: No space left on device" "--links $dev" -- simulate "${small[@]}" --links "$D/$dev"
    expect 1 "-o $D/$dev: writing the platform failed: No space left" "platform -o $dev" -- platform --preset dgx1 -o "$D/$dev"
    expect 2 "is a character device, not a regular file" "sweep -o $dev" -- sweep -m analytic "${small[@]}" -o "$D/$dev" --quiet
    expect 1 "--log $D/$dev: write error: No space left" "sweep --log $dev" -- sweep -m analytic "${small[@]}" -o "$D/s-$dev.csv" --log "$D/$dev" --quiet
done
expect 0 "" "--trace null" -- simulate "${small[@]}" --trace "$D/null" --links "$D/null"
expect 0 "" "platform -o null" -- platform --preset dgx1 -o "$D/null"
expect 0 "" "sweep --log null" -- sweep -m analytic "${small[@]}" -o "$D/s-null.csv" --log "$D/null" --quiet
expect 0 "" "sweep --emit null" -- sweep -m analytic "${small[@]}" --emit parallel "$D/null" --emit-dir "$D/jobs" --quiet
expect 1 "--emit $D/full: write error" "sweep --emit full" -- sweep -m analytic "${small[@]}" --emit slurm "$D/full" --emit-dir "$D/jobs" --quiet
expect 1 "-o $D/full: write error" "sweep --merge -o full" -- sweep --merge "$D/jobs" -o "$D/full" --quiet
[ "$(kind full)" = "$full_kind" ] && [ "$(kind null)" = "$null_kind" ] && [ -L lfull ] ||
    fail "a device was replaced: $(ls -l full null lfull)"

# Standard output on a full device: a failed write, not a success.
for cmd in "analytic" "analytic --json" "simulate --json" "compare --json" "compare"; do
    # shellcheck disable=SC2086
    timeout 120 "$HS" $cmd "${small[@]}" >full 2>err
    rc=$?
    [ "$rc" -eq 1 ] && grep -q "writing standard output: No space left on device" err ||
        { fail "$cmd > full: exit $rc"; cat err; }
done
timeout 60 "$HS" platform --preset dgx1 >full 2>err
[ $? -eq 1 ] || fail "platform > full: a success"

# Nothing half-written anywhere.
leftovers="$(find "$D" -name '*.tmp')"
[ -z "$leftovers" ] || fail "temp files left: $leftovers"
[ "$(kind full)" = "$full_kind" ] || fail "full was replaced"

finish e2e_outputs
