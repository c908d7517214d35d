#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# launch-slurm: run an MPI program on P ranks as one Slurm batch job.
# Interface and status line: launch-common.sh.
#
# The job script is the site's sbatch header (jobs/slurm-header.sh, found in
# ../../share/scaleguard/jobs or $SCALEGUARD_JOBS_DIR) with its placeholders
# filled, the job's values, and jobs/slurm-body.sh, which runs the program as
# one srun step under `timeout` (Slurm's own limits are whole minutes on a
# 30 s tick, so the header asks for the limit rounded up plus a minute as a
# backstop). Ranks start with `srun --mpi=pmi2` for MPICH and `--mpi=pmix`
# for Open MPI ($SCALEGUARD_SLURM_MPI overrides): under any other plugin
# MPICH starts P singletons that all pass. --memory-limit becomes --mem (per
# node); --nodes N asks for N nodes, ceil(P/N) ranks each.
# The cluster is whichever SLURM_CONF names (jobs/local-slurm.sh prints it).
#
# The job is submitted with `sbatch --parsable` and `scontrol show job`
# polled until it reaches a final state; once scontrol has forgotten it,
# `sacct` is asked (with -c, the job completion file, when there is no
# database). Outcome:
#   COMPLETED                          completed
#   TIMEOUT, or the step's `timeout`   timeout
#   OUT_OF_MEMORY (the batch script    oom
#   was OOM-killed), or an OOM inside
#   the step (srun's "Out Of Memory",
#   an out-of-memory message)
#   FAILED, srun: "Exited with exit    failed, N as the ranks used it
#   code N"
#   FAILED, srun: a task's signal      signal (oom for SIGKILL)
#   NODE_FAIL, BOOT_FAIL, PREEMPTED,   lost: the cluster's doing, not the
#   or the job's output saying a node  program's; run it again (Slurm
#   failed under it ("srun: error:    places it elsewhere: the failed
#   Node failure on", "DUE TO NODE     node is down). Submitted with
#   FAILURE", "DUE TO PREEMPTION")     --no-requeue, so that Slurm itself
#                                      does not rerun it into the same log
#   CANCELLED, DEADLINE, ...           failed, with a warning on stderr
# If the launcher is interrupted it cancels the job.
set -euo pipefail
# shellcheck source=launch-common.sh
source "$(dirname "$(readlink -f "$0")")/launch-common.sh"

