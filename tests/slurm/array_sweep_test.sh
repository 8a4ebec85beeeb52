#!/usr/bin/env bash
# A sweep sharded over a real Slurm job array (issue 35, item 8): starts munge, slurmctld and
# slurmd from Debian's slurm-wlm on localhost (their own config, state and sockets in a temporary
# folder, nothing of the system's touched), submits a two-task array whose tasks each run
# `ddpsim sweep` (the shard read from SLURM_ARRAY_TASK_ID), merges the shards with `ddpsim merge`
# and checks the merged results.csv is byte for byte the unsharded sweep's. Skips (exit 77, with
# the reason) where the daemons cannot start: not root, slurm-wlm or munge not installed, a
# daemon that does not come up. Stops every daemon it started and removes its folder on any exit;
# bounded to 120 s (each wait has its own limit).
#
#   tests/slurm/array_sweep_test.sh DDPSIM_BINARY SCENARIO
#
# docs/sweeps.md ("A Slurm job array") shows the job script this test submits.
set -uo pipefail
# Inside a Slurm job (CI on a cluster) its variables would shard the unsharded run below.
for v in $(compgen -e | grep '^SLURM_'); do unset "$v"; done
ddpsim=$1
scenario=$2
deadline=$((SECONDS + 120))

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; for f in "$tmp"/log/*; do echo "== $f"; tail -n 20 "$f"; done; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs, and this is uid $(id -u)"
for tool in munged slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install slurm-wlm munge)"
done

tmp=$(mktemp -d /tmp/ddpsim-slurm-XXXXXX)
pids=()
cleanup() {
  # Only the daemons this test started, by their process ids, newest first.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$tmp"/{log,state,spool,munge,out}
chmod 700 "$tmp/munge"

# Free TCP ports for the two daemons (another Slurm on this machine keeps its own).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
host=$(hostname -s)
cpus=$(nproc)

dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
socket="$tmp/munge/munge.socket"
munged --force --socket="$socket" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" \
  --seed-file="$tmp/munge/munge.seed" || skip "munged does not start: $(tail -n 3 "$tmp/log/munged.log" 2>/dev/null)"
for _ in $(seq 50); do [ -s "$tmp/munge/munged.pid" ] && break; sleep 0.1; done
[ -s "$tmp/munge/munged.pid" ] || skip "munged wrote no pid file"
pids+=("$(cat "$tmp/munge/munged.pid")")

export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=ddpsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=ddpsim Nodes=$host Default=YES MaxTime=10 State=UP
CONF

slurmctld -D -i >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
until [ $SECONDS -ge $((deadline - 80)) ]; do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null)
  [ "$state" = idle ] && break
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || skip "a Slurm daemon exited at start: $(tail -n 3 "$tmp"/log/slurm*.log 2>/dev/null | tr '\n' ' ')"
  done
  sleep 0.5
done
[ "$state" = idle ] || skip "the local Slurm node did not come up (state '$state')"

# The job script, as docs/sweeps.md shows it: one sweep per array task, each its own folder.
cat >"$tmp/sweep.sbatch" <<JOB
#!/bin/bash
#SBATCH --job-name=ddpsim-sweep
#SBATCH --array=0-1
#SBATCH --cpus-per-task=1
#SBATCH --output=$tmp/out/slurm-%A_%a.out
"$ddpsim" sweep "$scenario" --sweep cluster.nodes=1,2,4 -o "$tmp/out/shard-\$SLURM_ARRAY_TASK_ID" -j 1
JOB
left=$((deadline - SECONDS - 20))
timeout "$left" sbatch --wait "$tmp/sweep.sbatch" >"$tmp/log/sbatch.out" 2>&1 ||
  fail "the array job did not finish within ${left} s or failed: $(cat "$tmp/log/sbatch.out")"
for task in 0 1; do
  grep -q "shard $task/2 (from SLURM_ARRAY_TASK_ID=$task)" "$tmp"/out/slurm-*_"$task".out ||
    fail "array task $task did not run shard $task/2: $(cat "$tmp"/out/slurm-*_"$task".out)"
done
"$ddpsim" merge "$tmp"/out/shard-0 "$tmp"/out/shard-1 -o "$tmp/out/all" >"$tmp/log/merge.out" 2>&1 ||
  fail "ddpsim merge failed: $(cat "$tmp/log/merge.out")"
env -u SLURM_CONF "$ddpsim" sweep "$scenario" --sweep cluster.nodes=1,2,4 -o "$tmp/out/whole" -j 1 \
  >"$tmp/log/whole.out" 2>&1 || fail "the unsharded sweep failed"
rows=$(($(wc -l <"$tmp/out/all/results.csv") - 1))
[ "$rows" -eq 3 ] || fail "the merged results.csv has $rows points, expected 3"
# Each shard holds its own points only: 0 and 2 in task 0, 1 in task 1.
[ "$(($(wc -l <"$tmp/out/shard-0/results.csv") - 1))" -eq 2 ] || fail "shard 0 does not hold 2 points"
[ "$(($(wc -l <"$tmp/out/shard-1/results.csv") - 1))" -eq 1 ] || fail "shard 1 does not hold 1 point"
cmp -s "$tmp/out/all/results.csv" "$tmp/out/whole/results.csv" ||
  fail "the merged results.csv differs from the unsharded sweep's: $(diff "$tmp/out/all/results.csv" "$tmp/out/whole/results.csv" | head -5)"
echo "PASS: 2 array tasks of a real Slurm job, merged: 3 points, equal to the unsharded sweep ($SECONDS s)"
