#!/usr/bin/env bash
# e2e_links.sh: `--links FILE.csv` end to end. On ABCI, ResNet-50 data-parallel on 4096 GPUs:
# spread over the 32 racks (1024 nodes, 32 per rack), every ring edge between nodes leaves its
# rack, so 32 NIC flows of 12.5 GB/s meet on each 283 GB/s rack uplink and those uplinks must
# be the most utilised links, with communication waiting on them; packed, a rack has one edge
# out and the uplinks must not be. Also: the CSV's bytes add up to the messages' bytes x route
# lengths, the CSV is written atomically and identically by identical runs, watching a run
# (VGG16 in steps, whose ring edges the engine computes; data+spatial's halos staged through
# host memory) leaves its times as they are, bad
# flags exit 2; no shared link carries more than its bandwidth in any busy period, also where SimGrid's lazy
# update let flows outrun a link (the channel trees at rack oversubscription 1:200, and with
# flows hashed onto cables: platforms/platform_sg.c, network/optim).
# HS_TEST_SMALL=1 (the sanitized build, tests/CMakeLists.txt) runs the spread and packed pair on
# 1024 GPUs of an 8-rack ABCI (gen:abci:nodes=272), three fifths of the time: spread, 32 nodes
# a rack again, so the same 32 NIC flows meet on each rack uplink; the plain build runs 4096.
# Usage (from ctest): e2e_links.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

run() { # run NAME args...: JSON to $TMP/NAME.json, CSV to $TMP/NAME.csv
    local name="$1"
    shift
    if ! "$HS" simulate "$@" --links "$TMP/$name.csv" --json >"$TMP/$name.json" 2>"$TMP/err"; then
        fail "$name: exit status $? ($*)"; cat "$TMP/err"
    fi
}

base=(-w resnet50 -p abci -s data -g 4096 -b 131072 --collectives flow)
[ "${HS_TEST_SMALL:-0}" = 1 ] &&
    base=(-w resnet50 -p gen:abci:nodes=272 -s data -g 1024 -b 32768 --collectives flow)
run spread "${base[@]}" --placement spread
run packed "${base[@]}" --placement packed

# check.py FILE.json FILE.csv WHAT: the JSON summary against the CSV, then WHAT's expectation
cat >"$TMP/check.py" <<'PY'
import csv, json, sys
run = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
what = sys.argv[3]
links = run["links"]
bad = []
# conservation: every message on every link of its route
total = sum(float(r["bytes"]) for r in rows)
if abs(total - links["route_bytes"]) > 1e-9 * links["route_bytes"]:
    bad.append("CSV bytes %r != messages' bytes x route length %r" % (total, links["route_bytes"]))
if not links["bytes"] > 0 or links["route_bytes"] < links["bytes"]:
    bad.append("message bytes %r, route bytes %r" % (links["bytes"], links["route_bytes"]))
for r in rows:
    if not float(r["bytes"]) > 0 or not 0 < float(r["busy_s"]) <= run["iteration"]["total_s"] * (1 + 1e-9):
        bad.append("row %s: bytes %s busy %s" % (r["link"], r["bytes"], r["busy_s"]))
        break
    mean = float(r["bytes"]) / (float(r["bandwidth_Bps"]) * run["iteration"]["total_s"])
    if abs(mean - float(r["mean_utilisation"])) > 1e-9 * mean:
        bad.append("row %s: mean utilisation %s, bytes say %r" % (r["link"], r["mean_utilisation"], mean))
        break
by_kind = {}
for r in rows:
    by_kind.setdefault(r["kind"], 0.0)
    by_kind[r["kind"]] += float(r["bytes"])
for kind, v in links["by_kind"].items():
    if abs(v["bytes"] - by_kind.get(kind, 0)) > 1e-9 * v["bytes"]:
        bad.append("by_kind %s bytes %r, CSV %r" % (kind, v["bytes"], by_kind.get(kind)))
top = [t["kind"] for t in links["top"]]
best = max(float(r["mean_utilisation"]) for r in rows)
if abs(links["top"][0]["mean_utilisation"] - best) > 1e-12 * best:
    bad.append("top[0] %r is not the CSV's highest mean utilisation %r" % (links["top"][0], best))
if what == "spread":
    if top != ["rack-up"] * 5:
        bad.append("spread: the most utilised links are %s, not rack uplinks" % top)
    if not links["congestion_share"] > 0.05:
        bad.append("spread: congestion share %r" % links["congestion_share"])
    if not links["by_kind"]["rack-up"]["peak_utilisation"] > 0.99:
        bad.append("spread: rack uplinks peak at %r" % links["by_kind"]["rack-up"]["peak_utilisation"])
elif what == "packed":
    if "rack-up" in top:
        bad.append("packed: a rack uplink is among the most utilised: %s" % top)
    if abs(links["congestion_share"]) > 1e-9:
        bad.append("packed: congestion share %r" % links["congestion_share"])
for b in bad:
    print("FAIL [%s]: %s" % (what, b))
sys.exit(1 if bad else 0)
PY
for what in spread packed; do
    [ -s "$TMP/$what.json" ] && { python3 "$TMP/check.py" "$TMP/$what.json" "$TMP/$what.csv" "$what" || fail "$what: the checks above"; }
