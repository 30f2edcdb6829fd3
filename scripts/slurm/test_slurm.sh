#!/bin/sh
# make test-slurm: the Slurm path for real, on this machine.
#  1. installs slurmctld, slurmd, slurm-client and munge if missing (root);
#  2. starts a private single-node cluster: munged with a fresh key, slurmctld
#     and slurmd with a generated slurm.conf, all under a temporary directory
#     (nothing in /etc is touched, the ports are private);
#  3. submits a small experiment as a job array (scripts/slurm/submit.sh),
#     waits for the array and the merge job;
#  4. checks the merged results file holds exactly one row per cell of the
#     matrix (the --list of the same experiment), then merges again and checks
#     that nothing is added;
#  5. stops the daemons it started (by pid) and removes the directory.
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
SHARDS=${SHARDS:-4}
t_start=$(date +%s)

need=""
for p in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "test-slurm: installing$need"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
[ "$(id -u)" -eq 0 ] || { echo "test-slurm: the private daemons run as root here; run as root" >&2; exit 1; }
[ -x bin/memplan ] || make --no-print-directory bin/memplan

T=$(mktemp -d /tmp/memplan-slurm.XXXXXX)
chmod 700 "$T"
PIDS=""
cleanup() {
  for p in $PIDS; do kill "$p" 2>/dev/null || true; done
  for p in $PIDS; do
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null || true
  done
  if [ "${KEEP:-0}" = 1 ]; then echo "test-slurm: kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT INT TERM
fail() {
  echo "test-slurm: FAIL: $*" >&2
  for f in "$T"/*.log "$T"/shards/*.log; do
    [ -f "$f" ] && { echo "---- $f" >&2; tail -15 "$f" >&2; }
  done
  exit 1
}

# ---- munge ----------------------------------------------------------------
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge.key"
munged -F --force --key-file="$T/munge.key" --socket="$T/munge.sock" \
  --pid-file="$T/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munged.seed" \
  > "$T/munged.out" 2>&1 &
PIDS="$PIDS $!"
i=0
until [ -S "$T/munge.sock" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "munged did not start"
  sleep 0.1
done

# ---- slurm.conf -------------------------------------------------------------
host=$(hostname -s)
port=$((20000 + $$ % 20000))
mkdir -p "$T/state" "$T/spool"
cat > "$T/slurm.conf" <<EOF
ClusterName=memplan-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" > "$T/slurmctld.out" 2>&1 &
PIDS="$PIDS $!"
slurmd -D -f "$SLURM_CONF" > "$T/slurmd.out" 2>&1 &
PIDS="$PIDS $!"
i=0
until sinfo -h -o '%t' 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; do
  i=$((i + 1))
  [ $i -lt 300 ] || fail "the node did not come up (sinfo: $(sinfo 2>&1 | tail -2))"
  sleep 0.1
done
t_up=$(date +%s)
echo "test-slurm: single-node cluster up on $host ($((t_up - t_start)) s)"

# ---- a small experiment as a job array ----------------------------------------
EXP="$T/exp.json"
cat > "$EXP" <<EOF
{"name": "slurmtest", "manifest": "$root/graphs/SUITE.tsv", "graphs": ["tiny"],
 "order": ["given", "greedy", "dfs"], "place": ["bysize", "firstfit"],
 "seeds": [1, 2], "time_limits": [2]}
EOF
ids=$(SHARDS_DIR="$T/shards" MERGED="$T/merged.sqlite" scripts/slurm/submit.sh "$EXP" "$SHARDS")
array=${ids% *}
merge=${ids#* }
echo "test-slurm: submitted array $array ($SHARDS tasks) and merge job $merge"
i=0
while squeue -h -j "$array,$merge" 2>/dev/null | grep -q .; do
  i=$((i + 1))
  [ $i -lt 1200 ] || fail "jobs still queued after 120 s: $(squeue 2>&1)"
  sleep 0.1
done
t_done=$(date +%s)

# ---- checks -----------------------------------------------------------------
[ -f "$T/merged.sqlite" ] || fail "no merged results file"
expected=$(bin/memplan bench "$EXP" --list | sort)
n_exp=$(printf '%s\n' "$expected" | wc -l)
got=$(sqlite3 -separator '	' "$T/merged.sqlite" \
  "SELECT path, order_solver, place_solver, seed, time_limit, options FROM results" |
  awk -F'\t' 'BEGIN { OFS = "\t" } { $5 = $5 + 0; print }' | sort)
n_rows=$(sqlite3 "$T/merged.sqlite" "SELECT count(*) FROM results")
n_ok=$(sqlite3 "$T/merged.sqlite" "SELECT count(*) FROM results WHERE arena IS NOT NULL")
[ "$n_rows" -eq "$n_exp" ] || fail "$n_rows rows for $n_exp cells"
[ "$got" = "$expected" ] || fail "the merged cells differ from the matrix: $(printf '%s\n' "$expected" > "$T/a"; printf '%s\n' "$got" > "$T/b"; diff "$T/a" "$T/b" | head -5)"
[ "$n_ok" -eq "$n_rows" ] || fail "$((n_rows - n_ok)) cells without a plan"
for k in $(seq 0 $((SHARDS - 1))); do
  [ -f "$T/shards/shard-$k.sqlite" ] || fail "shard $k wrote no file"
done
again=$(bin/memplan merge "$T/merged.sqlite" "$T"/shards/shard-*.sqlite)
case $again in *": 0 new rows"*) ;; *) fail "merging again added rows: $again" ;; esac
[ "$(sqlite3 "$T/merged.sqlite" "SELECT count(*) FROM results")" -eq "$n_exp" ] || fail "duplicates after a second merge"
t_end=$(date +%s)
echo "test-slurm: OK: $n_exp cells in $SHARDS shards, merged to exactly one row per cell;" \
  "jobs $((t_done - t_up)) s, total $((t_end - t_start)) s"
