#!/usr/bin/env bash
# e2e_search.sh: `hybridsim strategy --search`: PaSE's AlexNet, RNNLM and Transformer check
# values through the command (table and JSON), and its contract: bad input gives exit status 2, a message naming the flag
# or file, and nothing on stdout.
# Usage (from ctest): e2e_search.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"


search=(strategy --search -w pase-alexnet -b 128 --cost-model pase)
"$HS" "${search[@]}" -g 8 >"$TMP/p8" 2>"$TMP/err" || fail "p = 8: exit $?"
grep -q "total 97098296512.00 = " "$TMP/p8" || fail "p = 8 total"
grep -Eq "^ +10  FC6 +fc +1 +2 +4 +1 +1 +8 +5253365760.00 +2580480000.00$" "$TMP/p8" ||
    fail "p = 8: fc6 (1, 2, 4), its cost and the redistribution into it"
[ -s "$TMP/err" ] && fail "p = 8: wrote to stderr"

"$HS" "${search[@]}" -g 32 --json >"$TMP/p32.json" || fail "p = 32 --json: exit $?"
python3 - "$TMP/p32.json" <<'PY' || fail "p = 32 JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert "%.2f" % j["total"] == "53136349552.00", j["total"]
s = {v["name"]: (v["split"]["b"], v["split"]["f"], v["split"]["c"]) for v in j["vertices"]}
assert s["CONV4"] == (16, 1, 2) and s["CONV5"] == (16, 1, 2) and s["CONV3"] == (32, 1, 1), s
assert s["FC6"] == (1, 4, 8) and s["FC7"] == (1, 8, 4) and s["SOFTMAX"] == (1, 1, 4), s
assert abs(sum(v["cost"] for v in j["vertices"]) + sum(e["cost"] for e in j["edges"])
           - j["total"]) < 1e-3
assert [l["vertex"] for l in j["layers"]][:3] == [0, 0, 1]  # RELU1 follows CONV1
PY

# PaSE's sequence models: each split as PaSE writes it (its dims' letters, then the splits)
"$HS" strategy --search -w pase-rnnlm -g 8 -b 64 --cost-model pase >"$TMP/rnn" ||
    fail "rnnlm: exit $?"
grep -q "total 4024963186688.00 = " "$TMP/rnn" || fail "rnnlm p = 8 total"
grep -Eq "^ +1  LSTM +lstm +lsbnk 2,1,4,1,1 +8 +664277090304.00 +83886080000.00$" "$TMP/rnn" ||
    fail "rnnlm p = 8: the LSTM's split (2 layers x 4 batch), its cost and the redistribution"
"$HS" strategy --search -w pase-transformer -g 4 -b 64 --cost-model pase --json \
    >"$TMP/tr.json" || fail "transformer --json: exit $?"
python3 - "$TMP/tr.json" <<'PY' || fail "transformer p = 4 JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert "%.2f" % j["total"] == "2189181321216.00", j["total"]
v = {x["name"]: (x["pase_dims"], x["pase_split"]) for x in j["vertices"]}
assert len(v) == 204 and v["E0_QKV"] == ("sbhlke", [1, 4, 1, 1, 1, 1]), v["E0_QKV"]
assert v["ENC_EMBED"] == ("bsdv", [1, 1, 1, 4]) and v["PROJ"] == ("bsvd", [2, 1, 2, 1]), v
PY
expect_bad_hs "sequence model, hybridsim cost, bad -g" "-g: 0 is out of range" \
    strategy --search -w pase-rnnlm -g 0 -b 64

expect_bad_hs "no action" "--search" strategy -w pase-alexnet -g 8 -b 128
expect_bad_hs "missing -b" "-b BATCH" strategy --search -w pase-alexnet -g 8 --cost-model pase
expect_bad_hs "-o with pase" "-o is for --cost-model hybridsim" "${search[@]}" -g 8 -o "$TMP/x.xml"
# PaSE's model prices -w, -g and -b alone: a machine or a job key it would leave unused is
# refused, not ignored
expect_bad_hs "-p with pase" "-p is for --cost-model hybridsim" "${search[@]}" -g 8 -p dgx1
expect_bad_hs "--precision with pase" "--precision is for --cost-model hybridsim" \
    "${search[@]}" -g 8 --precision mixed
expect_bad_hs "--top with --analytic-only" "--top 3: simulates the 3 fastest by the model, and --analytic-only simulates none" \
    strategy --search -w pase-alexnet -g 8 -b 128 --analytic-only --top 3
expect_bad_hs "unknown cost model" "'flops'" "${search[@]}" -g 8 --cost-model flops
expect_bad_hs "bad -g" "-g: 0 is out of range" "${search[@]}" -g 0
expect_bad_hs "unknown flag" "--frobnicate" "${search[@]}" -g 8 --frobnicate
expect_bad_hs "missing workload" "nosuch.xml" strategy --search -w "$TMP/nosuch.xml" -g 8 -b 128 --cost-model pase
expect_bad_hs "3-D workload" "2-D images only" strategy --search -w cosmoflow-256 -g 8 -b 16 --cost-model pase
expect_bad_hs "table bound" "would exceed 10 entries" "${search[@]}" -g 8 --max-table 10
"$HS" strategy --help >"$TMP/help" 2>&1 && grep -q -- "--cost-model" "$TMP/help" || fail "--help"

finish e2e_search