done
compgen -G "$TMP/spread.csv*.tmp" >/dev/null && fail "the temporary CSV was left behind"
head -1 "$TMP/spread.csv" | grep -qx 'link,kind,direction,bandwidth_Bps,messages,bytes,background_bytes,busy_s,mean_utilisation,peak_utilisation' ||
    fail "CSV header: $(head -1 "$TMP/spread.csv")"

# no shared link over its bandwidth: a switch (FATPIPE) only caps each flow, every other link
# shares its bandwidth, so the bytes of its fullest busy period fit in bandwidth x length
tree=(-w resnet50 -s data --allreduce tree -g 1024 -b 32768)
run oversub "${tree[@]}" -p gen:abci:nodes=272,rack-oversub=1:200
run hashed "${tree[@]}" -p gen:abci:nodes=272,uplink-routing=hash
for what in oversub hashed; do
    python3 - "$TMP/$what.csv" "$what" <<'PY' || fail "$what: utilisation above 1"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if "switch" not in r["kind"] and r["kind"] != "spine"]
worst = max(rows, key=lambda r: float(r["peak_utilisation"]))
print("%s: fullest link %s %s at %s of its bandwidth" % (sys.argv[2], worst["link"], worst["direction"], worst["peak_utilisation"]))
sys.exit(0 if float(worst["peak_utilisation"]) <= 1 + 1e-9 else 1)
PY
done

# watching does not change the run: VGG16 data-parallel on 256 GPUs in steps, whose ring edges
# between nodes the engine computes instead of sending (sim/engine/engine_private.c), and tells
# the statistics of: the same iteration to the last digit with and without --links, and the
# CSV's bytes are every message's on every link of its route (130560 messages)
watched=(-w vgg16 -p abci -s data -g 256 -b 8192 --collectives step)
run watched "${watched[@]}"
"$HS" simulate "${watched[@]}" --json >"$TMP/unwatched.json" 2>&1 || fail "watched: run without --links"
python3 - "$TMP/watched.json" "$TMP/unwatched.json" <<'PY' || fail "--links changed the run"
import json, sys
w, u = (json.load(open(f)) for f in sys.argv[1:3])
assert w["iteration"] == u["iteration"], (w["iteration"], u["iteration"])
assert w["links"]["messages"] == 130560, w["links"]["messages"]
PY
python3 "$TMP/check.py" "$TMP/watched.json" "$TMP/watched.csv" watched || failures=$((failures + 1))

# nor where halos are staged through host memory, each chain's synchronous sender its own relay:
# watched, it posts its copy down and waits for it (the statistics time a message by its
# sender's wait), unwatched it puts it in one SimGrid call (sim/engine/engine_p2p.c); the same
# iteration and layers to the last digit either way
halo=(-w resnet50 -p abci -s data+spatial -g 64 -b 4096)
run halo "${halo[@]}"
"$HS" simulate "${halo[@]}" --json >"$TMP/halo_unwatched.json" 2>&1 || fail "halo: run without --links"
python3 - "$TMP/halo.json" "$TMP/halo_unwatched.json" <<'PY' || fail "--links changed the halo run"
import json, sys
w, u = (json.load(open(f)) for f in sys.argv[1:3])
w.pop("links")
assert w == u, [(k, w.get(k), u.get(k)) for k in set(w) | set(u) if w.get(k) != u.get(k)][:3]
PY

# the same run twice: the same CSV and JSON, byte for byte; --links-all lists every link
small=(-w resnet50 -p abci -s data+filter:4x4 -g 16 -b 64 --placement spread)
run a "${small[@]}"
run b "${small[@]}"
cmp -s "$TMP/a.csv" "$TMP/b.csv" || fail "two identical runs wrote different CSVs"
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "two identical runs printed different JSON"
"$HS" simulate "${small[@]}" --links "$TMP/all.csv" --links-all >/dev/null 2>&1 || fail "--links-all"
[ "$(wc -l <"$TMP/all.csv")" -eq 26403 ] || fail "--links-all: $(wc -l <"$TMP/all.csv") lines, ABCI has 26402 link directions"

# the table and compare carry the summary; compare's analytic side has none
"$HS" simulate "${small[@]}" --links "$TMP/t.csv" >"$TMP/table" 2>&1 || fail "table run"
for needle in "most utilised links" "congestion share" "rack-up"; do
    grep -q "$needle" "$TMP/table" || fail "table lacks '$needle'"
done
"$HS" compare "${small[@]}" --links "$TMP/c.csv" --json >"$TMP/compare.json" 2>&1 || fail "compare --links"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if "links" in d["simulate"] and "links" not in d["analytic"] else 1)' "$TMP/compare.json" ||
    fail "compare --json: links belong to the simulation only"

# bad input: exit 2, a message naming the flag, nothing on stdout, no CSV
expect_bad_hs "analytic --links" "--links is for simulate" analytic "${small[@]}" --links "$TMP/x.csv"
expect_bad_hs "--links-all alone" "--links-all needs" simulate "${small[@]}" --links-all
expect_bad_hs "unwritable --links" "no-such-dir" simulate "${small[@]}" --links "$TMP/no-such-dir/x.csv"
expect_bad_hs "--links without a value" "--links needs a value" simulate "${small[@]}" --links
expect_bad_hs "bad run with --links" "-b" simulate -w resnet50 -p abci -s data -g 64 -b 100 --links "$TMP/never.csv"
[ -e "$TMP/never.csv" ] && fail "a failed run left a CSV"

finish e2e_links
