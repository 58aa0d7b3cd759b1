#!/usr/bin/env bash
# e2e_sweep.sh: `hybridsim sweep` from the outside: the job list run by real GNU parallel and
# the Slurm array script (run task by task) merge into the direct sweep's CSV; a sweep killed
# with SIGKILL or interrupted with SIGINT resumes without redoing finished rows; bad input
# exits 2 naming the file:line or flag with nothing on stdout; the shipped example parses.
# Usage (from ctest): e2e_sweep.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(realpath "$1")"
SRC="$(realpath "$2")"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
cd "$TMP" || exit 1

rows() { tail -n +2 "$1" | wc -l; }

sweep_args=(-m analytic -w resnet50 -p abci -s data,filter,data+filter:2x4 -g 8,128
            --batch-per-gpu 32 -b 512)
n=12 # configurations

# ---- the direct sweep: the reference ----
"$HS" sweep "${sweep_args[@]}" -o direct.csv -j 2 2>direct.err || { fail "direct sweep"; cat direct.err; }
[ "$(rows direct.csv)" -eq $n ] || fail "direct sweep: $(rows direct.csv) rows, expected $n"
grep -q ',error,-g 128: filter' direct.csv || fail "direct sweep: no error row for filter at 128 GPUs"
grep -q "^sweep: $n configurations" direct.err || fail "direct sweep: no progress lines on stderr"

# ---- GNU parallel: emit, run for real, merge ----
if ! command -v parallel >/dev/null; then
    echo "SKIP [GNU parallel]: 'parallel' is not installed (tests/run.sh installs it)"
else
    "$HS" sweep "${sweep_args[@]}" --emit parallel jobs.txt 2>emit.err || { fail "emit parallel"; cat emit.err; }
    [ "$(wc -l <jobs.txt)" -eq $n ] || fail "emit parallel: $(wc -l <jobs.txt) jobs, expected $n"
    grep -q "sweep --quiet --jobs 1 --mode analytic -w resnet50 -p abci -s filter -b 32/gpu -g 128 -o jobs.txt.d/" jobs.txt ||
        fail "emit parallel: job line"
    parallel --will-cite -j 2 <jobs.txt || fail "GNU parallel run"
    "$HS" sweep --merge jobs.txt.d -o merged.csv 2>merge.err || { fail "merge"; cat merge.err; }
    diff <(strip_wall direct.csv) <(strip_wall merged.csv) >diff.out || { fail "merge of GNU parallel != direct sweep"; head diff.out; }
    # a job run again (parallel --resume style) finds its row and runs nothing
    first_job="$(head -1 jobs.txt)"
    before="$(cat jobs.txt.d/000000.csv)"
    bash -c "$first_job --log again.log" || fail "rerun of a job"
    [ ! -s again.log ] || fail "a finished job ran again"
    [ "$before" = "$(cat jobs.txt.d/000000.csv)" ] || fail "a finished job's row changed"
    # a missing job: merge warns and keeps the rest
    rm jobs.txt.d/000003.csv
    "$HS" sweep --merge jobs.txt.d -o partial.csv 2>partial.err || fail "merge with a missing job"
    grep -q "1 of $n jobs have no row yet (000003)" partial.err || { fail "merge: missing job not named"; cat partial.err; }
    [ "$(rows partial.csv)" -eq $((n - 1)) ] || fail "merge with a missing job: $(rows partial.csv) rows"
fi

# ---- Slurm: the array script, each task run as Slurm would ----
"$HS" sweep "${sweep_args[@]}" --emit slurm array.sh --emit-dir slurm.d 2>/dev/null || fail "emit slurm"
bash -n array.sh || fail "slurm script is not valid bash"
grep -q "^#SBATCH --array=0-$((n - 1))\$" array.sh || fail "slurm script: --array=0-$((n - 1))"
for i in $(seq 0 $((n - 1))); do
    SLURM_ARRAY_TASK_ID=$i bash array.sh || fail "slurm task $i"
