#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# launch-local: run an MPI program on P ranks of this machine with this
# tree's own mpiexec. Interface and status line: launch-common.sh.
#
# - Environment reaches the ranks the way this MPI takes it: Open MPI
#   `-x NAME=VALUE`, MPICH `-genv NAME VALUE`; LD_PRELOAD too, so mpiexec
#   itself is never preloaded.
# - --memory-limit BYTES: every process of the job gets an address-space limit
#   (`ulimit -v`) of BYTES: no rank may map more than the whole job may use.
#   (Not BYTES/P: the root of a rooted collective needs far more than the
#   others; the driver predicts the job's total before it starts it.) The MPI
#   runtime alone needs a few hundred MiB of address space per rank (450000
#   KiB works with both MPIs here). Past the limit malloc fails instead of
#   the kernel killing, so oom is told from the job's own out-of-memory
#   message (a rank dying of SIGKILL that the launcher did not send counts
#   as oom too: that is the kernel's OOM killer, unless a rank aborted
#   inside the MPI first, after which mpiexec kills the others itself).
#   A rank on another host that the kernel's OOM killer ended: MPICH's
#   mpiexec names no signal for it ("EXIT CODE: 9", its proxy's exit 255),
#   so a job that ended so while the machine's count of OOM kills
#   (/proc/vmstat oom_kill) rose is oom too.
# - --time-limit: the job runs in a session of its own (setsid). At the limit
#   every process of that session gets SIGTERM and, 2 s later, SIGKILL; the
#   same happens to whatever is left of the session when mpiexec exits, so no
#   rank outlives the launcher, not even one whose mpiexec died first.
# - --nodes N > 1: the ranks go to the first N hosts of
#   SCALEGUARD_CLUSTER_HOSTS (comma-separated), ceil(P/N) each in blocks,
#   started through SCALEGUARD_CLUSTER_SSH (ssh, or a command that runs
#   `COMMAND` on `HOST` as ssh does): MPICH `-launcher ssh -launcher-exec`,
#   Open MPI `--mca plm_rsh_agent`. jobs/local-slurm.sh start --nodes N
#   exports both for its cluster.
# - A job that reaches its time limit: the log says how much of this
#   machine's CPU time other work than the job took while it ran,
#   `cpu_others=F` (0 to 1: /proc/stat's busy time less the CPU time of
#   mpiexec and its descendants, over the wall time of all CPUs). Near 0, nothing else
#   slowed the job: the tester need not run it again to tell a hang.
# - Exit codes: mpiexec passes a rank's exit code on (MPICH: the code itself;
#   Open MPI: the first failing rank's). A rank's signal is read from the
#   launcher's own report, since MPICH returns the bare signal number.
set -euo pipefail
# shellcheck source=launch-common.sh
source "$(dirname "$(readlink -f "$0")")/launch-common.sh"

parse_arguments "$@"
load_mpi_env
command -v "$SCALEGUARD_MPIEXEC" >/dev/null || die "$SCALEGUARD_MPIEXEC not found"
address_space=''
if [[ -n $memory_limit ]]; then
  address_space=$((memory_limit / 1024))
  ((address_space > 0)) || bad_usage "--memory-limit $memory_limit is less than 1 KiB"
fi

