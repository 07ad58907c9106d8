#!/bin/sh
# A single-node Slurm cluster on localhost, in a directory of its own, for the slurm tests:
#   slurm_cluster.sh start DIR   writes DIR/slurm.conf and a munge key, starts munged, slurmctld
#                                and slurmd (as root, in the background, their pids in DIR/*.pid)
#                                and waits until the node is idle; prints nothing else on success
#   slurm_cluster.sh stop DIR    stops exactly those daemons
# Clients use it with SLURM_CONF=DIR/slurm.conf. Ports are chosen by the caller's process id so
# that two runs do not collide.
set -eu
cmd=$1
dir=$2

stop_daemon() {
  if [ -f "$dir/$1.pid" ]; then
    pid=$(cat "$dir/$1.pid")
    kill "$pid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$1.pid"
  fi
}

if [ "$cmd" = stop ]; then
  stop_daemon slurmd
  stop_daemon slurmctld
  stop_daemon munged
  exit 0
fi

mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
base=$(( 20000 + ($$ % 2000) * 2 ))
host=$(hostname -s)
cpus=$(nproc)
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$dir/munge/munge.key"
cat > "$dir/slurm.conf" <<CONF
ClusterName=weft-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.daemon.pid
SlurmdPidFile=$dir/slurmd.daemon.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=weft Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

munged -F --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
  > "$dir/munged.out" 2>&1 &
echo $! > "$dir/munged.pid"
for _ in $(seq 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
slurmctld -D -c -f "$dir/slurm.conf" > "$dir/slurmctld.out" 2>&1 &
echo $! > "$dir/slurmctld.pid"
slurmd -D -f "$dir/slurm.conf" > "$dir/slurmd.out" 2>&1 &
echo $! > "$dir/slurmd.pid"
export SLURM_CONF="$dir/slurm.conf"
for _ in $(seq 100); do
  state=$(sinfo -h -o %t 2>/dev/null || true)
  [ "$state" = idle ] && exit 0
  sleep 0.2
done
echo "slurm_cluster: the node did not come up (state '${state:-none}'); logs in $dir" >&2
exit 1