done
SLURM_ARRAY_TASK_ID=$n bash array.sh 2>/dev/null && fail "slurm task $n should not exist"
"$HS" sweep --merge slurm.d -o slurm.csv --quiet || fail "merge slurm"
diff <(strip_wall direct.csv) <(strip_wall slurm.csv) >/dev/null || fail "merge of Slurm tasks != direct sweep"

# ---- SIGKILL mid-sweep, then resume ----
kill_args=(-m compare -w resnet50 -p abci -s data,filter -g 4,8 --batch-per-gpu 16 -j 1)
k=4 # configurations
E2E_SWEEP_MARK="$TMP" "$HS" sweep "${kill_args[@]}" -o killed.csv --log killed.log 2>/dev/null &
pid=$!
for _ in $(seq 1 600); do
    [ -f killed.csv ] && [ "$(rows killed.csv)" -ge 2 ] && break
    sleep 0.05
done
kill_child KILL "$pid"
wait "$pid" 2>/dev/null
# complete lines only: a row cut by the kill does not count as done
done_rows="$(grep -c '' killed.csv)"
done_rows=$((done_rows - 1))
[ -n "$(tail -c1 killed.csv)" ] && done_rows=$((done_rows - 1))
head -n $((done_rows + 1)) killed.csv | tail -n +2 >finished-before.txt
echo "SIGKILL after $done_rows of $k rows"
if [ "$done_rows" -ge $k ]; then
    echo "NOTE: the sweep finished before it could be killed; the resume check is vacuous"
fi
"$HS" sweep "${kill_args[@]}" -o killed.csv --log resumed.log 2>/dev/null || fail "resume after SIGKILL"
[ "$(rows killed.csv)" -eq $k ] || fail "resume after SIGKILL: $(rows killed.csv) rows, expected $k"
[ "$(wc -l <resumed.log)" -eq $((k - done_rows)) ] ||
    fail "resume after SIGKILL ran $(wc -l <resumed.log) configurations, expected $((k - done_rows))"
while IFS= read -r row; do
    grep -qxF -- "$row" killed.csv || fail "a row finished before SIGKILL changed: ${row%%,*}"
done <finished-before.txt
# the killed sweep's children die with it (PR_SET_PDEATHSIG): within 10 s, on a loaded machine
# too (a fixed half second was not always enough under the sanitizers at ctest -j3)
for _ in $(seq 100); do
    grep -lsF "E2E_SWEEP_MARK=$TMP" /proc/[0-9]*/environ >/dev/null || break
    sleep 0.1
done
grep -lsF "E2E_SWEEP_MARK=$TMP" /proc/[0-9]*/environ >/dev/null && fail "runs of the killed sweep are still alive"
"$HS" sweep "${kill_args[@]}" -o reference.csv 2>/dev/null
diff <(strip_wall reference.csv) <(strip_wall killed.csv) >/dev/null || fail "resumed CSV != uninterrupted CSV"

# ---- SIGINT: a clean stop with exit 130 (128 + SIGINT) and a message, then resume ----
# (job control on: a script's background job would otherwise start with SIGINT ignored)
set -m
"$HS" sweep "${kill_args[@]}" -o int.csv 2>int.err &
pid=$!
set +m
for _ in $(seq 1 600); do
    [ -f int.csv ] && [ "$(rows int.csv)" -ge 1 ] && break
    sleep 0.05
