#!/usr/bin/env bash
# e2e_suggest.sh: `hybridsim suggest`: VGG16 on 64 GPUs of abci at 32 samples a GPU. Every
# strategy that runs is ranked: the simulated ones first by simulated time (the first says it
# is the fastest simulated), then the others that fit by analytic time, then those that do not
# fit with their memory; --top K simulates K (and the fastest built-in); the searched plan and
# the published schemes are among the candidates; the JSON carries the same ranking. The budgets: --target-epoch-s (the
# fewest GPUs reaching it) and --max-gpus (the fastest within N). The gradient allreduce's
# algorithms as candidates (ResNet-50 at 64 GPUs: data with hier first). Every candidate is
# priced with its compute: EfficientNet-B0 (no measured time) ranks its pipelines too, every
# row with compute above 0, and on a GPU the device table does not know it is refused rather
# than priced at no compute. Bad input: exit 2, the flag named, nothing on stdout.
# Usage (from ctest): e2e_suggest.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
"$HS" suggest -w vgg16 -p abci -g 64 --batch-per-gpu 32 --top 4 --json >"$TMP/s.json" \
    2>"$TMP/err" || fail "suggest: exit $? $(cat "$TMP/err")"
grep -Eq "suggest: simulating [45] of [45]" "$TMP/err" || fail "progress on stderr"
python3 - "$TMP/s.json" <<'PY' || fail "ranking"
import json, sys
j = json.load(open(sys.argv[1]))
r = j["ranking"]
names = [c["strategy"] for c in r]
for want in ("data", "owt", "splitbrain:8", "ghp:2", "searched", "data+filter:16x4"):
    assert want in names, (want, names)
sim = [c for c in r if "simulated_s" in c]
# the 4 fastest by the model, and the fastest built-in (no per-layer plan) beside them
assert len(sim) in (4, 5) and r[:len(sim)] == sim, "the simulated ones first"
assert all(sim[i]["simulated_s"] <= sim[i + 1]["simulated_s"] for i in range(len(sim) - 1))
assert r[0]["why"] == "fastest simulated", r[0]["why"]
fit = [c for c in r if c["fits"]]
rest = fit[len(sim):]
assert all(rest[i]["analytic_s"] <= rest[i + 1]["analytic_s"] for i in range(len(rest) - 1))
assert all(c["why"].startswith(("not simulated", "ties with")) for c in rest), rest
nofit = [c for c in r if not c["fits"]]
assert nofit and r[len(fit):] == nofit, "those that do not fit last"
assert all(c["why"].startswith("does not fit: ") and c["memory_bytes"] > 16e9 for c in nofit)
# the simulated ones are the four fastest fitting strategies by the model, each with the
# gradient allreduce the model prices fastest for it (the others of it are not simulated)
base = lambda c: c["strategy"].split(" --allreduce ")[0]
by_model, seen = [], set()
for c in sorted(fit, key=lambda c: c["analytic_s"]):
    if base(c) not in seen and len(by_model) < 4:
        by_model.append(c["strategy"]), seen.add(base(c))
assert set(by_model) <= {c["strategy"] for c in sim}, (by_model, sim)
assert len({base(c) for c in sim}) == len(sim), "one algorithm a strategy simulated"
assert any(c["why"].startswith("not simulated: another allreduce of ") for c in rest)
print("e2e_suggest: %s first at %.6f s simulated; %d ranked, %d do not fit" % (
    r[0]["strategy"], r[0]["simulated_s"], len(r), len(nofit)))
PY

# the gradient allreduce's algorithms are candidates where the model prices them faster than
# the ring: ResNet-50 data parallelism on 64 GPUs is fastest with NCCL's rings (each step paying
# its own edge's latency, 8.98 ms against hier's 10.51), and its simulated time is what
# `simulate -s data --allreduce rings` gives
"$HS" suggest -w resnet50 -p abci -g 64 --batch-per-gpu 32 --top 2 --json >"$TMP/a.json" \
    2>/dev/null || fail "suggest resnet50: exit $?"
"$HS" simulate -w resnet50 -p abci -s data -g 64 -b 2048 --allreduce rings --json \
    >"$TMP/rings.json" 2>/dev/null || fail "simulate data rings: exit $?"
