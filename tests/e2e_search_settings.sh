#!/usr/bin/env bash
# e2e_search_settings.sh: `hybridsim strategy --search` prices under the job's settings as
# `analytic` prices the file it writes. For ResNet-50 (16 GPUs at 4 samples a GPU, also under
# --runtime horovod-nccl --overlap=off: a plan's closed form does not overlap its gradients; 64
# GPUs at 64), PaSE's AlexNet (8 GPUs) and PaSE's RNNLM (32 GPUs) on abci, with --halo sendrecv
# and chain and --filter-backward allreduce and reduce-scatter: the answer's analytic time
# equals `analytic -s FILE` under the same flags; the search's own plan, priced by the exact
# model as the search reports it (its polished price, made inside the search), equals that
# plan's analytic time as a candidate and, when the answer is that plan (with any gradient
# allreduce), `analytic -s FILE --allreduce ALGO` with the job's algorithm (the ring, or the
# runtime's), which the search priced; the file carries the two settings. A search that priced
# its candidates with chained halos or reduce-scattered filter gathers whatever the job said
# fails: ResNet-50 at 16 GPUs with --filter-backward allreduce has a gather of filter blocks in
# the search's plan.
# Usage (from ctest): e2e_search_settings.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

runs=0
# workload:GPUs:batch:runtime:the gradient allreduce the job runs (the runtime's: horovod-nccl's
# is NCCL's choice, which the search makes for the fused buffer)
for case in resnet50:16:64::ring resnet50:64:4096::ring pase-alexnet:8:128::ring \
    pase-rnnlm:32:64::ring resnet50:16:64:horovod-nccl:auto; do
    IFS=: read -r w g b rt algo <<<"$case"
    for halo in sendrecv chain; do
        for fb in allreduce reduce-scatter; do
            flags=(-w "$w" -p abci -g "$g" -b "$b" --halo "$halo" --filter-backward "$fb")
            [ -n "$rt" ] && flags+=(--runtime "$rt" --overlap=off)
            f="$TMP/$w-$g-$halo-$fb-$rt.xml"
            if ! "$HS" strategy --search "${flags[@]}" --analytic-only -o "$f" --json \
                >"$TMP/out.json" 2>"$TMP/err"; then
                fail "$w g=$g $halo $fb: exit $? $(cat "$TMP/err")"
                continue
            fi
            if ! "$HS" analytic "${flags[@]}" -s "$f" --json >"$TMP/an.json" 2>"$TMP/err"; then
                fail "$w g=$g $halo $fb: analytic -s: $(cat "$TMP/err")"
                continue
            fi
            # The file as the search priced it: its gradients by the job's algorithm, not by the
            # one the oracle chose among the variants.
            "$HS" analytic "${flags[@]}" -s "$f" --allreduce "$algo" --json >"$TMP/job.json" \
                2>"$TMP/err" || fail "$w g=$g $halo $fb: analytic -s --allreduce $algo"
            grep -q "key=\"halo\" value=\"$halo\"" "$f" || fail "$w g=$g: no halo $halo in the file"
            grep -q "key=\"filter-backward\" value=\"$fb\"" "$f" ||
                fail "$w g=$g: no filter-backward $fb in the file"
            python3 - "$TMP/out.json" "$TMP/an.json" "$TMP/job.json" \
                "$w g=$g --halo $halo --filter-backward $fb ${rt:+--runtime $rt}" \
                <<'PY' || fail "$w g=$g $halo $fb"
import json, sys
(j, an, job), what = (json.load(open(a)) for a in sys.argv[1:4]), sys.argv[4]
file_s, job_s = an["iteration"]["total_s"], job["iteration"]["total_s"]
answer = j["searched"]
same = lambda a, b: abs(a - b) <= 1e-12 * max(abs(a), abs(b))
assert same(answer["analytic_s"], file_s), ("the answer's analytic time", answer, file_s)
s = j["search"]
line = "%s: answer %s %.9f s, the file %.9f s" % (what, answer["strategy"], answer["analytic_s"],
                                                   file_s)
if "polished_s" in s:
    polished = s["polished_s"]
    line += "; the search's plan %.9f s exact, polished %.9f s" % (s["exact_s"], polished)
    if "plan" in s:
        assert same(polished, s["plan"]["analytic_s"]), ("the plan as a candidate", s)
    if answer["strategy"].split()[0] == "searched":  # the search's plan was written
        assert same(polished, job_s), ("the search's price of its answer", polished, job_s)
        line += " = the file's with the job's allreduce"
print(line)
PY
            runs=$((runs + 1))
        done
    done
done
[ "$runs" -eq 20 ] || fail "$runs of 20 searches checked"

finish e2e_search_settings