parse_arguments "$@"
# The log path goes into a quoted #SBATCH line, where sbatch reads % patterns
# (doubled below) and a backslash would turn them off.
[[ ! $log =~ [\"\\[:cntrl:]] ]] || bad_usage "--log: no quotes, backslashes or control characters"
load_mpi_env
for tool in sbatch scontrol scancel; do
  command -v "$tool" >/dev/null || die "$tool not found: is Slurm installed and on PATH?"
done
# sbatch would retry a missing configuration for a minute.
[[ -z ${SLURM_CONF:-} || -r $SLURM_CONF ]] || die "SLURM_CONF=$SLURM_CONF: no such file"
jobs_dir=${SCALEGUARD_JOBS_DIR:-$here/../../share/scaleguard/jobs}
for template in slurm-header.sh slurm-body.sh; do
  [[ -r $jobs_dir/$template ]] || die "cannot read $jobs_dir/$template (set SCALEGUARD_JOBS_DIR)"
done
case $SCALEGUARD_MPI_FLAVOR in
  mpich) srun_mpi=${SCALEGUARD_SLURM_MPI:-pmi2} ;;
  openmpi) srun_mpi=${SCALEGUARD_SLURM_MPI:-pmix} ;;
esac

# to_us SECONDS: a decimal number of seconds in microseconds.
to_us() {
  local whole=${1%%.*} fraction=''
  [[ $1 == *.* ]] && fraction=${1#*.}
  fraction=${fraction}000000
  echo $((10#$whole * 1000000 + 10#${fraction:0:6}))
}

limit_us=$(to_us "$time_limit")
minutes=$(((limit_us + 59999999) / 60000000 + 1))
mebibyte=$((1 << 20))
memory_mb='' memory_per_task_mb=''
if [[ -n $memory_limit ]]; then
  # per node: the whole job on one, else the fullest node's ranks' share
  node_bytes=$memory_limit
  ((nodes == 1)) || node_bytes=$((memory_limit * tasks_per_node / procs))
  memory_mb=$(((node_bytes + mebibyte - 1) / mebibyte))
  memory_per_task_mb=$(((memory_limit / procs + mebibyte - 1) / mebibyte))
fi
log=$(realpath -m "$log")
# The job may start elsewhere than here: the program by its full path.
if [[ ${program[0]} == */* ]]; then
  program[0]=$(realpath -m "${program[0]}")
fi

open_log
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
script=$scratch/job.sh

# declare_array NAME VALUE...: a bash array assignment that reads back as given.
declare_array() {
  local name=$1
  shift
  if (($#)); then
    printf '%s=(%s)\n' "$name" "$(printf '%q ' "$@")"
  else
    printf '%s=()\n' "$name"
  fi
}

# The header with this job's values; a line with a placeholder this job has
# no value for is left out.
while IFS= read -r line || [[ -n $line ]]; do
  if [[ -z $memory_limit && $line == *@MEMORY_* ]]; then
    continue
  fi
  line=${line//@JOB_NAME@/"$job_name"}
  line=${line//@PROCS@/"$procs"}
  line=${line//@NODES@/"$nodes"}
  line=${line//@TASKS_PER_NODE@/"$tasks_per_node"}
  line=${line//@TIME_MINUTES@/"$minutes"}
  line=${line//@MEMORY_MB@/"$memory_mb"}
  line=${line//@MEMORY_PER_TASK_MB@/"$memory_per_task_mb"}
  line=${line//@LOG@/"${log//%/%%}"}
  printf '%s\n' "$line"
done <"$jobs_dir/slurm-header.sh" >"$script"
{
  echo
  echo "# Set by launch-slurm for this job."
  printf 'sg_procs=%q\n' "$procs"
  printf 'sg_nodes=%q\n' "$nodes"
  printf 'sg_mpi=%q\n' "$srun_mpi"
  printf 'sg_time_limit=%q\n' "$time_limit"
  declare_array sg_env "${job_env[@]}"
  printf 'sg_preload=%q\n' "$(rank_preload)"
  declare_array sg_program "${program[@]}"
  echo
  cat "$jobs_dir/slurm-body.sh"
} >>"$script"
note "job script:"
sed "s/^/$launcher: | /" "$script" >>"$log"

# job_state: sets state (first word, e.g. FAILED), exit_code (a:b) and
# run_time ([D-]HH:MM:SS) from scontrol, or from sacct once scontrol no
# longer knows the job. Fails when neither answers.
job_state() {
  local line
  if line=$(scontrol show job -o "$job_id" 2>/dev/null) && [[ $line =~ JobState=([A-Z_]+) ]]; then
    state=${BASH_REMATCH[1]}
    [[ $line =~ \ ExitCode=([0-9]+:[0-9]+) ]] && exit_code=${BASH_REMATCH[1]}
    [[ $line =~ \ RunTime=([0-9:-]+) ]] && run_time=${BASH_REMATCH[1]}
    return 0
  fi
  local source
  for source in '' -c; do
    # shellcheck disable=SC2086 # $source is an option or nothing
    line=$(sacct $source -X -n -P -j "$job_id" -o State,ExitCode,Elapsed 2>/dev/null | head -n 1) ||
      continue
    if [[ $line =~ ^([A-Z_]+)[^|]*\|([0-9]+:[0-9]+)\|([0-9:-]+)$ ]]; then
      state=${BASH_REMATCH[1]} exit_code=${BASH_REMATCH[2]} run_time=${BASH_REMATCH[3]}
      return 0
    fi
  done
  return 1
}

final_state() {
  case $state in
    COMPLETED | FAILED | TIMEOUT | OUT_OF_MEMORY | CANCELLED | NODE_FAIL | BOOT_FAIL | DEADLINE | PREEMPTED)
      return 0 ;;
  esac
  return 1
}

# interrupted SIGNAL STATUS: the launcher is being stopped; so is the job.
interrupted() {
  [[ -n $job_id ]] || exit "$2"
  note "interrupted by $1: cancelling job $job_id"
  scancel "$job_id" 2>/dev/null || true
  # Up to 30 s for Slurm to end the job's processes.
  local tick
  for ((tick = 0; tick < 150; tick++)); do
    job_state && final_state && break
    sleep 0.2
  done
  exit "$2"
}
trap 'interrupted SIGINT 130' INT
trap 'interrupted SIGTERM 143' TERM
trap 'interrupted SIGHUP 129' HUP

job_id=''
# Neither sbatch nor the batch script and srun get the caller's LD_PRELOAD.
# A job its node lost is not requeued by Slurm: the caller decides (status lost).
if ! job_id=$(env -u LD_PRELOAD sbatch --parsable --open-mode=append --no-requeue "$script" \
  2>"$scratch/sbatch.err"); then
  die "sbatch failed: $(tr '\n' ' ' <"$scratch/sbatch.err")"
fi
job_id=${job_id%%;*} # "id;cluster" on a federation
[[ $job_id =~ ^[0-9]+$ ]] || die "sbatch said '$job_id', not a job id"
note "submitted job $job_id"

state='' exit_code=0:0 run_time=0:00:00
# Every 0.2 s for the first 3 s (most probe jobs end by then), then every
# second, to spare the controller.
polls=0 unanswered=0
while :; do
  if job_state; then
    unanswered=0
    final_state && break
  elif ((++unanswered > 60)); then
    scancel "$job_id" 2>/dev/null || true
    die "lost track of job $job_id: neither scontrol nor sacct knows it"
  fi
  if ((++polls <= 15)); then sleep 0.2; else sleep 1; fi
done
trap - INT TERM HUP
note "job $job_id: $state, exit code $exit_code, run time $run_time"

# The body's own line: srun's exit status and the step's time.
srun_exit='' seconds=''
marker=$(grep -E '^scaleguard-job: srun-exit=' "$log" | tail -n 1 || true)
if [[ $marker =~ srun-exit=([0-9]+)\ seconds=([0-9]+)\.([0-9]{3}) ]]; then
  srun_exit=${BASH_REMATCH[1]}
  seconds=${BASH_REMATCH[2]}.${BASH_REMATCH[3]}
else
  # The batch script did not get that far: Slurm's whole seconds.
  days=0 total=0
  if [[ $run_time == *-* ]]; then
    days=${run_time%%-*}
  fi
  IFS=: read -ra parts <<<"${run_time#*-}"
  for part in "${parts[@]}"; do total=$((total * 60 + 10#$part)); done
  total=$((total + 10#$days * 86400))
  seconds=$total.000
fi

# What srun said of the first failing task: "srun: error: NODE: task 1:
# Segmentation fault", "...: tasks 0-1: Exited with exit code 3", "...: Out
# Of Memory". Signals are named as strsignal() does.
task_end=$(sed -nE '/^srun: error: [^:]+: tasks? [0-9,-]+: /{s///p;q}' "$log" || true)
signal=''
if [[ -n $task_end && $task_end != "Exited with exit code "* && $task_end != "Out Of Memory"* ]]; then
  names=([1]=Hangup Interrupt Quit 'Illegal instruction' 'Trace/breakpoint trap' Aborted
    'Bus error' 'Floating point exception' Killed 'User defined signal 1' 'Segmentation fault'
    'User defined signal 2' 'Broken pipe' 'Alarm clock' Terminated)
  for number in "${!names[@]}"; do
    [[ $task_end == "${names[number]}"* ]] && signal=$number && break
  done
fi

# Whether the cluster lost the job: a node failed under it (Slurm's NODE_FAIL;
# a node that never came up, BOOT_FAIL), Slurm preempted it, or srun and
# slurmstepd say a node failed or Slurm cancelled the step for a node failure
# or a preemption (a job of several nodes whose batch host survived).
node_lost() {
  case $state in NODE_FAIL | BOOT_FAIL | PREEMPTED) return 0 ;; esac
  awk -v own="$launcher: " '
    index($0, own) != 1 && /^srun: error: Node failure on |CANCELLED AT .* DUE TO (NODE FAILURE|PREEMPTION)/ { found = 1; exit }
    END { exit !found }' "$log"
}

# timeout(1) exits 124, or 137 after its SIGKILL; a rank's own 124 comes
# before the limit.
step_timed_out() {
  [[ $srun_exit == 124 || $srun_exit == 137 ]] && (($(to_us "$seconds") >= limit_us))
}

if node_lost; then
  echo "$launcher: job $job_id ended $state: lost to the cluster (a node failed, or Slurm ended it)" >&2
  note "job $job_id ended $state: lost to the cluster, not the program's doing"
  code=${exit_code%%:*}
  report lost $((code ? code : 1)) "$seconds"
elif [[ $state == TIMEOUT ]] || step_timed_out; then
  report timeout 124 "$seconds"
elif [[ $state == COMPLETED ]]; then
  report completed 0 "$seconds"
elif [[ $state == OUT_OF_MEMORY ]]; then
  report oom 137 "$seconds"
elif [[ $state != FAILED ]]; then
  echo "$launcher: job $job_id ended $state (exit code $exit_code): not the program's doing" >&2
  note "job $job_id ended $state: not the program's doing"
  code=${exit_code%%:*}
  report failed $((code ? code : 1)) "$seconds"
elif [[ $task_end == "Out Of Memory"* || $signal == 9 ]]; then
  report oom 137 "$seconds"
elif [[ $task_end =~ ^Exited\ with\ exit\ code\ ([0-9]+) ]]; then
  code=${BASH_REMATCH[1]}
  if oom_in_log; then report oom "$code" "$seconds"; else report failed "$code" "$seconds"; fi
elif [[ -n $signal ]]; then
  if oom_in_log; then
    report oom $((128 + signal)) "$seconds"
  else
    report signal $((128 + signal)) "$seconds"
  fi
else
  # No task report: srun itself failed (say so), or the batch script did.
  srun_error=$(grep -m 1 -E '^srun: (error|fatal): ' "$log" || true)
  if [[ -n $srun_error ]]; then
    echo "$launcher: job $job_id: $srun_error" >&2
  fi
  code=${srun_exit:-${exit_code%%:*}}
  signal=${exit_code##*:}
  if ((signal)); then
    report signal $((128 + signal)) "$seconds"
  elif oom_in_log; then
    report oom $((code ? code : 1)) "$seconds"
  else
    report failed $((code ? code : 1)) "$seconds"
  fi
fi