python3 - "$TMP/a.json" "$TMP/rings.json" <<'PY' || fail "allreduce candidates"
import json, sys
r = json.load(open(sys.argv[1]))["ranking"]
rings = json.load(open(sys.argv[2]))["iteration"]["total_s"]
names = [c["strategy"] for c in r]
assert names[0] == "data --allreduce rings", names[:3]
assert {"data --allreduce tree", "data --allreduce hier"} <= set(names), names
assert abs(r[0]["simulated_s"] / rings - 1) < 1e-12, (r[0], rings)
ring = next(c for c in r if c["strategy"] == "data")
assert all(c["analytic_s"] < ring["analytic_s"] for c in r if c["strategy"].startswith("data --"))
# filter and channel have no gradient allreduce: no variant prices faster
assert not [n for n in names if n.startswith(("filter --", "channel --"))], names
print("e2e_suggest: %s first, %.6f s; ring %.6f s by the model" % (
    names[0], r[0]["simulated_s"], ring["analytic_s"]))
PY

# budgets: the fewest GPUs reaching an epoch time, the fastest within a GPU count
"$HS" suggest -w resnet50 -p abci --batch-per-gpu 32 --target-epoch-s 300 >"$TMP/t" 2>/dev/null ||
    fail "--target-epoch-s: exit $?"
grep -Eq "^  answer: .* on 16 GPUs, 2[0-9][0-9]\.[0-9]+ s an epoch" "$TMP/t" ||
    { fail "--target-epoch-s 300: not 16 GPUs"; cat "$TMP/t"; }
"$HS" suggest -w vgg16 -p abci -b 2048 --max-gpus 64 --top 2 >"$TMP/m" 2>/dev/null ||
    fail "--max-gpus: exit $?"
grep -q "^      32  (nothing fits" "$TMP/m" && grep -q "^  answer: .* on 64 GPUs" "$TMP/m" ||
    { fail "--max-gpus 64 at batch 2048: 64 GPUs, 32 do not fit"; cat "$TMP/m"; }

# --overlap reaches every candidate, as a single run's flag (the data candidate's model time is
# analytic --overlap's); --overlap=off holds against a runtime's overlap (DDP's buckets).
job=(-w resnet50 -p abci -g 8 -b 256)
"$HS" suggest "${job[@]}" --top 0 --overlap --json >"$TMP/ov.json" 2>/dev/null || fail "--overlap: exit $?"
"$HS" suggest "${job[@]}" --top 0 --runtime pytorch-ddp --overlap=off --json >"$TMP/off.json" \
    2>/dev/null || fail "--overlap=off: exit $?"
for f in "" --overlap; do
    "$HS" analytic "${job[@]}" -s data $f --json >"$TMP/an$f.json" || fail "analytic $f: exit $?"
done
"$HS" analytic "${job[@]}" -s data --runtime pytorch-ddp --overlap=off --json >"$TMP/an-off.json" ||
    fail "analytic --runtime pytorch-ddp --overlap=off: exit $?"
python3 - "$TMP" <<'PY' || fail "suggest --overlap: the data candidate is not analytic --overlap's"
import json, sys
d = sys.argv[1]
data = lambda f: next(c["analytic_s"] for c in json.load(open(f"{d}/{f}"))["ranking"]
                      if c["strategy"] == "data --allreduce auto" or c["strategy"] == "data")
total = lambda f: json.load(open(f"{d}/{f}"))["iteration"]["total_s"]
assert data("ov.json") == total("an--overlap.json") < total("an.json"), (data("ov.json"),)
assert data("off.json") == total("an-off.json"), (data("off.json"), total("an-off.json"))
PY

# no candidate priced without its compute: EfficientNet-B0 has no measured time, the model
# times every candidate, the pipelines' stages too (priced at 0 compute before)
"$HS" suggest -w efficientnet-b0 -p abci -g 16 -b 512 --top 0 --json >"$TMP/eff.json" \
    2>"$TMP/err" || fail "suggest efficientnet-b0: $(cat "$TMP/err")"
python3 - "$TMP/eff.json" <<'PY' || fail "efficientnet-b0: a candidate ranked without its compute"
import json, sys
r = json.load(open(sys.argv[1]))["ranking"]
zero = [c["strategy"] for c in r if not c["compute_s"] > 0]
assert not zero, zero
pipes = [c for c in r if c["strategy"].startswith("pipeline")]
assert len(pipes) == 3, [c["strategy"] for c in r]
data = next(c for c in r if c["strategy"] == "data")
assert all(c["compute_s"] > data["compute_s"] for c in pipes), (pipes, data)  # bubbles
print("e2e_suggest: efficientnet-b0, %d ranked, every compute > 0 (pipeline %.6f s)" % (
    len(r), next(c for c in pipes if c["strategy"] == "pipeline")["compute_s"]))
