#!/usr/bin/env bash
# e2e_slurm.sh: a sweep run on a real Slurm. Brings up Slurm on this machine (Debian's
# slurmctld and slurmd with munge, installed here when missing: apt-get install
# --no-install-recommends slurmctld slurmd slurm-client munge, 7 packages), each daemon on a
# private configuration in a temporary folder (its own munge key and socket, free ports, state
# and spool, one node of this machine's cores); emits a sweep as a Slurm job array (`hybridsim
# sweep --emit slurm`), submits it with `sbatch --wait` from another folder (the tasks' output
# files are relative to the sweep's: without --chdir in the script every task failed, silently),
# merges its rows (`--merge`) and compares them with the same sweep run locally: every column
# but the wall time identical.
# Then it shuts the daemons down (scontrol shutdown, then each by its pid) and fails if one is
# left. Skipped (exit 77) where the packages cannot be installed, without root (slurmd starts
# jobs as their user), or where the daemons do not come up. About 20 s once installed.
# Usage (from ctest): e2e_slurm.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
export PATH="$PATH:/usr/sbin:/sbin"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
skip() { echo "e2e_slurm: skipped: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd runs jobs as their user)"
have_all() {
    local c
    for c in slurmctld slurmd sbatch scontrol sinfo munged munge; do
        command -v "$c" >/dev/null || return 1
    done
}
if ! have_all; then
    command -v apt-get >/dev/null || skip "no Slurm and no apt-get to install it"
    # services the packages would start on a machine with systemd: stopped again below if
    # they were not running before
    services=(munge slurmctld slurmd)
    before=()
    if [ -d /run/systemd/system ]; then
        for s in "${services[@]}"; do systemctl is-active --quiet "$s" && before+=("$s"); done
    fi
    echo "e2e_slurm: installing slurmctld slurmd slurm-client munge"
    pkgs=(slurmctld slurmd slurm-client munge)
    if ! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq \
            --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1; then
        timeout 300 apt-get update -qq >/dev/null 2>&1
        DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq \
            --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1 ||
            skip "the Slurm packages cannot be installed"
    fi
    if [ -d /run/systemd/system ]; then
        for s in "${services[@]}"; do
            [[ " ${before[*]} " == *" $s "* ]] || systemctl stop "$s" 2>/dev/null || true
        done
    fi
    have_all || skip "installed, but slurmctld, slurmd, sbatch or munged is missing"
fi
command -v python3 >/dev/null || skip "needs python3 (free ports, the comparison)"

chmod 700 "$TMP"
pids=()
stop_daemons() {
    [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] && timeout 10 scontrol shutdown >/dev/null 2>&1
    local p i
    for i in $(seq 1 50); do # up to 5 s for a clean exit
        local alive=0
        for p in "${pids[@]}"; do child_alive "$p" && alive=1; done
        [ "$alive" -eq 0 ] && break
        [ "$i" -eq 20 ] && for p in "${pids[@]}"; do kill_child TERM "$p"; done
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill_child KILL "$p"; done
    wait 2>/dev/null
}
trap 'stop_daemons; rm -rf "$TMP"' EXIT

# munge: its own key and socket
mkdir -p "$TMP/state" "$TMP/spool" "$TMP/run"
head -c 1024 /dev/urandom >"$TMP/munge.key"
chmod 600 "$TMP/munge.key"
munged -F -f --socket="$TMP/munge.sock" --key-file="$TMP/munge.key" --pid-file="$TMP/munged.pid" \
    --seed-file="$TMP/munged.seed" --log-file="$TMP/munged.log" >"$TMP/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -S "$TMP/munge.sock" ] && break; sleep 0.1; done
[ -S "$TMP/munge.sock" ] || { cat "$TMP/munged.out"; skip "munged did not start"; }

# two free ports, for slurmctld and slurmd
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host="$(hostname -s)"
export SLURM_CONF="$TMP/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=hybridsim-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$TMP/munge.sock
CredType=cred/munge
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=hsnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=hs Nodes=hsnode Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i >"$TMP/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N hsnode >"$TMP/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 1 100); do # up to 20 s
    [ "$(timeout 5 sinfo -h -o %T 2>/dev/null)" = idle ] && { up=1; break; }
    sleep 0.2
done
if [ "$up" -eq 0 ]; then
    tail -5 "$TMP/slurmctld.out" "$TMP/slurmd.out"
    skip "slurmctld and slurmd did not come up"
fi

# The sweep: ResNet-50, data and filter on 4 and 8 GPUs, analytic and simulated (compare).
sweep=(-w resnet50 -s data,filter -g 4,8 -b 64/gpu -p abci -m compare)
cd "$TMP/run" || exit 1
"$HS" sweep "${sweep[@]}" --emit slurm array.sh >"$TMP/emit.out" 2>&1 || fail "--emit slurm: exit $?"
grep -q '^#SBATCH --array=0-3$' array.sh || fail "array.sh: not an array of 4 tasks"
# submitted from elsewhere, as a user would from their home: the tasks start in the sweep's
# folder (#SBATCH --chdir), where their relative output files go
(cd / && timeout 120 sbatch --wait "$TMP/run/array.sh") >"$TMP/sbatch.out" 2>&1 ||
    { fail "sbatch --wait: exit $? ($(cat "$TMP/sbatch.out"))"; cat array.sh.d/slurm-*.out 2>/dev/null; }
[ "$(ls array.sh.d/slurm-*_*.out 2>/dev/null | wc -l)" -eq 4 ] || fail "not 4 array tasks' outputs"
"$HS" sweep --merge array.sh.d -o slurm.csv >/dev/null 2>&1 || fail "--merge: exit $?"
"$HS" sweep "${sweep[@]}" -o local.csv --quiet >/dev/null 2>&1 || fail "local sweep: exit $?"
python3 - slurm.csv local.csv <<'PY' || fail "the Slurm sweep differs from the local one"
import csv, sys
def rows(path):
    with open(path) as f:
        r = list(csv.DictReader(f))
    for row in r:
        row.pop("wall_s")
    return r
a, b = rows(sys.argv[1]), rows(sys.argv[2])
ok = len(a) == 4 and a == b and all(row["status"] == "ok" for row in a) and \
     all(row["sim_iter_total_s"] != "" for row in a)
if not ok:
    print(len(a), len(b), [r["status"] for r in a])
sys.exit(0 if ok else 1)
PY

stop_daemons
for p in "${pids[@]}"; do child_alive "$p" && fail "daemon $p still running"; done
pids=()
finish e2e_slurm
