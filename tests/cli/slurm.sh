# A real single-node Slurm (issue 15): munged, slurmctld and slurmd started on localhost
# from a slurm.conf written here, then `sbatch --array=1-3` runs gvis over --shard
# $SLURM_ARRAY_TASK_ID/3; the shards together give the bytes of one run.  Exit 77
# (skipped) only when the tools are missing or the daemons cannot start; every step has a
# time limit and the daemons are stopped on the way out.
. "$(dirname "$0")/lib.sh"
skip() { echo "slurm: skipped: $*" >&2; exit 77; }
for t in munged munge slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v $t >/dev/null 2>&1 || skip "$t is not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" -eq 0 ] || skip "the test runs the daemons as root"
S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$S/in" "$S/job"
chmod 700 "$T" "$S"
pids=""
stop() {
  local p
  for p in $pids; do kill "$p" 2>/dev/null; done
  [ -s "$S/munged.pid" ] && kill "$(cat "$S/munged.pid")" 2>/dev/null
  for p in $pids; do
    local k=0
    while kill -0 "$p" 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  rm -rf "$T"
}
trap stop EXIT

head -c 1024 /dev/urandom >"$S/munge.key"
chmod 600 "$S/munge.key"
timeout 10 munged --key-file="$S/munge.key" --socket="$S/munge.sock" --pid-file="$S/munged.pid" \
  --log-file="$S/munged.log" --seed-file="$S/munged.seed" --force >/dev/null 2>&1 || skip "munged does not start"
timeout 10 sh -c 'munge -S "$1" -n | unmunge -S "$1"' sh "$S/munge.sock" >/dev/null 2>&1 || skip "munge does not answer"

H=$(hostname -s)
P=$((20000 + RANDOM % 20000))
cat >"$S/slurm.conf" <<CONF
ClusterName=gvistest
SlurmctldHost=$H(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$P
SlurmdPort=$((P + 1))
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=gvis Nodes=$H Default=YES MaxTime=10 State=UP
CONF
export SLURM_CONF=$S/slurm.conf
slurmctld -D -i >"$S/ctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N "$H" >"$S/d.out" 2>&1 &
pids="$pids $!"
k=0
until timeout 5 sinfo -h -o %t 2>/dev/null | grep -Eq '^idle'; do
  k=$((k + 1))
  [ $k -lt 40 ] || skip "slurmctld/slurmd did not come up in 20 s: $(tail -n 2 "$S/slurmctld.log" "$S/slurmd.log" 2>/dev/null | tr '\n' ' ')"
  sleep 0.5
done
pass=$((pass + 1))
echo "slurm: the daemons are up (node $H, port $P)" >&2

for i in $(seq 1 10); do "$MKIMAGE" $((20 + i)) $((15 + i)) 3 u8 random "$S/in/p$i.png"; done
ok "one run" "$GVIS" --cpu gauss --sigma 2 "$S/in" -o "$S/whole/" -j 1
jid=$(timeout 10 sbatch --parsable --array=1-3 -o "$S/job/%A_%a.log" --wrap \
  "'$GVIS' --cpu gauss --sigma 2 '$S/in' -o '$S/shards/' -j 1 --shard \$SLURM_ARRAY_TASK_ID/3 -v")
check "sbatch took the array ($jid)" [ -n "$jid" ]
k=0
while [ -n "$jid" ] && timeout 5 squeue -h -j "$jid" 2>/dev/null | grep -q .; do
  k=$((k + 1))
  [ $k -lt 80 ] || { say_fail "the array did not finish in 40 s"; break; }
  sleep 0.5
done
check "three array tasks logged" [ "$(ls "$S/job" | wc -l)" -eq 3 ]
for t in 1 2 3; do
  state=$(timeout 5 scontrol show job "${jid}_$t" 2>/dev/null | grep -o 'JobState=[A-Z]*' | head -1)
  check "task $t: $state" [ "$state" = "JobState=COMPLETED" ]
done
check "the shards together give the one run's bytes" diff -r "$S/whole" "$S/shards"
check "each task did its own slice" [ "$(cat "$S"/job/*.log | grep -c ' -> ')" -eq 10 ]
finish
