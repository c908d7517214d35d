# shellcheck shell=bash
# What launch-local and launch-slurm share: the command line, this tree's
# mpi.env, the out-of-memory messages and the one status line. Sourced.
#
#   launch-X --procs P [--nodes N] --time-limit SEC --log FILE
#            [--memory-limit BYTES] [--env NAME=VALUE]... [--preload LIB]...
#            [--job-name NAME] -- PROGRAM [ARGS...]
#
# stdout gets exactly one line, `status=STATUS exit=N seconds=S`; everything
# else goes to FILE. Exit status: 0 when the job ran (whatever its outcome),
# 2 for a bad command line, 1 when the job could not be started.

launcher=$(basename "$0" .sh)
# The launchers' own folder: libexec/scaleguard in the stage or the prefix.
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")

usage() {
  cat <<EOF
usage: $launcher --procs P [--nodes N] --time-limit SEC --log FILE
         [--memory-limit BYTES] [--env NAME=VALUE]... [--preload LIB]...
         [--job-name NAME] -- PROGRAM [ARGS...]
Runs PROGRAM on P ranks with this tree's MPI, on N nodes (1 by default;
ranks in blocks, ceil(P/N) on each but the last), all output to FILE, and
prints
  status=completed|failed|signal|timeout|oom|lost exit=N seconds=S
lost (launch-slurm only): the cluster lost the job (a node failed under it,
or Slurm ended it), which says nothing of the program: run it again.
Exit status: 0 the job ran (how it ended: the status line), 1 it could not be
run, 2 usage error.
EOF
}

# The launcher could not run the job: say why on stderr (and in the log once
# it exists) and exit 1.
die() {
  echo "$launcher: $*" >&2
  if [[ -n ${log_ready:-} ]]; then
    echo "$launcher: $*" >>"$log" || true
  fi
  exit 1
}

bad_usage() {
  echo "$launcher: $*" >&2
  usage >&2
  exit 2
}

# Lines of the launcher's own in the log.
note() {
  echo "$launcher: $*" >>"$log"
}

# parse_arguments "$@": sets procs, nodes, time_limit, log, memory_limit,
# job_name, job_env (NAME=VALUE...), preloads and program (PROGRAM ARGS...).
parse_arguments() {
  original_arguments=("$@")
  procs='' nodes=1 time_limit='' log='' memory_limit='' job_name=scaleguard
  job_env=() preloads=() program=()
  while (($#)); do
    case $1 in
      --) shift; program=("$@"); break ;;
      --procs | --nodes | --time-limit | --log | --memory-limit | --env | --preload | --job-name)
        (($# >= 2)) || bad_usage "$1 needs a value"
        case $1 in
          --procs) procs=$2 ;;
          --nodes) nodes=$2 ;;
          --time-limit) time_limit=$2 ;;
          --log) log=$2 ;;
          --memory-limit) memory_limit=$2 ;;
          --env) job_env+=("$2") ;;
          --preload) preloads+=("$2") ;;
          --job-name) job_name=$2 ;;
        esac
        shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) bad_usage "unknown argument '$1' (the program goes after --)" ;;
    esac
  done
  [[ $procs =~ ^[1-9][0-9]*$ ]] || bad_usage "--procs must be a positive integer"
  [[ $nodes =~ ^[1-9][0-9]*$ ]] || bad_usage "--nodes must be a positive integer"
  ((nodes <= procs)) || bad_usage "--nodes $nodes: more nodes than the $procs ranks"
  # ranks per node: in blocks, the last node may have fewer (none empty)
  tasks_per_node=$(((procs + nodes - 1) / nodes))
  (((nodes - 1) * tasks_per_node < procs)) ||
    bad_usage "--procs $procs cannot fill $nodes nodes in blocks of $tasks_per_node"
  # Fractions are fine: the probe's limits grow from measured times.
  [[ $time_limit =~ ^[0-9]+(\.[0-9]+)?$ && ! $time_limit =~ ^0+(\.0+)?$ ]] ||
    bad_usage "--time-limit must be a positive number of seconds"
  [[ -n $log ]] || bad_usage "--log FILE is required"
  [[ -z $memory_limit || $memory_limit =~ ^[1-9][0-9]*$ ]] ||
    bad_usage "--memory-limit must be a positive number of bytes"
  [[ $job_name =~ ^[A-Za-z0-9._-]+$ ]] || bad_usage "--job-name: letters, digits, . _ - only"
  local setting
  for setting in "${job_env[@]}"; do
    [[ $setting =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || bad_usage "--env wants NAME=VALUE, not '$setting'"
    [[ ${setting%%=*} != LD_PRELOAD ]] || bad_usage "use --preload for LD_PRELOAD"
  done
  local library
  for library in "${preloads[@]}"; do
    # The dynamic loader splits LD_PRELOAD at colons and blanks.
    [[ -n $library && ! $library =~ [:[:space:]] ]] || bad_usage "bad --preload '$library'"
  done
  ((${#program[@]})) || bad_usage "no program given (after --)"
}

# The ranks' LD_PRELOAD: exactly the --preload libraries, in order. The
# caller's own LD_PRELOAD is not passed on, so a run without --preload is a
# bare run even from a shell that preloads something (a sanitizer runtime
# that must come first is given as the first --preload).
rank_preload() {
  local IFS=:
  echo "${preloads[*]}"
}

# This tree's MPI: SCALEGUARD_MPI_FLAVOR, SCALEGUARD_MPIEXEC and its flags.
load_mpi_env() {
  local env_file=${SCALEGUARD_MPI_ENV:-$here/../../share/scaleguard/mpi.env}
  [[ -r $env_file ]] || die "cannot read $env_file (set SCALEGUARD_MPI_ENV to this tree's mpi.env)"
  # shellcheck source=/dev/null
  source "$env_file"
  case ${SCALEGUARD_MPI_FLAVOR:-} in
    mpich | openmpi) ;;
    *) die "$env_file: unknown SCALEGUARD_MPI_FLAVOR '${SCALEGUARD_MPI_FLAVOR:-}'" ;;
  esac
}

# Creates (empties) the log; from here on the launcher's messages go there too.
open_log() {
  : >"$log" 2>/dev/null || die "cannot write the log $log"
  log_ready=1
  note "$(printf '%q ' "$0" "${original_arguments[@]}")"
}

# Out-of-memory messages in what the job printed (the launcher's own lines
# left out): the kernel's and Slurm's OOM kills, glibc's ENOMEM text, the
# MPI libraries' MPI_ERR_NO_MEM, C++'s bad_alloc, the bench's own message.
oom_in_log() {
  awk -v own="$launcher: " '
    index($0, own) != 1 && tolower($0) ~ /oom-kill|out of memory|cannot allocate|exceeded (job|step) memory limit|bad_alloc/ { found = 1; exit }
    END { exit !found }' "$log"
}

# Whether a rank aborted inside the MPI (MPICH's "Abort(N) on node", Open
# MPI's "MPI_ABORT was invoked" or "returned a non-zero exit code"): then a
# SIGKILL in the log is mpiexec's clean-up of the other ranks, not the
# kernel's OOM killer.
aborted_in_log() {
  awk -v own="$launcher: " '
    index($0, own) != 1 && /^Abort\([0-9-]+\) on node|MPI_ABORT was invoked|returned a non-zero exit code/ { found = 1; exit }
    END { exit !found }' "$log"
}

# The one line on stdout.
report() {
  note "status=$1 exit=$2 seconds=$3"
  echo "status=$1 exit=$2 seconds=$3"
}