done
kill_child INT "$pid"
wait "$pid"
rc=$?
echo "SIGINT after $(rows int.csv) of $k rows"
if [ "$(rows int.csv)" -lt $k ]; then
    [ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, expected 130"
    grep -q "interrupted by SIGINT" int.err || { fail "SIGINT: no message"; cat int.err; }
fi
[ -z "$(tail -c1 int.csv)" ] || fail "SIGINT left a partial line"
"$HS" sweep "${kill_args[@]}" -o int.csv 2>/dev/null || fail "resume after SIGINT"
diff <(strip_wall reference.csv) <(strip_wall int.csv) >/dev/null || fail "CSV after SIGINT + resume != uninterrupted"

# ---- bad input: exit 2, the file:line or flag named, nothing on stdout ----
bad_sweep() { # bad_sweep NAME NEEDLE ARGS...: expect_bad of "$HS" sweep ARGS
    local name="$1" needle="$2"
    shift 2
    expect_bad "$name" "$needle" "$HS" sweep "$@"
}
printf 'workloads = resnet50\nplatforms = abci\n# comment\nstrategy = data\ngpu = 4\n' >bad.sweep
bad_sweep "unknown key" "bad.sweep:5: unknown key 'gpu'" bad.sweep -o x.csv
printf 'workloads = resnet50\nplatforms = abci\nstrategies = data\ngpus = 4\nbatch = 64/rack\n' >bad2.sweep
bad_sweep "bad batch rule" "bad2.sweep:5: batch: '64/rack'" bad2.sweep -o x.csv
bad_sweep "missing sweep file" "nosuch.sweep: cannot read" nosuch.sweep -o x.csv
bad_sweep "unknown flag" "--frobnicate" -w resnet50 --frobnicate
bad_sweep "bad gpus flag" "-g: 'x4' is not a whole number" -w resnet50 -p abci -s data -g x4 -b 64 -o x.csv
bad_sweep "unknown placement" "-P: unknown value 'random'" -w resnet50 -p abci -s data -g 4 -b 64 -P random -o x.csv
bad_sweep "missing merge dir" "--merge nosuch.d" --merge nosuch.d -o x.csv
bad_sweep "unwritable output" "-o /nonexistent/x.csv" -w resnet50 -p abci -s data -g 4 -b 64 -o /nonexistent/x.csv
[ ! -e x.csv ] || fail "bad input left an output file"
# (into a file: grep -q closing a pipe early fails hybridsim's checked write under pipefail)
"$HS" sweep --help >help.txt && grep -q "batch-per-gpu" help.txt || fail "sweep --help"

# ---- the gradient allreduce as a dimension: the strategy column names a non-ring one as the
# command line runs it, the run gets the flag (NCCL's rings halve data parallelism's bandwidth
# term on 32 GPUs; a data+filter group's ring has one GPU a node, so its rings are the ring) ----
"$HS" sweep -w resnet50 -p abci -s data,data+filter:8x4 -g 32 --batch-per-gpu 32 -m analytic \
    --allreduce ring,rings -o allreduce.csv --quiet || fail "sweep --allreduce: exit $?"
python3 - allreduce.csv <<'PY' || fail "sweep --allreduce rows"
import csv, sys
rows = {r["strategy"]: float(r["an_iter_total_s"]) for r in csv.DictReader(open(sys.argv[1]))}
assert list(rows) == ["data", "data --allreduce rings", "data+filter:8x4",
                      "data+filter:8x4 --allreduce rings"], list(rows)
assert rows["data --allreduce rings"] < rows["data"] - 5e-3, rows
assert rows["data+filter:8x4 --allreduce rings"] == rows["data+filter:8x4"], rows
PY
"$HS" sweep -w resnet50 -p abci -s data -g 8 -b 64 --allreduce tree --emit parallel ar.jobs \
    --quiet && grep -q -- "-s data .* --allreduce tree " ar.jobs || fail "--emit passes --allreduce"
bad_sweep "unknown allreduce" "--allreduce: unknown algorithm 'nccl'" -w resnet50 -p abci -s data \
    -g 4 -b 64 --allreduce nccl -o x.csv

# ---- generated machines with flags in a list: a gen: spec keeps its FLAG=VALUE items, so
# routed uplinks (one cable a flow) sweep beside the fat ones; the channel trees' flows collide
# on rack cables under hashing (platforms/README.md "Routed uplinks") ----
"$HS" sweep -w resnet50 -p "gen:abci:nodes=272,uplink-routing=hash, gen:abci:nodes=272" -s data \
    --allreduce tree -g 1024 --batch-per-gpu 32 -m simulate -o routed.csv --quiet ||
    fail "sweep of gen: specs: exit $?"
python3 - routed.csv <<'PY' || fail "sweep of gen: specs, rows"
import csv, sys
rows = {r["platform"]: float(r["sim_iter_total_s"]) for r in csv.DictReader(open(sys.argv[1]))}
assert sorted(rows) == ["gen:abci:nodes=272", "gen:abci:nodes=272,uplink-routing=hash"], rows
assert rows["gen:abci:nodes=272,uplink-routing=hash"] > rows["gen:abci:nodes=272"] + 5e-3, rows
PY
bad_sweep "bad flag in a gen: spec" "hybridsim: -p gen:abci:uplink-routing=ecmp: --uplink-routing: unknown value" \
    -w resnet50 -p "gen:abci:uplink-routing=ecmp, abci" -s data -g 64 -b 2048 -o x.csv

# ---- the shipped sweeps parse and emit (running them is the experiments' business) ----
for f in "$SRC"/experiments/sweeps/*.sweep; do
    (cd "$SRC" && "$HS" sweep "$f" --emit parallel "$TMP/shipped.jobs" --quiet) ||
        fail "$f does not parse"
done
[ "$(wc -l <"$TMP/shipped.jobs")" -ge 1 ] || fail "a shipped sweep has no configurations"
(cd "$SRC" && "$HS" sweep experiments/sweeps/example.sweep --emit parallel "$TMP/example.jobs" --quiet)
[ "$(wc -l <"$TMP/example.jobs")" -eq 8 ] || fail "example.sweep: $(wc -l <"$TMP/example.jobs") jobs, expected 8"

# -P scatter, which the run commands take, is a sweep placement too: its row is simulate's run.
"$HS" sweep -m simulate -w resnet50 -p abci -s data -g 8 -b 256 -P scatter -o "$TMP/scatter.csv" \
    --quiet || fail "sweep -P scatter"
col="$(head -1 "$TMP/scatter.csv" | tr ',' '\n' | grep -nx sim_iter_total_s | cut -d: -f1)"
row_s="$(tail -1 "$TMP/scatter.csv" | cut -d, -f"$col")"
run_s="$("$HS" simulate -w resnet50 -p abci -s data -g 8 -b 256 -P scatter --json |
    python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["iteration"]["total_s"]))')"
python3 -c "import sys; sys.exit(float('$row_s') != float('$run_s'))" ||
    fail "sweep -P scatter: row $row_s s, simulate $run_s s"

# A switch key for every run: --overlap on reaches each run (its row is analytic --overlap's and
# its key ends "|overlap=on"), and an emitted job carries the one-value keys as the direct run.
"$HS" sweep -m analytic -w resnet50 -p abci -s data -g 8 -b 256 --overlap on --precision mixed \
    -o "$TMP/overlap.csv" --quiet || fail "sweep --overlap on"
col="$(head -1 "$TMP/overlap.csv" | tr ',' '\n' | grep -nx an_iter_total_s | cut -d: -f1)"
row_s="$(tail -1 "$TMP/overlap.csv" | cut -d, -f"$col")"
run_s="$("$HS" analytic -w resnet50 -p abci -s data -g 8 -b 256 --overlap --precision mixed --json |
    python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["iteration"]["total_s"]))')"
python3 -c "import sys; sys.exit(float('$row_s') != float('$run_s'))" ||
    fail "sweep --overlap on: row $row_s s, analytic --overlap $run_s s"
grep -q '|overlap=on|precision=mixed,' "$TMP/overlap.csv" || fail "sweep --overlap on: not in the row's key"
"$HS" sweep -m analytic -w resnet50 -p abci -s data -g 8 -b 256 --overlap on --precision mixed \
    --emit parallel "$TMP/overlap.jobs" --quiet || fail "emit with job keys"
grep -q -- '--overlap on --precision mixed' "$TMP/overlap.jobs" ||
    fail "an emitted job lost the one-value keys: $(cat "$TMP/overlap.jobs")"
bad_sweep "overlap neither on nor off" "--overlap: 'yes' is not on or off" \
    -m analytic -w resnet50 -p abci -s data -g 8 -b 256 --overlap yes -o x.csv

finish e2e_sweep
