#!/usr/bin/env bash
# A Slurm cluster on this machine, of one node or of several, for the tests
# and for anyone who wants to try launch-slurm without a real cluster:
#
#   local-slurm.sh start [--nodes N] [--prefix DIR]
#   local-slurm.sh stop|status [--prefix DIR]
#   local-slurm.sh --help
#
# Everything lives under DIR (default $SCALEGUARD_SLURM_PREFIX, else
# /run/scaleguard-slurm): a private munged (own key, socket, pid file),
# slurmctld and one slurmd per node with their configuration, state, spool
# and logs. No systemd, no /etc/slurm; clients find the cluster through
# SLURM_CONF, which `start` prints as `export SLURM_CONF=...` and writes to
# DIR/env. start and stop are idempotent. Needs root and Debian's
# `slurm-wlm munge`.
# DIR must be root's: start and stop refuse a DIR (or a folder above it)
# that another user owns or can write, and one holding a symbolic link or
# another user's file, before they write anything (a prefix planted by
# someone else would have root write where its links point).
#
# One node (the default): HOST-PORT on 127.0.0.1, the machine itself.
# N nodes (--nodes N, 2..64): nodeI-PORT, I = 1..N, each a host of its own
# to Slurm and to the MPI: a network namespace with one address on a
# private bridge (sgbPORT, NET.1 on this machine's side, the node NET.(10+I);
# NET is SCALEGUARD_SLURM_NET, by default 10.(PORT / 256).(PORT % 256): one
# /24 per port, refused when this machine routes it already), a UTS namespace
# whose hostname is the node's name and a mount namespace where /etc/hosts
# is the cluster's (DIR/etc/hosts: the nodes and this machine as NET.1); the
# file system is this machine's, shared as a cluster's would be. Between
# nodes the MPI runs its network transports (TCP over the bridge). The nodes
# share this machine's cores and memory: each has CPUs=8 and 1/N of it.
# DIR/bin/node-ssh HOST COMMAND runs COMMAND on a node as ssh would (each
# MPI's own launcher takes it: mpiexec.mpich -launcher ssh -launcher-exec,
# mpiexec.openmpi --mca plm_rsh_agent); DIR/env exports it as
# SCALEGUARD_CLUSTER_SSH and the nodes as SCALEGUARD_CLUSTER_HOSTS.
#
# Every node: CPUs=8 whatever the core count (so P <= 8 runs on a 2-core
# machine; slurmd's own count is overridden), memory a consumable resource
# (`--mem` is enforced), second-level time limits are left to the job itself
# (Slurm's are whole minutes on a 30 s tick). Memory enforcement uses cgroup
# v1 when the memory and freezer controllers are mounted and writable (the
# kernel's OOM killer stops a job at its --mem); otherwise Slurm samples each
# step's memory every second and kills the step past --mem.
# SCALEGUARD_SLURM_CGROUP=no forces the latter.
#
# Environment: SCALEGUARD_SLURM_PREFIX (DIR), SCALEGUARD_SLURM_PORT (slurmctld's
# port, default 16817; slurmd takes the next one), SCALEGUARD_SLURM_CPUS (8,
# per node), SCALEGUARD_SLURM_CGROUP (auto, yes, no), SCALEGUARD_SLURM_NET,
# SCALEGUARD_SLURM_NODE_TIMEOUT (Slurm's SlurmdTimeout: seconds after which a
# node that stopped answering is down and its jobs NODE_FAIL; Slurm's 300 by
# default, a few seconds for a test that kills a node).
set -euo pipefail

