#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the tests and for anyone who
# wants to try launch-slurm without a real cluster:
#
#   local-slurm.sh start|stop|status [--prefix DIR]
#   local-slurm.sh --help
#
# Everything lives under DIR (default $SCALEGUARD_SLURM_PREFIX, else
# /run/scaleguard-slurm): a private munged (own key, socket, pid file),
# slurmctld and slurmd with their configuration, state, spool and logs. No
# systemd, no /etc/slurm; clients find the cluster through SLURM_CONF, which
# `start` prints as `export SLURM_CONF=...` and writes to DIR/env. start and
# stop are idempotent. Needs root and Debian's `slurm-wlm munge`.
# DIR must be root's: start and stop refuse a DIR (or a folder above it)
# that another user owns or can write, and one holding a symbolic link or
# another user's file, before they write anything (a prefix planted by
# someone else would have root write where its links point).
#
# The cluster: one node with CPUs=8 whatever the core count (so P <= 8 runs
# on a 2-core machine; slurmd's own count is overridden), memory a consumable
# resource (`--mem` is enforced), second-level time limits are left to the
# job itself (Slurm's are whole minutes on a 30 s tick). Memory enforcement
# uses cgroup v1 when the memory and freezer controllers are mounted and
# writable (the kernel's OOM killer stops a job at its --mem); otherwise
# Slurm samples each step's memory every second and kills the step past
# --mem. SCALEGUARD_SLURM_CGROUP=no forces the latter.
#
# Environment: SCALEGUARD_SLURM_PREFIX (DIR), SCALEGUARD_SLURM_PORT (slurmctld's
# port, default 16817; slurmd takes the next one; the node is HOST-PORT),
# SCALEGUARD_SLURM_CPUS (8), SCALEGUARD_SLURM_CGROUP (auto, yes, no).
set -euo pipefail

