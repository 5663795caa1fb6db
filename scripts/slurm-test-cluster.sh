#!/usr/bin/env bash
# A real 4-node Slurm cluster with 8 fake GPUs per node, on this one machine,
# for the Slurm tests (recipe: ../shared/spec/slurm-ci.md). Needs root and
# Debian's slurmctld, slurmd, slurm-client and munge packages.
#
#   scripts/slurm-test-cluster.sh install   # apt-get the packages
#   scripts/slurm-test-cluster.sh start     # prints SLURM_CONF=...; idempotent
#   scripts/slurm-test-cluster.sh stop      # kills the daemons by their pid files
#
# Everything lives under $SLURM_TEST_BASE (default /tmp/rlsolve-slurm).
set -euo pipefail
base=${SLURM_TEST_BASE:-/tmp/rlsolve-slurm}
conf=$base/slurm.conf
nodes=(n1 n2 n3 n4)

install() {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge
}

start() {
  command -v slurmctld >/dev/null || { echo "slurmctld is not installed (run: $0 install)" >&2; exit 1; }
  if [ -f "$base/run/slurmctld.pid" ] && kill -0 "$(cat "$base/run/slurmctld.pid")" 2>/dev/null; then
    echo "SLURM_CONF=$conf"; return
  fi
  host=$(hostname -s)
  mkdir -p "$base"/{state,spool,run,log} /var/lib/fakegpu
  chown -R slurm:slurm "$base/state" 2>/dev/null || true
  for i in 0 1 2 3 4 5 6 7; do
    [ -e /var/lib/fakegpu/nvidia$i ] || mknod /var/lib/fakegpu/nvidia$i c 195 $i
  done
  cat >"$conf" <<CONF
ClusterName=rlsolveci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool/%n
SlurmctldPidFile=$base/run/slurmctld.pid
SlurmdPidFile=$base/run/slurmd-%n.pid
SlurmctldLogFile=$base/log/slurmctld.log
SlurmdLogFile=$base/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=n[1-4] NodeHostname=$host NodeAddr=127.0.0.1 Port=[17001-17004] CPUs=16 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=1000 Gres=gpu:8 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  printf 'AutoDetect=off\nNodeName=n[1-4] Name=gpu File=/var/lib/fakegpu/nvidia[0-7]\n' >"$base/gres.conf"
  mkdir -p /run/munge && chown munge:munge /run/munge
  if ! pgrep -u munge munged >/dev/null; then runuser -u munge -- /usr/sbin/munged; fi
  slurmctld -f "$conf"
  for n in "${nodes[@]}"; do slurmd -f "$conf" -N "$n"; done
  for _ in $(seq 1 100); do
    idle=$(SLURM_CONF=$conf sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    [ "$idle" -ge ${#nodes[@]} ] && { echo "SLURM_CONF=$conf"; return; }
    sleep 0.2
  done
  echo "slurm nodes did not become idle; logs under $base/log" >&2
  SLURM_CONF=$conf sinfo -N >&2 || true
  exit 1
}

stop() {
  for f in "$base"/run/slurmd-*.pid "$base/run/slurmctld.pid"; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$f"
  done
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