help() {
  cat <<EOF
usage: $(basename "$0") start [--nodes N] [--prefix DIR]
       $(basename "$0") stop|status [--prefix DIR]
       $(basename "$0") --help
A Slurm cluster on this machine (needs root and Debian's slurm-wlm munge),
all of it under DIR (default \$SCALEGUARD_SLURM_PREFIX, else
/run/scaleguard-slurm), which must be root's alone. Clients find it through
SLURM_CONF.
  start   starts munged, slurmctld and the nodes' slurmd (if not running) and
          prints export SLURM_CONF=DIR/etc/slurm.conf (also in DIR/env);
          --nodes N (1 by default, up to 64): N hosts, each its own network,
          UTS and mount namespace on a private bridge (a running cluster of
          another size is stopped and started afresh)
  stop    stops them and removes the nodes' namespaces and bridge
  status  says which run; exit 0 when all do, else 3
Environment: SCALEGUARD_SLURM_PORT (slurmctld's port, 16817; slurmd the next),
SCALEGUARD_SLURM_CPUS (8 per node), SCALEGUARD_SLURM_CGROUP (auto, yes, no),
SCALEGUARD_SLURM_NET (the nodes' /24 A.B.C, default 10.(PORT / 256).(PORT % 256)),
SCALEGUARD_SLURM_NODE_TIMEOUT (seconds until a silent node is down; Slurm's 300).
Exit status: 0 done, 1 failed or refused, 2 usage error, 3 (status) not all run.
EOF
}

usage() {
  echo "usage: $(basename "$0") start|stop|status [--nodes N] [--prefix DIR] (see --help)" >&2
  exit 2
}

(($# >= 1)) || usage
case $1 in -h | --help) help; exit 0 ;; esac
action=$1
shift
prefix=${SCALEGUARD_SLURM_PREFIX:-/run/scaleguard-slurm}
nodes=1
while (($#)); do
  case $1 in
    --prefix) (($# >= 2)) || usage; prefix=$2; shift 2 ;;
    --nodes) (($# >= 2)) || usage; nodes=$2; shift 2 ;;
    *) usage ;;
  esac
done
case $action in start | stop | status) ;; *) usage ;; esac
if [[ ! $nodes =~ ^[1-9][0-9]?$ ]] || ((nodes > 64)); then
  echo "local-slurm: --nodes must be 1 to 64" >&2
  exit 2
fi
# The folders above DIR resolved, DIR itself not: a link there is refused.
prefix=${prefix%"${prefix##*[!/]}"}
[[ -n $prefix && ${prefix##*/} != . && ${prefix##*/} != .. ]] ||
  { echo "local-slurm: --prefix must name a folder" >&2; exit 2; }
parent=$(realpath -m "$(dirname "$prefix")")
prefix=${parent%/}/$(basename "$prefix")
port=${SCALEGUARD_SLURM_PORT:-16817}
cpus=${SCALEGUARD_SLURM_CPUS:-8}
node_timeout=${SCALEGUARD_SLURM_NODE_TIMEOUT:-300}
[[ $node_timeout =~ ^[1-9][0-9]{0,4}$ ]] ||
  { echo "local-slurm: SCALEGUARD_SLURM_NODE_TIMEOUT must be a positive number of seconds" >&2; exit 2; }
# The nodes are named after the port: two local clusters on one machine then
# keep their cgroups (slurm_NODE) apart. stop and status take the nodes from
# the configuration that start wrote.
host=$(hostname -s)
conf=$prefix/etc/slurm.conf
net=${SCALEGUARD_SLURM_NET:-10.$((port >> 8 & 255)).$((port & 255))}
[[ $net =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] ||
  { echo "local-slurm: SCALEGUARD_SLURM_NET must be three numbers (A.B.C)" >&2; exit 2; }
bridge=sgb$port
# node_names, node_addrs: this cluster's nodes (what start will write, else
# what the configuration holds).
node_names=() node_addrs=()
if [[ $action != start && -r $conf ]]; then
  port=$(sed -n 's/^SlurmctldPort=//p' "$conf")
  bridge=sgb$port
  while read -r name address; do
    node_names+=("$name") node_addrs+=("$address")
  done < <(sed -n 's/^NodeName=\([^ ]*\) .*NodeAddr=\([^ ]*\).*/\1 \2/p' "$conf")
elif ((nodes == 1)); then
  node_names=("$host-$port") node_addrs=(127.0.0.1)
else
  for ((i = 1; i <= nodes; i++)); do
    node_names+=("node$i-$port") node_addrs+=("$net.$((10 + i))")
  done
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

# pid_of DAEMON [NAME]: its pid when it is running (from its pid file,
# NAME.pid, NAME the DAEMON by default), else fails.
pid_of() {
  local pid
  pid=$(cat "$prefix/run/${2:-$1}.pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == "$1" ]] || return 1
  echo "$pid"
}

running() { pid_of "$@" >/dev/null; }

# alive PID: the process is there and not a zombie.
alive() {
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) && [[ -n $state && $state != Z ]]
}

# stop_daemon DAEMON [NAME]: SIGTERM, up to 15 s to exit (it removes its pid
# file before it is done), then SIGKILL.
stop_daemon() {
  local pid tick
  pid=$(pid_of "$@") || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((tick = 0; tick < 150; tick++)); do
    alive "$pid" || return 0
    sleep 0.1
  done
  say "${2:-$1} ($pid) still there 15 s after SIGTERM: SIGKILL"
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
  # Leave the machine 1 GiB of its own; the nodes share the rest.
  memory_mib=$((memory_mib > 2048 ? memory_mib - 1024 : memory_mib))
  memory_mib=$((memory_mib / ${#node_names[@]}))
  local controller=127.0.0.1 node_lines='' i
  ((${#node_names[@]} == 1)) || controller=$net.1
  for i in "${!node_names[@]}"; do
    node_lines+="NodeName=${node_names[i]} NodeHostname=${node_names[i]} NodeAddr=${node_addrs[i]}"
    node_lines+=" CPUs=$cpus RealMemory=$memory_mib State=UNKNOWN"$'\n'
  done
  # one node: it is this machine
  ((${#node_names[@]} > 1)) || node_lines=${node_lines/NodeHostname=${node_names[0]}/NodeHostname=$host}
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
SlurmctldHost=$host($controller)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$prefix/state
SlurmdSpoolDir=$prefix/spool/%n
SlurmctldPidFile=$prefix/run/slurmctld.pid
SlurmdPidFile=$prefix/run/slurmd-%n.pid
SlurmctldLogFile=$prefix/log/slurmctld.log
SlurmdLogFile=$prefix/log/slurmd-%n.log
# Also where the pmix plugin keeps its per-step folders, named by job id:
# each node of several sees its own (DIR/tmp/NODE there).
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
# Seconds after which a node that stopped answering is down (its jobs NODE_FAIL).
SlurmdTimeout=$node_timeout
# Seconds between SIGTERM and SIGKILL when a job is ended (default 30).
KillWait=2
${node_lines%$'\n'}
PartitionName=local Nodes=$(IFS=,; echo "${node_names[*]}") Default=YES MaxTime=INFINITE State=UP
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

# configured_nodes: the nodes of the configuration on disk, one per line.
configured_nodes() {
  [[ -r $conf ]] && sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$conf"
}

# node_state NODE: the node's state as scontrol says it (IDLE, DOWN*, ...).
node_state() {
  scontrol -o show node "$1" 2>/dev/null | sed -n 's/.*State=\([^ ]*\).*/\1/p'
}

# in_node NODE COMMAND...: COMMAND in the node's namespaces (a node of
# several; on the one-node cluster, here).
in_node() {
  local name=$1
  shift
  if [[ ! -e $prefix/ns/$name.uts ]]; then
    "$@"
    return
  fi
  nsenter --net="/run/netns/$name" --uts="$prefix/ns/$name.uts" --mount="$prefix/ns/$name.mnt" \
    -- "$@"
}

# set_up_nodes: for a cluster of several nodes, the bridge, and per node a
# network namespace (its address, the bridge's as its route out), a UTS
# namespace (its hostname) and a mount namespace (the cluster's /etc/hosts,
# its own DIR/tmp), each kept in DIR/ns (a private mount) for in_node.
set_up_nodes() {
  ((${#node_names[@]} > 1)) || return 0
  local tool
  for tool in ip nsenter unshare mountpoint; do
    command -v "$tool" >/dev/null || die "no $tool: several nodes need iproute2 and util-linux"
  done
  mkdir -p "$prefix/ns"
  if ! mountpoint -q "$prefix/ns"; then
    { mount --bind "$prefix/ns" "$prefix/ns" && mount --make-private "$prefix/ns"; } ||
      die "cannot make $prefix/ns a private mount for the nodes' namespaces"
  fi
  ! ip -4 route show to match "$net.1" | grep -v '^default ' >/dev/null || # (not -q: pipefail)
    die "$net.0/24 is routed on this machine already: choose another (SCALEGUARD_SLURM_NET)"
  local hosts i name address veth
  hosts="127.0.0.1 localhost"$'\n'"$net.1 $host"
  for i in "${!node_names[@]}"; do hosts+=$'\n'"${node_addrs[i]} ${node_names[i]}"; done
  write_file "$prefix/etc/hosts" <<<"$hosts"
  { ip link add "$bridge" type bridge && ip addr add "$net.1/24" dev "$bridge" &&
    ip link set "$bridge" up; } || die "cannot make the bridge $bridge ($net.1/24)"
  for i in "${!node_names[@]}"; do
    name=${node_names[i]} address=${node_addrs[i]} veth=sgv$port-$((i + 1))
    {
      ip netns add "$name" &&
        ip link add "$veth" type veth peer name eth0 netns "$name" &&
        ip link set "$veth" master "$bridge" up &&
        ip -n "$name" addr add "$address/24" dev eth0 &&
        ip -n "$name" link set lo up && ip -n "$name" link set eth0 up &&
        ip -n "$name" route add default via "$net.1"
    } || die "cannot make node $name's network ($address on $bridge)"
    mkdir -p "$prefix/tmp/$name"
    chmod 1777 "$prefix/tmp/$name"
    touch "$prefix/ns/$name.uts" "$prefix/ns/$name.mnt"
    # shellcheck disable=SC2016 # $1 and $2 are the inner shell's
    { unshare --uts="$prefix/ns/$name.uts" hostname "$name" &&
      unshare --mount="$prefix/ns/$name.mnt" --propagation slave sh -c \
        'mount --bind "$1/etc/hosts" /etc/hosts && mount --bind "$1/tmp/$2" "$1/tmp"' \
        sh "$prefix" "$name"; } || die "cannot make node $name's namespaces in $prefix/ns"
  done
}

# tear_down_nodes NODE...: what set_up_nodes made for those nodes, and the
# bridge (nothing on the one-node cluster).
tear_down_nodes() {
  local name file
  for name; do
    [[ ! -e /run/netns/$name ]] || ip netns delete "$name" 2>/dev/null || true
  done
  # A namespace outlives its name while anything holds it (a killed job's
  # sockets): its veth pair too, which a later start would collide with.
  local veth
  for veth in $(ip -o link show 2>/dev/null |
    awk -F': ' -v ours="sgv$port-" 'index($2, ours) == 1 { sub(/@.*/, "", $2); print $2 }'); do
    ip link delete "$veth" 2>/dev/null || true
  done
  ! ip link show "$bridge" >/dev/null 2>&1 || ip link delete "$bridge" 2>/dev/null || true
  [[ -d $prefix/ns ]] || return 0
  for file in "$prefix"/ns/*.uts "$prefix"/ns/*.mnt; do
    [[ -e $file ]] || continue
    ! mountpoint -q "$file" || umount "$file" || die "cannot unmount $file"
    rm -f "$file"
  done
  ! mountpoint -q "$prefix/ns" || umount "$prefix/ns" || die "cannot unmount $prefix/ns"
  rmdir "$prefix/ns" 2>/dev/null || true
}

# slurmds_running NODE...: every one of them has its slurmd.
slurmds_running() {
  local name
  for name; do running slurmd "slurmd-$name" || return 1; done
}

# stop_cluster NODE...: the daemons of a cluster of those nodes, and their
# namespaces.
stop_cluster() {
  local name
  for name; do stop_daemon slurmd "slurmd-$name"; done
  stop_daemon slurmctld
  tear_down_nodes "$@"
}

# ready: every node idle (or running jobs) within 30 s.
ready() {
  local tick name state waiting
  for ((tick = 0; tick < 300; tick++)); do
    # The daemons write their pid files a moment after they fork.
    if ((tick >= 30)); then
      running slurmctld || die "slurmctld stopped: see $prefix/log/slurmctld.log"
      for name in "${node_names[@]}"; do
        running slurmd "slurmd-$name" || die "slurmd of $name stopped: see $prefix/log/slurmd-$name.log"
      done
    fi
    waiting=''
    for name in "${node_names[@]}"; do
      state=$(node_state "$name" || true)
      [[ $state == IDLE* || $state == MIXED* || $state == ALLOCATED* ]] && continue
      waiting="$name (state '$state')"
      if [[ $state == DOWN* || $state == DRAIN* ]] && ((tick % 20 == 10)); then
        scontrol update nodename="$name" state=resume 2>/dev/null || true
      fi
    done
    [[ -n $waiting ]] || return 0
    sleep 0.1
  done
  die "node $waiting not ready after 30 s: see $prefix/log/"
}

# write_node_ssh: DIR/bin/node-ssh, ssh as each MPI's launcher calls it
# (node-ssh [OPTION]... HOST COMMAND...): COMMAND run by sh on that node.
write_node_ssh() {
  mkdir -p "$prefix/bin"
  write_file "$prefix/bin/node-ssh" <<EOF
#!/bin/sh
# Written by local-slurm.sh: ssh for the MPI launchers, into the nodes of
# the cluster under $prefix. Options (ssh's, as the launchers pass them)
# are skipped; the rest is HOST COMMAND...
while [ \$# -gt 0 ]; do
  case \$1 in
    -[bcDEeFIiJLlmOoPpQRSWw]) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ \$# -ge 2 ] || { echo "node-ssh: usage: node-ssh HOST COMMAND..." >&2; exit 255; }
node=\$1
shift
case \$node in
  */* | .* | '') echo "node-ssh: no node \$node" >&2; exit 255 ;;
esac
[ -e "$prefix/ns/\$node.uts" ] || { echo "node-ssh: no node \$node in $prefix" >&2; exit 255; }
exec nsenter --net="/run/netns/\$node" --uts="$prefix/ns/\$node.uts" \\
  --mount="$prefix/ns/\$node.mnt" -- /bin/sh -c "\$*"
EOF
  chmod 0755 "$prefix/bin/node-ssh"
}

start() {
  local tool
  for tool in munged slurmctld slurmd scontrol; do
    command -v "$tool" >/dev/null ||
      die "no $tool: Slurm is not installed (scripts/install-deps.sh brings slurm-wlm and munge)"
  done
  ((EUID == 0)) || die "needs root (munged, slurmctld and slurmd run as root)"
  check_prefix
  local was
  mapfile -t was < <(configured_nodes || true)
  if ! running slurmctld || [[ ${was[*]} != "${node_names[*]}" ]] ||
    ! slurmds_running "${node_names[@]}"; then
    # A half-started cluster, or one of other nodes, is started afresh.
    stop_cluster "${was[@]}"
    [[ -d $prefix ]] || mkdir -m 0755 "$prefix"
    write_config
    set_up_nodes
    start_munge
    slurmctld -i -f "$conf" || die "slurmctld did not start: see $prefix/log/slurmctld.log"
    local name
    for name in "${node_names[@]}"; do
      mkdir -p "$prefix/spool/$name"
      in_node "$name" slurmd -f "$conf" -N "$name" ||
        die "slurmd of $name did not start: see $prefix/log/slurmd-$name.log"
    done
  fi
  ready
  local environment="export SLURM_CONF=$conf"
  if ((${#node_names[@]} > 1)); then
    write_node_ssh
    environment+=$'\n'"export SCALEGUARD_CLUSTER_SSH=$prefix/bin/node-ssh"
    environment+=$'\n'"export SCALEGUARD_CLUSTER_HOSTS=$(IFS=,; echo "${node_names[*]}")"
  else
    rm -f "$prefix/bin/node-ssh"
  fi
  write_file "$prefix/env" <<<"$environment"
  echo "$environment"
}

# Steps still running on this cluster: each slurmstepd keeps a socket
# NODE_JOB.STEP in its node's spool folder until it exits.
steps_left() {
  local name
  for name in "${node_names[@]}"; do
    ! compgen -G "$prefix/spool/$name/${name}_*" >/dev/null || return 0
  done
  return 1
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
  stop_cluster "${node_names[@]}"
  stop_daemon munged
  rm -f "$prefix/env" "$prefix/bin/node-ssh"
  # slurmd leaves its empty top cgroups (slurm_NODE) behind.
  local cgroup name
  for name in "${node_names[@]}"; do
    for cgroup in /sys/fs/cgroup/*/"slurm_$name"; do
      rmdir "$cgroup" 2>/dev/null || true
    done
  done
}

status() {
  local daemon all=0 name
  for daemon in munged slurmctld; do
    if running "$daemon"; then
      echo "$daemon: running ($(pid_of "$daemon"))"
    else
      echo "$daemon: stopped"
      all=3
    fi
  done
  for name in "${node_names[@]}"; do
    if running slurmd "slurmd-$name"; then
      echo "slurmd of $name: running ($(pid_of slurmd "slurmd-$name"))"
    else
      echo "slurmd of $name: stopped"
      all=3
    fi
  done
  if ((all == 0)); then
    for name in "${node_names[@]}"; do echo "node $name: $(node_state "$name" || true)"; done
    cat "$prefix/env"
  fi
  return $all
}

"$action"