help() {
  cat <<EOF
usage: $(basename "$0") start|stop|status [--prefix DIR]
       $(basename "$0") --help
A one-node Slurm cluster on this machine (needs root and Debian's slurm-wlm
munge), all of it under DIR (default \$SCALEGUARD_SLURM_PREFIX, else
/run/scaleguard-slurm), which must be root's alone. Clients find it through
SLURM_CONF.
  start   starts munged, slurmctld and slurmd (if not running) and prints
          export SLURM_CONF=DIR/etc/slurm.conf (also in DIR/env)
  stop    stops them
  status  says which run; exit 0 when all three do, else 3
Environment: SCALEGUARD_SLURM_PORT (slurmctld's port, 16817; slurmd the next),
SCALEGUARD_SLURM_CPUS (8), SCALEGUARD_SLURM_CGROUP (auto, yes, no).
Exit status: 0 done, 1 failed or refused, 2 usage error, 3 (status) not all run.
EOF
}

usage() {
  echo "usage: $(basename "$0") start|stop|status [--prefix DIR] (see --help)" >&2
  exit 2
}

(($# >= 1)) || usage
case $1 in -h | --help) help; exit 0 ;; esac
action=$1
shift
prefix=${SCALEGUARD_SLURM_PREFIX:-/run/scaleguard-slurm}
while (($#)); do
  case $1 in
    --prefix) (($# >= 2)) || usage; prefix=$2; shift 2 ;;
    *) usage ;;
  esac
done
case $action in start | stop | status) ;; *) usage ;; esac
# The folders above DIR resolved, DIR itself not: a link there is refused.
prefix=${prefix%"${prefix##*[!/]}"}
[[ -n $prefix && ${prefix##*/} != . && ${prefix##*/} != .. ]] ||
  { echo "local-slurm: --prefix must name a folder" >&2; exit 2; }
parent=$(realpath -m "$(dirname "$prefix")")
prefix=${parent%/}/$(basename "$prefix")
port=${SCALEGUARD_SLURM_PORT:-16817}
cpus=${SCALEGUARD_SLURM_CPUS:-8}
# The node is named after the port: two local clusters on one machine then
# keep their cgroups (slurm_NODE) apart. stop and status take the name from
# the configuration that start wrote.
host=$(hostname -s)
node=$host-$port
conf=$prefix/etc/slurm.conf
if [[ $action != start && -r $conf ]]; then
  node=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' "$conf")
fi
munge_dir=$prefix/munge
socket=$munge_dir/munge.socket.2
export SLURM_CONF=$conf

say() { echo "local-slurm: $*" >&2; }
die() { say "$*"; exit 1; }

# check_prefix: refuses (exit 1) a DIR that is not root's alone: a folder
# above it that another user owns, or can write without the sticky bit; DIR a
# link, not a folder, another user's or writable by others; anything in DIR
# (the jobs' tmp excepted) a link or another user's. Root then never writes
# where someone else chose.
check_prefix() {
  local folder=$prefix owner mode
  while folder=$(dirname "$folder"); do
    read -r owner mode < <(stat -c '%u %a' "$folder") ||
      die "cannot read the owner of $folder"
    ((owner == 0)) || die "$folder (above $prefix) belongs to user $owner, not root: refused"
    if ((8#$mode & 8#022 && !(8#$mode & 8#1000))); then
      die "$folder (above $prefix) is writable by others (mode $mode): refused"
    fi
    [[ $folder != / ]] || break
  done
  [[ -e $prefix || -L $prefix ]] || return 0
  [[ ! -L $prefix && -d $prefix ]] || die "$prefix is not a folder (a link?): refused"
  read -r owner mode < <(stat -c '%u %a' "$prefix")
  ((owner == 0)) ||
    die "$prefix belongs to user $owner, not root: refused (remove it, or use --prefix)"
  ((!(8#$mode & 8#022))) || die "$prefix is writable by others (mode $mode): refused"
  local planted
  planted=$(find "$prefix" -mindepth 1 -path "$prefix/tmp/*" -prune -o \
    \( -type l -o ! -uid 0 \) -print -quit)
  [[ -z $planted ]] ||
    die "$planted is a link or another user's file, not one this script made: refused"
}

# write_file PATH: standard input into a new PATH, never through a link.
write_file() {
  rm -f "$1"
  (set -o noclobber && cat >"$1")
}

# pid_of DAEMON: its pid when it is running (from its pid file), else fails.
pid_of() {
  local pid
  pid=$(cat "$prefix/run/$1.pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == "$1" ]] || return 1
  echo "$pid"
}

running() { pid_of "$1" >/dev/null; }

# alive PID: the process is there and not a zombie.
alive() {
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) && [[ -n $state && $state != Z ]]
}

# stop_daemon NAME: SIGTERM, up to 15 s to exit (it removes its pid file
# before it is done), then SIGKILL.
stop_daemon() {
  local pid tick
  pid=$(pid_of "$1") || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((tick = 0; tick < 150; tick++)); do
    alive "$pid" || return 0
    sleep 0.1
  done
  say "$1 ($pid) still there 15 s after SIGTERM: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

# Uses cgroup v1 for tracking processes and enforcing memory when it can.
use_cgroup() {
  case ${SCALEGUARD_SLURM_CGROUP:-auto} in
    no) return 1 ;;
    yes) return 0 ;;
  esac
  [[ $(stat -f -c %T /sys/fs/cgroup 2>/dev/null) == tmpfs &&
    -w /sys/fs/cgroup/memory/cgroup.procs && -w /sys/fs/cgroup/freezer/cgroup.procs ]]
}

write_config() {
  mkdir -p "$prefix/etc" "$prefix/state" "$prefix/spool" "$prefix/run" "$prefix/log"
  mkdir -p "$prefix/tmp"
  chmod 1777 "$prefix/tmp"
  local memory_mib
  memory_mib=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
  # Leave the machine 1 GiB of its own.
  memory_mib=$((memory_mib > 2048 ? memory_mib - 1024 : memory_mib))
  local tracking
  if use_cgroup; then
    tracking="ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
JobAcctGatherType=jobacct_gather/cgroup"
    write_file "$prefix/etc/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainRAMSpace=yes
ConstrainCores=no
ConstrainDevices=no
EOF
  else
    tracking="ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobAcctGatherParams=OverMemoryKill"
    rm -f "$prefix/etc/cgroup.conf"
  fi
  write_file "$conf" <<EOF
# Written by local-slurm.sh; rewritten at every start.
ClusterName=scaleguard
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$prefix/state
SlurmdSpoolDir=$prefix/spool
SlurmctldPidFile=$prefix/run/slurmctld.pid
SlurmdPidFile=$prefix/run/slurmd.pid
SlurmctldLogFile=$prefix/log/slurmctld.log
SlurmdLogFile=$prefix/log/slurmd.log
# Also where the pmix plugin keeps its per-step folders, named by job id.
TmpFS=$prefix/tmp
# Memory in the selection, else --mem is not enforced.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
# More CPUs than cores: slurmd would otherwise report the real count.
SlurmdParameters=config_overrides
$tracking
SchedulerParameters=batch_sched_delay=0
# Reject at submission what can never run instead of pending forever.
EnforcePartLimits=ALL
# Finished jobs stay visible to scontrol for 5 min; sacct -c reads the
# job completion file without a database.
MinJobAge=300
JobCompType=jobcomp/filetxt
JobCompLoc=$prefix/log/jobcomp.txt
MpiDefault=none
ReturnToService=2
# Seconds between SIGTERM and SIGKILL when a job is ended (default 30).
KillWait=2
NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mib State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
  running munged && return 0
  # munged wants its key private and the socket's folder reachable by all.
  mkdir -p "$munge_dir"
  chmod 0755 "$prefix" "$munge_dir"
  if [[ ! -s $munge_dir/munge.key ]]; then
    (umask 077 && head -c 1024 /dev/urandom | write_file "$munge_dir/munge.key")
  fi
  munged --socket="$socket" --key-file="$munge_dir/munge.key" \
    --pid-file="$prefix/run/munged.pid" --log-file="$prefix/log/munged.log" \
    --seed-file="$munge_dir/munged.seed" ||
    die "munged did not start: see $prefix/log/munged.log"
}

# node_state: the node's state as scontrol says it (IDLE, DOWN*, ...).
node_state() {
  scontrol -o show node "$node" 2>/dev/null | sed -n 's/.*State=\([^ ]*\).*/\1/p'
}

start() {
  local tool
  for tool in munged slurmctld slurmd scontrol; do
    command -v "$tool" >/dev/null ||
      die "no $tool: Slurm is not installed (scripts/install-deps.sh brings slurm-wlm and munge)"
  done
  ((EUID == 0)) || die "needs root (munged, slurmctld and slurmd run as root)"
  check_prefix
  if ! running slurmctld || ! running slurmd; then
    # A half-started cluster is started afresh with a new configuration.
    stop_daemon slurmd
    stop_daemon slurmctld
    [[ -d $prefix ]] || mkdir -m 0755 "$prefix"
    write_config
    start_munge
    slurmctld -i -f "$conf" || die "slurmctld did not start: see $prefix/log/slurmctld.log"
    slurmd -f "$conf" -N "$node" || die "slurmd did not start: see $prefix/log/slurmd.log"
  fi
  local tick state=''
  for ((tick = 0; tick < 300; tick++)); do
    # The daemons write their pid files a moment after they fork.
    if ((tick >= 30)); then
      running slurmctld || die "slurmctld stopped: see $prefix/log/slurmctld.log"
      running slurmd || die "slurmd stopped: see $prefix/log/slurmd.log"
    fi
    state=$(node_state || true)
    [[ $state == IDLE* || $state == MIXED* || $state == ALLOCATED* ]] && break
    if [[ $state == DOWN* || $state == DRAIN* ]] && ((tick % 20 == 10)); then
      scontrol update nodename="$node" state=resume 2>/dev/null || true
    fi
    sleep 0.1
  done
  [[ $state == IDLE* || $state == MIXED* || $state == ALLOCATED* ]] ||
    die "node $node not ready after 30 s (state '$state'): see $prefix/log/"
  echo "export SLURM_CONF=$conf" | write_file "$prefix/env"
  echo "export SLURM_CONF=$conf"
}

# Steps still running on this cluster: each slurmstepd keeps a socket
# NODE_JOB.STEP in the spool folder until it exits.
steps_left() {
  compgen -G "$prefix/spool/${node}_*" >/dev/null
}

stop() {
  [[ -d $prefix ]] || return 0
  check_prefix
  if running slurmctld; then
    # Jobs first, so that no step outlives its slurmd.
    local jobs tick
    jobs=$(squeue -h -o %i 2>/dev/null || true)
    if [[ -n $jobs ]]; then
      # shellcheck disable=SC2086 # one job id per word
      scancel $jobs 2>/dev/null || true
    fi
    for ((tick = 0; tick < 150; tick++)); do
      [[ -z $(squeue -h -o %i 2>/dev/null || true) ]] && ! steps_left && break
      sleep 0.1
    done
  fi
  stop_daemon slurmd
  stop_daemon slurmctld
  stop_daemon munged
  rm -f "$prefix/env"
  # slurmd leaves its empty top cgroups (slurm_NODE) behind.
  local cgroup
  for cgroup in /sys/fs/cgroup/*/"slurm_$node"; do
    rmdir "$cgroup" 2>/dev/null || true
  done
}

status() {
  local daemon all=0
  for daemon in munged slurmctld slurmd; do
    if running "$daemon"; then
      echo "$daemon: running ($(pid_of "$daemon"))"
    else
      echo "$daemon: stopped"
      all=3
    fi
  done
  if ((all == 0)); then
    echo "node $node: $(node_state || true)"
    echo "export SLURM_CONF=$conf"
  fi
  return $all
}

"$action"