read -ra mpiexec <<<"$SCALEGUARD_MPIEXEC_FLAGS"
mpiexec=("$SCALEGUARD_MPIEXEC" "${mpiexec[@]}" -n "$procs")
host_slots=''
if ((nodes > 1)); then
  IFS=, read -ra cluster_hosts <<<"${SCALEGUARD_CLUSTER_HOSTS:-}"
  ((${#cluster_hosts[@]} >= nodes)) ||
    die "--nodes $nodes needs that many hosts in SCALEGUARD_CLUSTER_HOSTS" \
      "(${#cluster_hosts[@]} there; jobs/local-slurm.sh start --nodes N exports them)"
  [[ -n ${SCALEGUARD_CLUSTER_SSH:-} ]] ||
    die "--nodes $nodes needs SCALEGUARD_CLUSTER_SSH, the command that reaches the hosts"
  for ((node = 0; node < nodes; node++)); do
    host_slots+=${host_slots:+,}${cluster_hosts[node]}:$tasks_per_node
  done
  if [[ $SCALEGUARD_MPI_FLAVOR == openmpi ]]; then
    mpiexec+=(--mca plm_rsh_agent "$SCALEGUARD_CLUSTER_SSH" --host "$host_slots")
  else
    mpiexec+=(-launcher ssh -launcher-exec "$SCALEGUARD_CLUSTER_SSH" -hosts "$host_slots")
  fi
fi
pass_env() {
  if [[ $SCALEGUARD_MPI_FLAVOR == openmpi ]]; then
    mpiexec+=(-x "$1=$2")
  else
    mpiexec+=(-genv "$1" "$2")
  fi
}
for setting in "${job_env[@]}"; do
  pass_env "${setting%%=*}" "${setting#*=}"
done
if ((${#preloads[@]})); then
  pass_env LD_PRELOAD "$(rank_preload)"
fi

# Microseconds since the epoch, from bash's own clock (no subprocess).
now_us() {
  local t=$EPOCHREALTIME
  echo $((10#${t/./}))
}

open_log
note "$procs ranks${host_slots:+ on $host_slots}, time limit ${time_limit}s${address_space:+, ulimit -v $address_space KiB per process}"

# Is any process of the session still there? (Zombies are dead already and
# are reaped by whoever inherited them.)
session_alive() {
  # shellcheck disable=SC2009 # pgrep would count the zombies
  ps -o stat= -s "$job" 2>/dev/null | grep -qv '^Z'
}

# Busy clock ticks of the whole machine so far (/proc/stat: user, nice,
# system, irq, softirq, steal).
machine_busy_ticks() {
  local cpu_line
  read -ra cpu_line </proc/stat # cpu user nice system idle iowait irq softirq steal ...
  echo $((cpu_line[1] + cpu_line[2] + cpu_line[3] + cpu_line[6] + cpu_line[7] + cpu_line[8]))
}

# The kernel's OOM kills so far (/proc/vmstat; empty where it is not told).
oom_kills() {
  awk '$1 == "oom_kill" { print $2; exit }' /proc/vmstat 2>/dev/null || true
}

# oom_killed_unnamed: whether mpiexec reported a rank that ended by SIGKILL
# without naming the signal (MPICH's "EXIT CODE: 9" with no "(signal N)")
# while the kernel's OOM kills rose.
oom_killed_unnamed() {
  local now
  now=$(oom_kills)
  [[ -n $oom_kills_at_start && -n $now ]] && ((now > oom_kills_at_start)) &&
    awk -v own="$launcher: " '
      index($0, own) != 1 && $0 == "=   EXIT CODE: 9" { found = 1; exit }
      END { exit !found }' "$log"
}

# Clock ticks the job's processes have run so far: mpiexec and all its
# descendants (MPICH's proxy and ranks each make a session of their own),
# from /proc/PID/stat: utime, stime, and those of the children they waited
# for.
job_ticks() {
  local pid stat fields ticks=0
  for pid in $(ps -e -o pid=,ppid= | awk -v root="$job" '
    { parent[$1] = $2 }
    END {
      inside[root] = 1
      do {
        grew = 0
        for (p in parent) if (!(p in inside) && (parent[p] in inside)) { inside[p] = 1; grew = 1 }
      } while (grew)
      for (p in inside) print p
    }'); do
    stat=$(<"/proc/$pid/stat") 2>/dev/null || continue
    read -ra fields <<<"${stat##*) }" # after the command name: state is field 3
    ticks=$((ticks + fields[11] + fields[12] + fields[13] + fields[14]))
  done
  echo "$ticks"
}

# cpu_others: the share of this machine's CPU time since the job started
# that other work took (see the header), as a decimal.
cpu_others() {
  local cpus ticks_per_second wall_ticks other
  cpus=$(grep -c '^cpu[0-9]' /proc/stat)
  ticks_per_second=$(getconf CLK_TCK)
  wall_ticks=$(((ended - started) * ticks_per_second * cpus / 1000000))
  other=$(($(machine_busy_ticks) - busy_at_start - $(job_ticks)))
  ((wall_ticks > 0)) || wall_ticks=1
  ((other > 0)) || other=0
  ((other < wall_ticks)) || other=$wall_ticks # (ticks are sampled)
  printf '%d.%03d' $((other / wall_ticks)) $((other * 1000 / wall_ticks % 1000))
}

# Ends every process of the job's session: SIGTERM, up to 2 s to go, SIGKILL.
end_session() {
  session_alive || return 0
  pkill -TERM -s "$job" 2>/dev/null || true
  local tick
  for ((tick = 0; tick < 20; tick++)); do
    session_alive || return 0
    sleep 0.1
  done
  note "processes left 2 s after SIGTERM: sending SIGKILL"
  while session_alive; do
    pkill -KILL -s "$job" 2>/dev/null || true
    sleep 0.1
  done
}

# interrupted WHAT STATUS: the launcher is being stopped; so is the job.
interrupted() {
  note "$1: ending the job"
  kill "$sleeper" 2>/dev/null || true
  end_session
  exit "$2"
}

started=$(now_us)
busy_at_start=$(machine_busy_ticks)
oom_kills_at_start=$(oom_kills)
(
  if [[ -n $address_space ]]; then
    ulimit -v "$address_space"
  fi
  # This subshell is not a process group leader, so setsid makes it the
  # leader of a new session without forking: the session id is $job.
  exec setsid env -u LD_PRELOAD "${mpiexec[@]}" "${program[@]}"
) </dev/null >>"$log" 2>&1 &
job=$!
sleep "$time_limit" &
sleeper=$!
trap 'interrupted "interrupted by SIGINT" 130' INT
trap 'interrupted "interrupted by SIGTERM" 143' TERM
trap 'interrupted "interrupted by SIGHUP" 129' HUP

finished=''
# (wait's standard error: bash's own notice of a job killed by a signal,
# which names this script's line and source; the status line says it.)
if wait -n -p finished "$job" "$sleeper" 2>/dev/null; then rc=0; else rc=$?; fi
ended=$(now_us)
timed_out=''
if [[ $finished == "$job" ]]; then
  kill "$sleeper" 2>/dev/null || true
  wait "$sleeper" || true
elif ((rc != 0)); then
  interrupted "the timer was killed" 1
else
  timed_out=1
  note "time limit of ${time_limit}s reached: cpu_others=$(cpu_others) (other work's share of" \
    "this machine's CPU time while the job ran); ending the job"
  # (bash tells of the job it SIGKILLs as it reaps it, during the waits)
  end_session 2>/dev/null
  wait "$job" 2>/dev/null || true
fi
end_session
trap - INT TERM HUP
if [[ -z $timed_out ]] && ((rc > 128)); then
  ending="the job ended with status $rc: 128 + $((rc - 128)), SIG$(kill -l "$rc" 2>/dev/null ||
    echo "$((rc - 128))") (mpiexec killed, or a rank's status passed on)"
  note "$ending"
  echo "$launcher: $ending" >&2
fi
elapsed=$((ended - started))
seconds=$(printf '%d.%03d' $((elapsed / 1000000)) $((elapsed % 1000000 / 1000)))

# The signal a rank died of, from mpiexec's report: MPICH "... EXIT STRING:
# Segmentation fault (signal 11)", Open MPI "... exited on signal 11 (...)".
signal=$(grep -v "^$launcher: " "$log" | sed -nE \
  -e '/TERMINATED WITH THE EXIT STRING: .*\(signal [0-9]+\)/{s/.*\(signal ([0-9]+)\).*/\1/p;q}' \
  -e '/exited on signal [0-9]+/{s/.*exited on signal ([0-9]+).*/\1/p;q}' || true)

if [[ -n $timed_out ]]; then
  report timeout 124 "$seconds"
elif ((rc == 0)); then
  report completed 0 "$seconds"
elif [[ $signal == 9 ]] && ! aborted_in_log; then
  report oom 137 "$seconds"
elif [[ $signal == 9 ]] && oom_in_log; then
  report oom "$rc" "$seconds"
elif [[ $signal == 9 ]]; then
  report failed "$rc" "$seconds"
elif [[ -n $signal ]]; then
  if oom_in_log; then
    report oom $((128 + signal)) "$seconds"
  else
    report signal $((128 + signal)) "$seconds"
  fi
elif oom_in_log || { ! aborted_in_log && oom_killed_unnamed; }; then
  report oom "$rc" "$seconds"
else
  report failed "$rc" "$seconds"
fi