PY
# on a GPU the model does not know, nothing times it: refused, not ranked at 0 compute
"$HS" platform --preset abci --nodes 4 --nodes-per-leaf 2 --leaves-per-rack 2 \
    -o "$TMP/v100.xml" >/dev/null 2>&1 || fail "platform for an unknown GPU"
grep -v 'hybridsim:gpu_device' "$TMP/v100.xml" |
    sed 's/id="hybridsim:gpu_model" value="[^"]*"/id="hybridsim:gpu_model" value="x100"/' \
    >"$TMP/x100.xml"
expect_bad_hs "no compute time" "no strategy can be priced with its compute" \
    suggest -w efficientnet-b0 -p "$TMP/x100.xml" -g 16 -b 512

expect_bad_hs "no batch" "-b BATCH or --batch-per-gpu" suggest -w vgg16 -g 8
expect_bad_hs "both batches" "give one" suggest -w vgg16 -g 8 -b 64 --batch-per-gpu 8
expect_bad_hs "too many GPUs" "has 4352 GPUs" suggest -w vgg16 -g 8192 --batch-per-gpu 8
expect_bad_hs "unknown flag" "--frobnicate" suggest -w vgg16 -g 8 -b 64 --frobnicate
expect_bad_hs "bad --top" "--top" suggest -w vgg16 -g 8 -b 64 --top -1
expect_bad_hs "unknown workload" "unknown workload" suggest -w nosuch -g 8 -b 64
expect_bad_hs "-g and a budget" "give one" suggest -w vgg16 -g 8 -b 64 --max-gpus 8
expect_bad_hs "two budgets" "give one" suggest -w vgg16 -b 64 --max-gpus 8 --target-epoch-s 60
expect_bad_hs "bad target" "--target-epoch-s" suggest -w vgg16 -b 64 --target-epoch-s soon
# --halo and --filter-backward reach every candidate they apply to: the built-ins price as
# analytic's with the flag, the file strategy --search writes carries them (<setting/>)
job=(-w resnet50 -p abci -g 16 -b 64)
for h in chain sendrecv; do
    "$HS" suggest "${job[@]}" --top 0 --halo $h --json >"$TMP/halo-$h.json" 2>"$TMP/err" ||
        fail "suggest --halo $h: $(cat "$TMP/err")"
    "$HS" analytic "${job[@]}" -s data+spatial:4x4 --halo $h --json >"$TMP/an-$h.json" ||
        fail "analytic --halo $h: exit $?"
done
python3 - "$TMP" <<'PY' || fail "suggest --halo: the data+spatial candidate is not analytic --halo's"
import json, sys
d = sys.argv[1]
ds = lambda h: next(c["analytic_s"] for c in json.load(open(f"{d}/halo-{h}.json"))["ranking"]
                    if c["strategy"] == "data+spatial:4x4")
total = lambda h: json.load(open(f"{d}/an-{h}.json"))["iteration"]["total_s"]
assert ds("chain") == total("chain") and ds("sendrecv") == total("sendrecv"), (ds("chain"), ds("sendrecv"))
assert ds("sendrecv") < 0.5 * ds("chain"), (ds("sendrecv"), ds("chain"))
PY
"$HS" suggest "${job[@]}" --top 0 --filter-backward allreduce --json >"$TMP/fb.json" 2>"$TMP/err" ||
    fail "suggest --filter-backward allreduce: $(cat "$TMP/err")"
"$HS" analytic "${job[@]}" -s data+filter:4x4 --filter-backward allreduce --json >"$TMP/an-fb.json" ||
    fail "analytic --filter-backward allreduce: exit $?"
python3 - "$TMP" <<'PY' || fail "suggest --filter-backward: the data+filter candidate is not analytic's"
import json, sys
d = sys.argv[1]
df = next(c["analytic_s"] for c in json.load(open(f"{d}/fb.json"))["ranking"]
          if c["strategy"] == "data+filter:4x4")
assert df == json.load(open(f"{d}/an-fb.json"))["iteration"]["total_s"], df
PY
if expect_ok "strategy --search --halo sendrecv" strategy --search "${job[@]}" --top 1 --halo sendrecv --filter-backward allreduce -o "$TMP/se.xml"; then
    grep -q '<setting key="halo" value="sendrecv"/>' "$TMP/se.xml" || fail "--search: no halo setting in the file"
    grep -q '<setting key="filter-backward" value="allreduce"/>' "$TMP/se.xml" ||
        fail "--search: no filter-backward setting in the file"
fi
"$HS" suggest --help >"$TMP/help" || fail "--help: exit status"
grep -q -- "--batch-per-gpu" "$TMP/help" || fail "--help"

finish e2e_suggest
