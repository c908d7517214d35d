#!/usr/bin/env bash
# scaleguard-probe: find the safe bound of MPI collectives and classify the
# failure past it (paper section III-B, Table IX), then write the bounds INI.
#
# For each routine, each form (plain, MPI_IN_PLACE) and each P:
#   1. doubling: n = start, 2 start, 4 start, ... until a failure, INT_MAX,
#      --max-count (past INT_MAX for a large-count `_c` routine only) or the
#      memory limit. Small sizes share one job; the time
#      limit of each later job is 5x the wall time of the last passing one
#      (never below --time-limit), and a job that reaches it runs again with
#      twice it, so a slow size is not mistaken for a hang (once is enough
#      where the sibling form's job of the same size hung: sibling_hung).
#      A size whose time per byte is more than 10x that of the size 16 times
#      smaller (a performance cliff), confirmed by a repeat, fails as `slow`.
#   2. refinement between n' (passed) and 2n' (failed) on the grid
#      Delta = n'/f: bisection (log2 f jobs) or the paper's linear scan.
#   3. Class D when a v-routine's first failure is where its int
#      displacements overflow; otherwise verification at (s, 2P) and (2s, P)
#      and the Table IX classification (scaleguard-ini classify), each size
#      a job of its own (or implied by a job already made), with sparse data
#      where dense data do not fit.
# The INI's counts are in the n the protection layer computes (for
# Reduce_scatter(_block) the sum of the counts: P times the bench's count).
# With --nodes, each search again with its ranks spread over N nodes, from
# the one-node verdict (the spread, below).
# Every job's result is appended to the state folder as it lands: a driver
# started again with the same arguments reuses every finished job.
# With --max-jobs K (Slurm), the searches run at once, at most K jobs in
# flight (the campaign, below); one search's jobs still go one after another.
set -euo pipefail

readonly INT_MAX=2147483647
# The largest --max-count of a large-count (`_c`) routine, whose counts are
# MPI_Count: 2^40, far past any node's memory, so that P n s stays in bash's
# 64 bits.
readonly LARGE_COUNT_MAX=1099511627776
readonly VERSION=@PROJECT_VERSION@ # filled in when built
# Jobs up to this many predicted buffer bytes run their sizes together.
readonly SMALL_JOB_BYTES=$((256 << 20))
# What an MPI process needs besides its buffers, for the memory prediction.
readonly RUNTIME_BYTES_PER_RANK=$((64 << 20))
# A job's measured peak memory predicts larger sizes once its buffers are at
# least this large (below it the runtime's fixed part dominates the ratio).
readonly MEASURED_FROM_BYTES=$((256 << 20))
# Performance cliffs: time per byte more than SLOW_FACTOR times that of the
# size SLOW_REFERENCE times smaller, on a call of at least SLOW_MIN_SECONDS
# (below it one call's time is the scheduler's, on oversubscribed cores).
readonly SLOW_FACTOR=10 SLOW_REFERENCE=16 SLOW_MIN_SECONDS=0.05 SLOW_REPEAT_ITERS=3
# A size whose ranks spent more than this share of its calls waiting for a
# CPU that other work held (the bench's cpu_wait) ran on a busy machine: its
# time is untrusted and never makes a cliff.
readonly SLOW_MAX_CPU_WAIT=0.25
# A job that ends by its time limit runs once more with this many times the
# limit before it counts as a hang.
readonly RETRY_FACTOR=2
# A job the cluster lost (the launcher's status lost: its node failed, or
# Slurm ended it) runs again up to this many times; then the probe stops.
readonly LOST_RETRIES=2
# The bench's line saying its ranks made a world (check_world).
readonly WORLD_LINE='scaleguard-bench: world procs='

usage() {
  cat <<'EOF'
Usage: scaleguard-probe --collective NAME[,NAME...]|all --procs P[,P...] --type-size S --output FILE
                        [--forms plain|inplace|plain,inplace] [--inplace]
                        [--launcher local|slurm] [--factor F] [--start-count N]
                        [--max-count N] [--time-limit SEC] [--memory-limit BYTES]
                        [--refine bisect|linear] [--error-grace SEC] [--hang-once-below F]
                        [--state DIR] [--max-jobs K]
                        [--nodes N[,N...]] [--spread-procs P[,P...]]
                        [--spread-collective NAME[,NAME...]] [--bench-preload LIB]...
                        [--bench-env NAME=VALUE]... [--no-w4] [--layer LIB] [--busy-wait]
       scaleguard-probe --help | --version

Finds the largest count n_s at which the collective still works with P
processes and elements of S bytes (1, 2, 4 or 8), classifies the failure past
it (Class D, G or X), and writes the routine's sections, [platform] and the
MPI's fingerprint ([cvars]: scaleguard-cvars in a one-rank job) in the
bounds INI FILE (workaround = auto). Counts in the INI are the layer's n: for
Reduce_scatter(_block) the sum of the counts, P times the bench's count.

  --collective NAMES  an MPI collective (MPI_Scatter, MPI_Igatherv, ...), a
                      list of them (MPI_Scatter,MPI_Scatter_c) or `all` for
                      every routine of the layer, one after another; a
                      large-count routine after its int form, a persistent
                      one after its I-form, starts from what that one found
                      (its bound checked by two jobs of its own: the bound
                      holds, or a search of its own from where that one
                      passed)
  --procs P,...       one search per process count, largest first
  --forms LIST        plain (default), inplace (MPI_IN_PLACE wherever the
                      routine allows it; its entries get `inplace = yes`) or
                      both, each a search of its own; Bcast has no in-place form
  --inplace           the same as --forms inplace
  --launcher          local (default): this MPI's mpiexec; slurm: sbatch jobs
                      from the templates in share/scaleguard/jobs
  --factor F          refinement grid Delta = n'/F (default 16, a power of 2)
  --start-count N     first count of the doubling (default 1)
  --max-count N       largest count tried (default and at most INT_MAX; for the
                      large-count routines, MPI_Scatter_c ..., up to 2^40: in a
                      list the int-count ones stop at INT_MAX)
  --time-limit SEC    limit of the first job and floor of all later ones
                      (default 30); later limits are 5x the last passing job;
                      a job that reaches its limit runs once more with 2x it
                      before it counts as a hang (not where its sibling form,
                      below, hung at the same size)
  --memory-limit B    no job predicted to need more than B bytes (with a K, M or
                      G: KiB, MiB, GiB) is run, and jobs are held to it
                      (default 80% of this node's memory)
  --refine            bisect (default) or linear (the paper's scan)
  --hang-once-below F a job of one size that reaches its limit while other
                      work took less than F of this machine's CPU time (the
                      local launcher's cpu_others) is a hang at once, unless
                      predicted to need more than half the memory limit
                      (default 0.1; 0: always run it again; 1: never)
  --error-grace SEC   a rank whose call returned an MPI error waits that long
                      for the others, which may wait in the collective for
                      it, then ends the job (default 60; the bench's
                      --error-grace): the size failed either way, and its job
                      need not wait for its time limit
  --state DIR         job results, logs (default FILE.state); rerunning with
                      the same arguments reuses every finished job
  --nodes N,...       the spreads (default 1): each search runs again with its
                      P ranks over N nodes (the launchers' --nodes; a cluster:
                      jobs/local-slurm.sh start --nodes N). A search at N > 1
                      starts from the one-node search of the same routine,
                      form and P (with 1 in the list): it runs the sizes
                      either side of that bound (and W4's choice) spread;
                      when they give the one-node verdict, the bound holds on
                      the same grid there and nothing is written for it (the
                      one-node entry applies across nodes); where they do
                      not, a search of its own, its entry written with
                      nodes = N where it differs. No search where P < N
  --spread-procs P,...  the P of the searches at N > 1 (default: every P of
                      --procs; each is a job at the largest sizes, through
                      the network transport)
  --spread-collective NAMES  the routines searched at N > 1 (default: all of
                      --collective)
  --max-jobs K        with --launcher slurm: the searches (routine x form x
                      P x spread) run at once, at most K jobs in flight, each
                      job asking Slurm for the memory its prediction gives
                      (capped by --memory-limit) so that Slurm packs them; a
                      search's own jobs still run one after another, and the
                      jobs and the INI are those of one job at a time (default
                      1: one job at a time, each asking for --memory-limit)
  --bench-preload LIB added to LD_PRELOAD of every rank of every job
  --busy-wait         leave the MPI's waits spinning as they are: without it
                      every rank of every job has libscaleguard-yield.so
                      where this tree has it (MPICH's), which lets a rank that
                      waits in the MPI give its CPU to the rank it waits for
                      (with more ranks than cores a spinning rank holds its
                      CPU until the kernel's tick, and a pipelined call slows
                      70-fold: tester/README.md); the journal's keys name it,
                      so a journal measured without it is replayed with
                      --busy-wait
  --bench-env N=V     set in the environment of every rank of every job
  --no-w4             do not try the MPI's other algorithms on a failing routine
                      (by default each Class G or X failure is tried with each
                      value of the routine's algorithm variable at its first
                      failing size; the fastest that passes is checked at
                      doubling sizes and written as avoid_with, avoid_checked,
                      avoid_seconds; README "Another algorithm: W4")
  --layer LIB         libscaleguard.so, to measure the layer's own workaround at
                      that size too (workaround_seconds; default: the one
                      installed beside this tool, if any)

Every job must report the world it ran in: one world of P ranks. A job whose
ranks report another size (a launcher that started P one-rank jobs, as srun
with an --mpi the MPI does not speak) or none (its start-up failed) is a
launch error: the probe stops, and the journal records nothing of that job.
A job the cluster lost (launch-slurm's status lost: a node failed under it,
or Slurm ended it) is no verdict: it runs again (Slurm places it on a node
that works) up to twice; lost three times, it is a launch error. A job whose
start-up failed runs again the same way (Open MPI 4.1.4's ranks sometimes
crash in MPI_Init when jobs start at once over TCP).
A size whose ranks waited for CPUs that other work held (the bench's
cpu_wait above 0.25) is not judged slow: its time is untrusted.

Exit status: 0 done, 1 a routine could not be measured or a job could not be
started (a launch error), 2 usage error (also a routine the benchmark has no
case for: it names the routine, and no job runs).
EOF
}

die_usage() {
  echo "scaleguard-probe: $1 (see --help)" >&2
  exit 2
}

here=$(dirname "$(readlink -f "$0")")
prefix=$(dirname "$here")
bench=$here/scaleguard-bench
ini_tool=$here/scaleguard-ini
launchers=$prefix/libexec/scaleguard

collective='' procs_list='' type_size='' output='' launcher=local factor=16 start_count=1
# The spreads: each search's jobs ask for that many nodes (check_world).
nodes_list=1 nodes=1 spread_procs_list='' spread_collective=''
max_count=$INT_MAX time_limit=30 error_grace=60 hang_once_below=0.1 memory_limit='' forms_list=plain refine=bisect state=
max_jobs=1
preloads=() bench_envs=() w4=1 layer='' busy_wait=0
for layer in "$prefix"/lib/libscaleguard.so "$prefix"/lib/*/libscaleguard.so ''; do
  [[ -z $layer || -f $layer ]] && break
done

while (($#)); do
  option=$1
  case $option in
    --help | -h) usage; exit 0 ;;
    --version) echo "scaleguard-probe $VERSION"; exit 0 ;;
    --inplace) forms_list=inplace; shift; continue ;;
    --no-w4) w4=0; shift; continue ;;
    --busy-wait) busy_wait=1; shift; continue ;;
    --collective | --procs | --type-size | --output | --forms | --launcher | --factor | \
      --start-count | --max-count | --time-limit | --memory-limit | --refine | --state | \
      --bench-preload | --layer | --bench-env | --max-jobs | --nodes | --spread-procs | \
      --spread-collective | --error-grace | --hang-once-below) ;;
    *) die_usage "unknown option $option" ;;
  esac
  (($# >= 2)) || die_usage "$option needs a value"
  value=$2
  shift 2
  case $option in
    --collective) collective=$value ;;
    --procs) procs_list=$value ;;
    --type-size) type_size=$value ;;
    --output) output=$value ;;
    --forms) forms_list=$value ;;
    --launcher) launcher=$value ;;
    --factor) factor=$value ;;
    --start-count) start_count=$value ;;
    --max-count) max_count=$value ;;
    --time-limit) time_limit=$value ;;
    --memory-limit) memory_limit=$value ;;
    --refine) refine=$value ;;
    --error-grace) error_grace=$value ;;
    --hang-once-below) hang_once_below=$value ;;
    --state) state=$value ;;
    --max-jobs) max_jobs=$value ;;
    --nodes) nodes_list=$value ;;
    --spread-procs) spread_procs_list=$value ;;
    --spread-collective) spread_collective=$value ;;
    --bench-preload) preloads+=("$value") ;;
    --layer) layer=$value ;;
    --bench-env)
      [[ $value == [A-Za-z_]*=* ]] || die_usage "--bench-env '$value' is not NAME=VALUE"
      bench_envs+=("$value") ;;
  esac
done

is_count() { [[ $1 =~ ^[1-9][0-9]{0,18}$ ]]; }

[[ -n $collective ]] || die_usage "--collective is required"
[[ -n $output ]] || die_usage "--output is required"
[[ $procs_list =~ ^[1-9][0-9]{0,5}(,[1-9][0-9]{0,5})*$ ]] ||
  die_usage "--procs must be a positive integer or a comma list of them"
# Largest first: its results answer the smaller P's verification at 2P.
mapfile -t procs_all < <(tr , '\n' <<<"$procs_list" | sort -rnu)
[[ $nodes_list =~ ^[1-9][0-9]{0,3}(,[1-9][0-9]{0,3})*$ ]] ||
  die_usage "--nodes must be a positive integer or a comma list of them"
# One node first: its searches are what the spread ones confirm.
mapfile -t spreads < <(tr , '\n' <<<"$nodes_list" | sort -nu)
[[ -z $spread_procs_list || $spread_procs_list =~ ^[1-9][0-9]{0,5}(,[1-9][0-9]{0,5})*$ ]] ||
  die_usage "--spread-procs must be a positive integer or a comma list of them"
[[ $forms_list =~ ^(plain|inplace|plain,inplace|inplace,plain)$ ]] ||
  die_usage "--forms must be plain, inplace or plain,inplace"
forms=()
[[ $forms_list == *plain* ]] && forms+=(0)
[[ $forms_list == *inplace* ]] && forms+=(1)
[[ $type_size =~ ^(1|2|4|8)$ ]] || die_usage "--type-size must be 1, 2, 4 or 8"
[[ $launcher =~ ^(local|slurm)$ ]] || die_usage "--launcher must be local or slurm"
[[ $refine =~ ^(bisect|linear)$ ]] || die_usage "--refine must be bisect or linear"
[[ $max_jobs =~ ^[1-9][0-9]{0,3}$ ]] || die_usage "--max-jobs must be a positive integer"
# Locally nothing packs the jobs by memory: K of them could each take the limit.
((max_jobs == 1)) || [[ $launcher == slurm ]] ||
  die_usage "--max-jobs above 1 needs --launcher slurm (Slurm packs the jobs by their memory)"
if ! is_count "$factor" || ((factor < 2 || (factor & (factor - 1)) != 0)); then
  die_usage "--factor must be a power of 2, at least 2"
fi
if ! is_count "$start_count" || ((start_count > INT_MAX)); then
  die_usage "--start-count must be in 1..$INT_MAX"
fi
if ! is_count "$max_count" || ((max_count < start_count || max_count > LARGE_COUNT_MAX)); then
  die_usage "--max-count must be in --start-count..$INT_MAX ($LARGE_COUNT_MAX for a large-count routine)"
fi
is_count "$time_limit" || die_usage "--time-limit must be a positive number of seconds"
[[ $hang_once_below =~ ^(0(\.[0-9]+)?|1(\.0+)?)$ ]] ||
  die_usage "--hang-once-below must be a number in 0..1"
if ! is_count "$error_grace" || ((error_grace > 86400)); then
  die_usage "--error-grace must be a whole number of seconds in 1..86400"
fi
if [[ -z $memory_limit ]]; then
  memory_limit=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 * 0.8 }' /proc/meminfo)
fi
# K, M, G: KiB, MiB, GiB, as SCALEGUARD_TRACE_BUFFER takes them
if [[ $memory_limit =~ ^([1-9][0-9]{0,8})([KMG])$ ]]; then
  case ${BASH_REMATCH[2]} in
    K) memory_limit=$((BASH_REMATCH[1] << 10)) ;;
    M) memory_limit=$((BASH_REMATCH[1] << 20)) ;;
    G) memory_limit=$((BASH_REMATCH[1] << 30)) ;;
  esac
fi
is_count "$memory_limit" ||
  die_usage "--memory-limit must be a positive number of bytes, or of KiB, MiB, GiB with K, M, G"
[[ -z $layer || -f $layer ]] || die_usage "--layer $layer: no such file"
for tool in "$bench" "$ini_tool" "$launchers/launch-$launcher" "$(command -v flock || echo flock)"; do
  [[ -x $tool ]] || { echo "scaleguard-probe: $tool is missing" >&2; exit 1; }
done
# (built where the tree's MPI has a poll it can read: MPICH's)
if ((!busy_wait)) && [[ -f $launchers/libscaleguard-yield.so ]]; then
  preloads=("$launchers/libscaleguard-yield.so" "${preloads[@]}")
fi

declare -A irregular=() has_in_place=() packed=() reduction=() in_bytes=() large=() aint_displs=()
# sibling_form[ROUTINE]: the routine of the same family whose search starts
# this one's (from_sibling_form), empty for the others: a large-count form's
# int form (MPI_Scatter_c: MPI_Scatter; MPI_Scatter_init_c: MPI_Scatter_init),
# a persistent form's I-form (MPI_Scatter_init: MPI_Iscatter, whose call
# each of its Starts makes, the same counts). Both come before it in the
# layer's list of routines.
declare -A sibling_form=()
while read -r name kind form send _ reduces blocks; do
  large[$name]=$([[ $name == *_c ]] && echo 1 || echo 0) # MPI_Count counts, MPI_Aint displs
  sibling_form[$name]=''
  if [[ $name == *_c ]]; then
    sibling_form[$name]=${name%_c}
  elif [[ $name == *_init ]]; then
    base=${name#MPI_}
    base=${base%_init}
    sibling_form[$name]=MPI_I${base,}
  fi
  # MPI_Aint displacements, which do not wrap: a large-count routine's, and a
  # neighbourhood's W sides' in every form (MPI_Neighbor_alltoallw)
  aint_displs[$name]=$([[ $name == *_c || ($send == send=w && $blocks == blocks=neighbours) ]] &&
    echo 1 || echo 0)
  irregular[$name]=$([[ $kind == irregular ]] && echo 1 || echo 0)
  has_in_place[$name]=$([[ $form == in-place ]] && echo 1 || echo 0)
  packed[$name]=$([[ $send == send=packed ]] && echo 1 || echo 0)
  reduction[$name]=$([[ $reduces != reduces=none ]] && echo 1 || echo 0)
  in_bytes[$name]=$([[ $send == send=w ]] && echo 1 || echo 0) # Alltoallw's displacements
done < <("$ini_tool" routines)
if [[ $collective == all ]]; then
  mapfile -t routines < <("$ini_tool" routines | cut -d' ' -f1)
else
  IFS=, read -ra routines <<<"$collective"
  for each in "${routines[@]}"; do
    [[ -n ${irregular[$each]:-} ]] || die_usage "unknown collective '$each'"
  done
fi
IFS=, read -ra spread_routines <<<"$spread_collective"
for each in "${spread_routines[@]}"; do
  [[ -n ${irregular[$each]:-} ]] || die_usage "--spread-collective: unknown collective '$each'"
done
# Past INT_MAX only the large-count routines take a count.
# (In a list with some, the others stop at INT_MAX: count_cap.)
if ((max_count > INT_MAX)); then
  some_large=0
  for each in "${routines[@]}"; do ((large[$each] == 0)) || some_large=1; done
  ((some_large)) ||
    die_usage "--max-count $max_count: ${routines[0]} takes int counts (at most $INT_MAX); past it, its large-count form (${routines[0]}_c)"
fi
# A routine the bench has no case for (a row of the table added without
# one) is refused by the bench as a usage error naming it: the probe's
# error too, before any job, never recorded as the MPI's failure.
for each in "${routines[@]}"; do
  if ! refusal=$("$bench" --predict-memory -c "$each" -n 1 --procs 1 2>&1 >/dev/null); then
    echo "scaleguard-probe: the benchmark cannot probe $each: ${refusal%%$'\n'*}" >&2
    exit 2
  fi
done

state=${state:-$output.state}
mkdir -p "$state/logs"
journal=$state/jobs.tsv
touch "$journal"

# ---- jobs and their journal --------------------------------------------------

# The journal: one line per finished job, tab-separated
#   KEY  status=..  exit=..  seconds=..  COUNT=OUTCOME,...  [NAME=VALUE...]  end
# where the NAME=VALUE fields are times=COUNT:SECONDS,... (one call of each
# size that finished), fastest=COUNT:SECONDS,... (the fastest of its calls),
# peaks=COUNT:BYTES,... (the ranks' peak resident memory,
# summed), waits=COUNT:SHARE,... (the bench's cpu_wait), retried=LIMIT
# (the job reached that limit once and this is its second run), hang_as=ROUTINE
# (it reached its limit once, where its sibling form's job hung: not run again) and
# started=EPOCH and driver=SECONDS (the driver's own time since the job
# before it ended, in the same search slot: reading its result, deciding,
# starting this one). A line without its final `end` was cut short by a kill
# and does not count.
declare -A journaled=()
load_journal() {
  local line
  journaled=()
  while IFS=$'\t' read -ra line; do
    if ((${#line[@]} < 6)) || [[ ${line[-1]} != end ]]; then continue; fi
    journaled[${line[0]}]="${line[*]:1:${#line[@]}-2}"
  done <"$journal"
}
load_journal

# append_line FILE LINE: LINE as one whole line of FILE, under FILE's lock:
# a campaign's searches append at once. A line a kill cut short (no newline
# at the end of FILE) is ended first, so that this one starts a line of its
# own (the cut line does not count).
# shellcheck disable=SC2094 # the file's last byte, read under its lock
append_line() {
  {
    flock 9
    [[ -z $(tail -c 1 "$1") ]] || echo >&9
    printf '%s\n' "$2" >&9
  } 9>>"$1"
}

# What is on the terminal while a job runs: with one job at a time its line
# as it goes (say_part), ended when the job is (say_end); in a campaign the
# whole line at the end, so that the searches' lines do not cut into each
# other.
job_line=''
say_part() {
  if ((max_jobs == 1)); then printf '%s' "$1"; else job_line+=$1; fi
}
say_end() {
  if ((max_jobs == 1)); then echo "$1"; else echo "$job_line$1"; fi
  job_line=''
}

# seconds_since EPOCHREALTIME: the seconds since then, with milliseconds.
seconds_since() {
  local microseconds=$((10#${EPOCHREALTIME/./} - 10#${1/./}))
  printf '%d.%03d' $((microseconds / 1000000)) $((microseconds % 1000000 / 1000))
}

# Of the routine under way, keyed by FORM:P:S:N (FORM 1 in place): the
# outcome of that size (pass, crash, hang, mpi-error, oom, wrong-data, slow)
# and the seconds of one call, the mean and the fastest of the job's calls,
# and the share of them its ranks waited for CPUs others held (cpu_wait).
declare -A outcome=() seconds_of=() fastest_of=() cpu_wait_of=()
# Keyed by ROUTINE:FORM.NODES:P: the largest measured ratio of a job's peak
# memory to its prediction from the buffers alone (predicted_bytes). Kept
# for the whole run: a sibling form's search predicts from its sibling's
# until a job of its own measures (memory_ratio_of).
declare -A memory_ratio=()
jobs_run=0 jobs_reused=0 job_seconds=0 library=
# When the newest job this run used (run or reused) ended: the INI's
# `measured`, so a run resumed from a finished journal writes the same file.
last_measured=0
inplace=0 # the form of the search under way
# A W4 trial's job (try_algorithms): more bench arguments, in its journal key,
# and a tag that keeps its outcomes apart from the MPI's own choice's.
bench_extra=() tag=''
# Whether a job of one size that reaches its limit runs again with twice it
# (run_job). Not a job of a W4 setting (a trial, the spread's check of W4's
# choice): one that hangs only loses W4 a choice (the INI gets no algorithm
# it did not see pass), and a hanging algorithm cost each trial three
# limits, 8 minutes of the main job's 738 MB Scatter.
retry_at_limit=1
# When the last job of this search slot (the driver, or a campaign's task)
# ended: the next job's journal line gets the driver's own time since.
slot_free_since=''

# rank_errored LOG COUNT (a count, or a pattern): whether a rank of the job
# reported that its call at COUNT returned an MPI error (the bench's "rank
# R: ROUTINE count=COUNT returned E" line). A job that then ends without
# the size's result line failed with that error, its peers left waiting in
# the collective (MPICH 4.0.2's in-place MPI_Igather_c at P = 8, 2^30: one
# rank's schedule ran out of memory): an mpi-error, whether the job reached
# its limit (not a size the machine slowed: it does not run again) or that
# rank ended it after --error-grace (MPI_Abort; the launcher's status is
# how mpiexec ended, or the error's own text: "Out of memory" reads as oom;
# the rank's line saying so may be lost as mpiexec ends the job).
rank_errored() {
  grep -q "scaleguard-bench: rank [0-9]*: $routine count=$2 returned " "$1"
}

# quiet_machine LOG: the launcher's cpu_others of a job that reached its
# limit (launch-local: the share of the machine's CPU time other work took
# while it ran), when below --hang-once-below (1: whatever it is); else
# fails (and where the launcher gives none: launch-slurm). A job that
# nothing else slowed, its limit five times the wall of the size half as
# large, has hung: running it again with twice the limit is for a machine
# other work loaded. (MPICH 4.0.2's journal: the 37 jobs under 9.7 GB run
# again where no sibling form had hung all hung again, 3,878 s of second
# runs; the 21 that passed the second time were jobs of 9.7 to 17.2 GB,
# the memory limit 20.2: those are heavy_job, which gets twice the limit and
# still runs again.)
quiet_machine() {
  local others
  others=$(sed -n 's/.*time limit of .* reached: cpu_others=\([0-9.]*\) .*/\1/p' "$1" | tail -n 1)
  [[ -n $others ]] &&
    awk -v a="$others" -v b="$hang_once_below" 'BEGIN { exit !(a < b || b >= 1) }' &&
    echo "$others"
}

# The outcome of the first size a job has no result line for.
outcome_of_ending() {
  local status=$1 code=$2
  case $status in
    timeout) echo hang ;;
    oom) echo oom ;;
    signal) echo crash ;;
    failed)
      case $code in
        3) echo wrong-data ;;
        4) echo mpi-error ;;
        5) echo oom ;;
        *) echo crash ;; # an abort inside MPI, a launcher reporting a dead rank
      esac ;;
    *) echo crash ;;
  esac
}

# run_launcher LOG LAUNCHER_COMMAND...: one job through the launcher (which
# writes LOG), its status line in `launched`. A job the cluster lost (status
# lost: its node failed, or Slurm ended it) says nothing of the MPI: it runs
# again, up to LOST_RETRIES times (Slurm places it on a node that works; the
# failed one is down), each lost run's log kept as LOG-lost-N.log. So does a
# bench job that ended before its ranks reported their world (Open MPI
# 4.1.4's start-up segfault with concurrent jobs over TCP, open-mpi/ompi
# #10734): it never reached the collective; the last such run is
# check_world's launch error. Status 1: the launcher could not start the
# job; 2: the job was lost every time.
run_launcher() {
  local log=$1 attempt what
  shift
  for ((attempt = 1; ; attempt++)); do
    launched=$("$@") || return 1
    slot_free_since=$EPOCHREALTIME
    if [[ $launched == status=lost* ]]; then
      what='lost to the cluster'
    elif ((${bench_job:-0})) && ! grep -aq "$WORLD_LINE" "$log"; then
      ((attempt <= LOST_RETRIES)) || return 0
      what="ended (${launched%% *}) before its ranks reported their world"
    else
      return 0
    fi
    mv -f "$log" "${log%.log}-lost-$attempt.log"
    ((attempt <= LOST_RETRIES)) || return 2
    if ((${bench_job:-0})); then # in the job's line
      say_part "$what (log: ${log%.log}-lost-$attempt.log); again: "
    else
      echo "probe: a job was $what (log: ${log%.log}-lost-$attempt.log); again" >&2
    fi
  done
}

# launch LIMIT MEMORY LOG BENCH_ARGS...: one run of the bench, held to
# MEMORY bytes; sets `launched` to the launcher's status line. A job that did
# not run as one world of P ranks (check_world), or that the cluster lost
# every time, stops the probe. A job out of MEMORY below --memory-limit (a
# campaign's job asks Slurm for its prediction, and Slurm ends a job at what
# it asked for) runs again with the limit: a prediction too low must not pass
# for the MPI's need.
launch() {
  local limit=$1 memory=$2 log=$3 item status=0 bench_job=1
  shift 3
  local job=("$launchers/launch-$launcher" --procs "$p" --nodes "$nodes" --time-limit "$limit"
    --log "$log" --job-name "sg-$routine")
  for item in "${preloads[@]}"; do job+=(--preload "$item"); done
  for item in "${bench_envs[@]}"; do job+=(--env "$item"); done
  run_launcher "$log" "${job[@]}" --memory-limit "$memory" -- "$bench" "$@" || status=$?
  if ((status == 0 && memory < memory_limit)) && [[ $launched == status=oom* ]]; then
    say_part "out of the $memory bytes it asked for; again with $memory_limit: "
    mv -f "$log" "${log%.log}-short.log"
    run_launcher "$log" "${job[@]}" --memory-limit "$memory_limit" -- "$bench" "$@" || status=$?
  fi
  case $status in
    1)
      say_end "launcher failed (log: $log)"
      exit 1 ;;
    2)
      say_end "launch error"
      echo "scaleguard-probe: launch error: the cluster lost the job $((LOST_RETRIES + 1)) times" \
        "(a node failed under it, or Slurm ended it; logs: ${log%.log}-lost-*.log)" >&2
      echo "scaleguard-probe: nothing recorded of that job; the probe stops" >&2
      exit 1 ;;
  esac
  check_world "$log"
}

# check_world LOG: the job's ranks made one world of P ranks on the nodes the
# launcher was asked for (one), as the bench's world line says. A launcher
# that starts P one-rank jobs prints P lines of procs=1; a job that ended
# before rank 0 printed the line never reached a collective; ranks on other
# nodes than asked for ran another spread. Each is the launch's fault, not
# the MPI's: no verdict.
check_world() {
  local log=$1 worlds hosts
  mapfile -t worlds < <(grep -ao "${WORLD_LINE}[0-9]* hosts=[0-9]*" "$log" |
    sed 's/.*procs=//')
  if ((${#worlds[@]} == 1)) && [[ ${worlds[0]} == "$p hosts="* ]]; then
    hosts=${worlds[0]#* hosts=}
    ((hosts != nodes)) || return 0
    say_end "launch error"
    echo "scaleguard-probe: launch error: asked for $p ranks on $nodes node(s), they ran on" \
      "$hosts: $(grep -ao 'host_names=[^ ]*' "$log" | head -1)" >&2
    echo "scaleguard-probe: nothing recorded of that job; the probe stops (log: $log)" >&2
    exit 1
  fi
  worlds=("${worlds[@]%% *}")
  say_end "launch error"
  if ((${#worlds[@]} == 0)); then
    echo "scaleguard-probe: launch error: the job ended (${launched%% *}) before its ranks" \
      "reported their world: the launcher or the MPI's start-up failed, not the collective" >&2
  else
    echo "scaleguard-probe: launch error: asked for one job of $p ranks, the launcher ran" \
      "${#worlds[@]} of $(IFS=,; echo "${worlds[*]}") rank(s): a launcher or srun --mpi" \
      "(SCALEGUARD_SLURM_MPI) the MPI does not speak starts one-rank jobs" >&2
  fi
  echo "scaleguard-probe: nothing recorded of that job; the probe stops (log: $log)" >&2
  exit 1
}

# run_job LIMIT SPARSE ITERS COUNT... : one job of `routine` at (p, s, inplace)
# over ascending counts (SPARSE 1: the bench's --sparse data; ITERS calls per
# size); fills `outcome` and `seconds_of` and sets job_wall (seconds). Sizes
# after the first failure are not run.
run_job() {
  local limit=$1 sparse=$2 iters=$3
  shift 3
  local counts=("$@")
  local list
  list=$(IFS=,; echo "${counts[*]}")
  local key="routine=$routine procs=$p type_size=$s inplace=$inplace"
  ((nodes == 1)) || key+=" nodes=$nodes"
  ((sparse)) && key+=" sparse=1"
  ((iters > 1)) && key+=" iters=$iters"
  # Preloads by name and the journal's own files relative to it, so that a
  # journal committed in one clone is reused in another.
  local preload_names=("${preloads[@]##*/}") envs=("${bench_envs[@]//"$state/"/STATE/}")
  key+=" counts=$list launcher=$launcher preload=${preload_names[*]} env=${envs[*]}"
  ((${#bench_extra[@]} == 0)) || key+=" bench=${bench_extra[*]}"
  local shown="${counts[0]}"
  ((${#counts[@]} == 1)) || shown+="..${counts[-1]} (${#counts[@]} sizes)"
  ((sparse)) && shown+=" (sparse data)"
  ((iters > 1)) && shown+=" ($iters calls each)"
  local record=${journaled[$key]:-}
  local form=
  ((inplace)) && form=" in place"
  if [[ -n $record ]]; then
    jobs_reused=$((jobs_reused + 1))
    printf 'probe: %s%s P=%s%s s=%s n=%s: reused\n' "$routine" "$form" "$p" "$(spread_shown)" "$s" \
      "$shown"
  else
    campaign_check
    # A job of a killed driver may still be running: never share its log
    # (nor a log of another search of the campaign).
    local log="$state/logs/job-$(($(wc -l <"$journal") + 1))-$BASHPID.log"
    # (--error-grace ends a job sooner, never changes its outcome: not in the key)
    local bench_args=(-c "$routine" -n "$list" -s "$s" --error-grace "$error_grace")
    ((inplace)) && bench_args+=(--inplace)
    ((sparse)) && bench_args+=(--sparse)
    ((iters > 1)) && bench_args+=(-i "$iters")
    bench_args+=("${bench_extra[@]}")
    local memory
    job_memory "${counts[-1]}" "$sparse"
    memory=$memory_out
    heavy_job_limit
    local started=$EPOCHSECONDS retried='' hang_as='' quiet='' driver=''
    [[ -z $slot_free_since ]] || driver=$(seconds_since "$slot_free_since")
    say_part "$(printf 'probe: %s%s P=%s%s s=%s n=%s, limit %s s: ' "$routine" "$form" "$p" \
      "$(spread_shown)" "$s" "$shown" "$limit")"
    launch "$limit" "$memory" "$log" "${bench_args[@]}"
    if [[ $launched != status=completed* && $launched != status=timeout* ]] &&
      rank_errored "$log" '[0-9]*'; then
      say_part "ended after a rank's MPI error: "
    elif [[ $launched == status=timeout* ]] && ((${#counts[@]} == 1)) &&
      rank_errored "$log" "${counts[0]}"; then
      say_part "reached the limit after a rank's MPI error: "
    elif [[ $launched == status=timeout* ]] && ((${#counts[@]} == 1 && retry_at_limit)) &&
      hang_as=$(sibling_hung "$key"); then
      say_part "reached the limit, where $hang_as hung: "
    elif [[ $launched == status=timeout* ]] && ((${#counts[@]} == 1 && retry_at_limit)) &&
      ! heavy_job && quiet=$(quiet_machine "$log"); then
      say_part "reached the limit on a quiet machine (cpu_others=$quiet): "
    elif [[ $launched == status=timeout* ]] && ((${#counts[@]} == 1 && retry_at_limit)); then
      # A loaded machine must not write a false bound: a hang is a job that
      # reaches its limit twice, the second time a longer one. (A job of
      # several sizes that reaches its limit judges none: search runs the
      # sizes it did not reach one per job.)
      retried=$limit
      limit=$((RETRY_FACTOR * limit))
      say_part "reached the limit; again with $limit s: "
      mv "$log" "${log%.log}-first.log"
      launch "$limit" "$memory" "$log" "${bench_args[@]}"
    fi
    local status code seconds
    read -r status code seconds <<<"$launched"
    status=${status#status=} code=${code#exit=} seconds=${seconds#seconds=}
    [[ -n $status && -n $code && -n $seconds ]] ||
      { say_end "bad launcher report '$launched'"; exit 1; }
    # Result lines of the sizes that finished, then the ending for the next.
    # The log has the ranks' standard error too: mpiexec writes the bench's
    # lines whole, but a crashing rank's partial line may come before one
    # (Open MPI: "[host:pid] " of its signal report), so a line is found
    # anywhere in a line of the log.
    declare -A result=() time=() fast=() peak=() waited=()
    local count value secs bytes fastest
    while read -r count value secs bytes fastest; do
      result[$count]=$value time[$count]=$secs fast[$count]=$fastest
      [[ -z $bytes ]] || peak[$count]=$bytes
    done < <(sed -n 's/^.*scaleguard-bench: routine=[^ ]* count=\([0-9]*\) .*result=\([a-z-]*\) seconds=\([0-9.]*\) peak_rss=\([0-9]*\) .*fastest=\([0-9.]*\).*/\1 \2 \3 \4 \5/p' "$log")
    while read -r count value; do
      waited[$count]=$value
    done < <(sed -n 's/^.*scaleguard-bench: routine=[^ ]* count=\([0-9]*\) .* cpu_wait=\([0-9.]*\).*/\1 \2/p' \
      "$log")
    [[ -n $library ]] || library=$(sed -n 's/^.*# scaleguard-bench: mpi_library=//p' "$log" | head -1)
    # The lowest size a rank said its call erred at. The ranks agree on each
    # size before the next, so every size below it passed: a result line
    # missing there went with the job's end (srun --kill-on-bad-exit can
    # drop a rank's output in flight), and that size on is not judged.
    local errored_at lost=''
    errored_at=$(sed -n "s/^.*scaleguard-bench: rank [0-9]*: $routine count=\([0-9]*\) returned .*/\1/p" \
      "$log" | sort -n | head -n 1)
    local results=() times=() fastests=() peaks=() waits=() ended=0
    for count in "${counts[@]}"; do
      if ((ended)); then
        value=not-run
      elif [[ -n ${result[$count]:-} ]]; then
        value=${result[$count]}
        times+=("$count:${time[$count]}") fastests+=("$count:${fast[$count]}")
        [[ -z ${peak[$count]:-} ]] || peaks+=("$count:${peak[$count]}")
        [[ -z ${waited[$count]:-} ]] || waits+=("$count:${waited[$count]}")
      elif [[ $status == timeout ]] && ((${#counts[@]} > 1)); then
        value=not-run ended=1 # the limit was for all the sizes: not this one's
      elif [[ $status != completed && -n $errored_at ]] && ((count < errored_at)); then
        value=not-run ended=1 lost=$count
      elif [[ $status != completed ]] && rank_errored "$log" "$count"; then
        value=mpi-error
      else
        [[ $status != completed ]] ||
          { say_end "the bench finished without a result for n=$count (log: $log)"; exit 1; }
        value=$(outcome_of_ending "$status" "$code")
      fi
      [[ $value == pass || $value == not-run ]] || ended=1
      results+=("$count=$value")
    done
    local fields=("status=$status" "exit=$code" "seconds=$seconds"
      "$(IFS=,; echo "${results[*]}")" "times=$(IFS=,; echo "${times[*]}")"
      "fastest=$(IFS=,; echo "${fastests[*]}")" "peaks=$(IFS=,; echo "${peaks[*]}")"
      "waits=$(IFS=,; echo "${waits[*]}")")
    [[ -z $retried ]] || fields+=("retried=$retried")
    [[ -z $hang_as ]] || fields+=("hang_as=$hang_as")
    [[ -z $quiet ]] || fields+=("cpu_others=$quiet")
    fields+=("started=$started")
    [[ -z $driver ]] || fields+=("driver=$driver")
    campaign_check_driver
    append_line "$journal" "$key$(printf '\t%s' "${fields[@]}" end)"
    record="${fields[*]}"
    journaled[$key]=$record
    jobs_run=$((jobs_run + 1))
    say_end "$status in $seconds s${retried:+ (after reaching ${retried} s once)}${hang_as:+ (as $hang_as)}"
    [[ -z $lost ]] || echo "probe: $routine$form P=$p$(spread_shown) s=$s n=$lost: no result line," \
      "although a rank erred at n=$errored_at past it (its output lost with the job's end):" \
      "not judged"
  fi
  local parts item
  read -ra parts <<<"$record"
  job_wall=${parts[2]#seconds=}
  # A retried job also spent its first limit.
  local first=0 extra ended_at
  for extra in "${parts[@]:4}"; do
    [[ $extra != retried=* ]] || first=${extra#retried=}
    if [[ $extra == started=* ]]; then
      ended_at=$(awk -v a="${extra#started=}" -v b="$job_wall" -v c="$first" 'BEGIN { printf "%.0f", a + b + c }')
      ((ended_at <= last_measured)) || last_measured=$ended_at
    fi
  done
  job_seconds=$(awk -v a="$job_seconds" -v b="$job_wall" -v c="$first" 'BEGIN { print a + b + c }')
  local where=$inplace.$nodes:$p:$s$tag
  # A job of several sizes that reached its limit says nothing of the size
  # it was running: the limit was for all of them (search runs it alone).
  # (Journals of before say "hang" there.)
  local cut_short=0
  [[ ${parts[0]} == status=timeout ]] && ((${#counts[@]} > 1)) && cut_short=1
  local got
  IFS=, read -ra fields <<<"${parts[3]}"
  for item in "${fields[@]}"; do
    got=${item#*=}
    [[ $got == not-run ]] && continue
    ((cut_short)) && [[ $got != pass ]] && continue
    outcome[$where:${item%%=*}]=$got
  done
  local extra pair
  for extra in "${parts[@]:4}"; do
    case $extra in
      times=*)
        IFS=, read -ra fields <<<"${extra#times=}"
        for pair in "${fields[@]}"; do seconds_of[$where:${pair%%:*}]=${pair#*:}; done ;;
      fastest=?*)
        IFS=, read -ra fields <<<"${extra#fastest=}"
        for pair in "${fields[@]}"; do fastest_of[$where:${pair%%:*}]=${pair#*:}; done ;;
      waits=?*)
        IFS=, read -ra fields <<<"${extra#waits=}"
        for pair in "${fields[@]}"; do cpu_wait_of[$where:${pair%%:*}]=${pair#*:}; done ;;
      peaks=?*) # (a W4 trial's job, tagged, runs another algorithm or the layer)
        ((sparse)) || [[ -n $tag ]] || learn_memory "${extra#peaks=}" ;;
    esac
  done
}

# The next job's limit: 5x the wall time of a passing job, at least the floor
# (with the retry at twice the limit, a hang is 10x the last pass, twice).
next_limit() {
  awk -v wall="$1" -v floor="$time_limit" \
    'BEGIN { t = int(5 * wall + 0.999); print (t > floor ? t : floor) }'
}

# heavy_job: whether the job (job_memory's predicted_out) is predicted to
# need more than half the memory limit. Near the limit the call slows past
# the model the limit is made of (twice the size, twice the time; the limit
# 5x the last pass): in MPICH 4.0.2's journal 21 of the 64 jobs run again at
# a size where no sibling form had hung passed on their second run, every
# one a job of 9.7 to 17.2 GB (the limit 20.2 GB) that took 2.8 to 9.6 times
# its half size's wall, where a second run has 10. Such a job gets twice its
# limit (heavy_job_limit, run_job's locals) and is run again at the limit
# even on a quiet machine (quiet_machine).
heavy_job() {
  ((2 * predicted_out > memory_limit))
}

heavy_job_limit() {
  ! heavy_job || limit=$((2 * limit))
}

# In the refinement, sizes go down as well as up: keep the larger limit.
larger_limit() {
  local next
  next=$(next_limit "$2")
  echo $((next > $1 ? next : $1))
}

# ---- memory ------------------------------------------------------------------

# The functions here answer in a variable (buffers_out, predicted_out,
# memory_out), not on standard output: no subshell, so what they learn stays.

# buffer_bytes P S N [SPARSE]: buffers_out, the bench's buffer bytes for one
# job of `routine` (all ranks), as it allocates them; with SPARSE 1 those it
# touches. Each answer is kept (buffer_bytes_known): between two jobs the
# driver asks the same several times, and each ask is an exec of the bench.
declare -A buffer_bytes_known=()
buffer_bytes() {
  local procs=$1 size=$2 n=$3 sparse=${4:-0} line
  local key="$routine $inplace $procs $size $n $sparse"
  if [[ -z ${buffer_bytes_known[$key]:-} ]]; then
    local args=(--predict-memory -c "$routine" -n "$n" -s "$size" --procs "$procs")
    ((inplace)) && args+=(--inplace)
    ((sparse)) && args+=(--sparse)
    line=$("$bench" "${args[@]}")
    line=${line#*bytes_total=}
    buffer_bytes_known[$key]=${line%% *}
  fi
  buffers_out=${buffer_bytes_known[$key]}
}

# The prediction from the buffers alone: what the bench touches plus the MPI
# runtime; a reduction 9/4 of its dense buffers whatever the data (Open MPI
# 4.1.4's Reduce_scatter makes every page of the send buffer resident and
# holds 1.5 times the vector of its own: a peak per rank of 2 to 2.25 times
# the dense buffers).
# know_buffer_bytes P S N...: buffer_bytes of these ascending counts (dense
# data) asked of the bench at once, one exec for all.
know_buffer_bytes() {
  local procs=$1 size=$2 lines i
  shift 2
  local args=(--predict-memory -c "$routine" -n "$(IFS=,; echo "$*")" -s "$size" --procs "$procs")
  ((inplace)) && args+=(--inplace)
  mapfile -t lines < <("$bench" "${args[@]}")
  if ((${#lines[@]} != $#)); then
    echo "scaleguard-probe: $bench ${args[*]}: ${#lines[@]} lines, not one per count" >&2
    exit 1
  fi
  for ((i = 1; i <= $#; i++)); do
    lines[i - 1]=${lines[i - 1]#*bytes_total=}
    buffer_bytes_known["$routine $inplace $procs $size ${!i} 0"]=${lines[i - 1]%% *}
  done
}

# (static_bytes P S N [SPARSE]: predicted_out.)
static_bytes() {
  local procs=$1 size=$2 n=$3 sparse=${4:-0}
  if ((reduction[$routine])); then
    buffer_bytes "$procs" "$size" "$n"
    buffers_out=$((buffers_out * 9 / 4))
  else
    buffer_bytes "$procs" "$size" "$n" "$sparse"
  fi
  predicted_out=$((buffers_out + procs * RUNTIME_BYTES_PER_RANK))
}

# learn_memory COUNT:BYTES,... : from a dense job at (p, s, inplace), the
# ratio of its measured peak (the sum over the ranks of each one's peak
# resident memory, at the job's largest size) to its dense buffers plus the
# runtime. Kept per form and P, the largest seen.
learn_memory() {
  local last=${1##*,} n bytes buffers ratio
  n=${last%%:*} bytes=${last#*:}
  buffer_bytes "$p" "$s" "$n"
  buffers=$buffers_out
  ((buffers >= MEASURED_FROM_BYTES)) || return 0
  ratio=$(awk -v m="$bytes" -v b="$buffers" -v r=$((p * RUNTIME_BYTES_PER_RANK)) \
    'BEGIN { printf "%.4f", m / (b + r) }')
  local key=$routine:$inplace.$nodes:$p
  if [[ -z ${memory_ratio[$key]:-} ]] ||
    awk -v a="$ratio" -v b="${memory_ratio[$key]}" 'BEGIN { exit !(a > b) }'; then
    memory_ratio[$key]=$ratio
  fi
}

# predicted_bytes P S N [SPARSE]: predicted_out, the memory one job needs.
# Once a dense job of this form and P with at least MEASURED_FROM_BYTES of
# buffers has run, its measured ratio (learn_memory) times the dense buffers
# plus runtime, with a margin of 1/8: the ratio comes from a size at most
# half as large, where the runtime's fixed part weighs more, and the MPI's
# temporaries grow with the message; the margin covers the allocator's
# rounding and the difference between runs. Before that, and for sparse data (whose untouched
# pages the ratio of a dense job does not describe), static_bytes. A job must
# not run out of memory and have that taken for the MPI's bug.
predicted_bytes() {
  local procs=$1 size=$2 n=$3 sparse=${4:-0} ratio
  memory_ratio_of "$procs"
  ratio=$ratio_out
  if [[ -n $ratio ]] && ((sparse == 0)); then
    buffer_bytes "$procs" "$size" "$n"
    predicted_out=$(awk -v d=$((buffers_out + procs * RUNTIME_BYTES_PER_RANK)) -v r="$ratio" \
      'BEGIN { printf "%.0f", d * (r > 1 ? r : 1) * 9 / 8 }')
  else
    static_bytes "$@"
  fi
}

# memory_ratio_of P: ratio_out, the ratio predicted_bytes uses at (P, inplace,
# nodes): this routine's own, else its sibling form's (sibling_form), else
# none. A sibling form's search starts at the sizes its sibling ran, whose
# peaks the sibling measured with the same buffers; without them the static
# prediction (a reduction's 9/4) put sizes the sibling ran over the limit:
# MPICH's MPI_Reduce_scatter_c at P = 4 measured nothing where
# MPI_Reduce_scatter passed 2^29 with 16 GB (tester_memory_from_sibling).
# A job whose prediction was low runs out of memory: `oom`, never the
# MPI's failure.
memory_ratio_of() {
  local key=$inplace.$nodes:$1 sibling=${sibling_form[$routine]}
  ratio_out=${memory_ratio[$routine:$key]:-}
  [[ -n $ratio_out || -z $sibling ]] || ratio_out=${memory_ratio[$sibling:$key]:-}
}

fits() {
  predicted_bytes "$@"
  ((predicted_out <= memory_limit))
}

# job_memory N SPARSE: memory_out, the memory a job of `routine` at (p, s,
# inplace) whose largest size is N asks for, and predicted_out, what it is
# predicted to use (heavy_job_limit). One job at a time: --memory-limit, as it always
# did. In a campaign its prediction (at most the limit), so that Slurm packs
# the jobs on the nodes by what each will use.
job_memory() {
  predicted_bytes "$p" "$s" "$1" "$2"
  memory_out=$memory_limit
  ((max_jobs == 1 || predicted_out >= memory_limit)) || memory_out=$predicted_out
}

# The layer's n (call/collective.c, sg_call_shape) is the bench's count
# times this: where the routine reduces a packed vector (Reduce_scatter(_block))
# the layer's n is the whole vector, P times the bench's -n (each rank's block).
layer_scale() {
  if ((packed[$routine])); then echo "$1"; else echo 1; fi
}

# ---- performance cliffs ------------------------------------------------------

# is_slow P S N: whether size N at (P, S, inplace) passed but spent more than
# SLOW_FACTOR times the time per byte of N / SLOW_REFERENCE (both measured),
# in a call of at least SLOW_MIN_SECONDS. Each size's fastest call counts (a
# job's first call, or one the scheduler paused, must not hide a cliff behind
# a slow reference); journals of before have only the mean. A size whose
# ranks waited for CPUs that other work held (cpu_wait above
# SLOW_MAX_CPU_WAIT) ran on a busy machine: not slow, its time untrusted.
is_slow() {
  local where=$inplace.$nodes:$1:$2 n=$3 reference=$(($3 / SLOW_REFERENCE))
  [[ ${outcome[$where:$n]:-} == pass && ${outcome[$where:$reference]:-} == pass ]] || return 1
  local t=${fastest_of[$where:$n]:-${seconds_of[$where:$n]}}
  local tr=${fastest_of[$where:$reference]:-${seconds_of[$where:$reference]}}
  awk -v t="$t" -v tr="$tr" -v n="$n" \
    -v nr="$reference" -v f=$SLOW_FACTOR -v floor=$SLOW_MIN_SECONDS \
    'BEGIN { exit !(t >= floor && t / n > f * tr / nr) }' || return 1
  local waited=${cpu_wait_of[$where:$n]:-0}
  if awk -v w="$waited" -v most=$SLOW_MAX_CPU_WAIT 'BEGIN { exit !(w > most) }'; then
    echo "probe: $routine P=$1 n=$n: ${SLOW_FACTOR}x slower per byte than n=$reference, but" \
      "its ranks waited $waited of the time for CPUs other work held: the machine is busy," \
      "the time untrusted, not a cliff (not written as slow)"
    return 1
  fi
}

# judge_slow P S N: under mode slow, a passing size that is slow counts as
# the failure `slow`.
judge_slow() {
  [[ $mode == slow ]] || return 0
  ! is_slow "$@" || outcome[$inplace.$nodes:$1:$2:$3]=slow
}

# run_point LIMIT SPARSE N: one size of the refinement or verification, a job
# of its own; under mode slow with its reference size before it, both with
# the calls of a repeat.
run_point() {
  local limit=$1 sparse=$2 n=$3
  if [[ $mode == slow ]] && ((n / SLOW_REFERENCE >= 1)); then
    run_job "$limit" "$sparse" "$SLOW_REPEAT_ITERS" $((n / SLOW_REFERENCE)) "$n"
  else
    run_job "$limit" "$sparse" 1 "$n"
  fi
  judge_slow "$p" "$s" "$n"
}

# ---- the search of one routine -----------------------------------------------

# displacements_wrap_above P S: the largest count of `routine` at P and type
# size S whose int displacements do not wrap, the last one (P-1)*n (Alltoallw's
# in bytes: (P-1)*n*S) at most INT_MAX; 0 for a routine without int
# displacements (regular, or MPI_Aint ones: aint_displs).
displacements_wrap_above() {
  local unit=1
  ((in_bytes[$routine] == 0)) || unit=$2
  if ((irregular[$routine] && !aint_displs[$routine] && $1 > 1)); then
    echo $((INT_MAX / (($1 - 1) * unit)))
  else
    echo 0
  fi
}

# grid_point J: the count at step J of the refinement grid of search() (its
# locals passed, delta, steps and first_fail, by bash's dynamic scope); the
# last step stands for the count that failed.
grid_point() {
  (($1 == steps)) && echo "$first_fail" || echo $((passed + $1 * delta))
}

failed=0 verdict_runs=

# p for pass, f for a failure, - for a size not run (or not runnable). Out
# of memory says nothing about the bug's form (memory is this machine's
# limit, and it grows with s and P), so it counts as not run.
letter() {
  local value=${outcome[$1]:-}
  case $value in
    '' | oom) echo - ;;
    pass) echo p ;;
    *) echo f ;;
  esac
}

# implied P S N: a letter for size N at (P, S, inplace) from the jobs already
# made, as the search itself reads them (a size passes when a larger one
# did, fails when a smaller one failed), or nothing. Not for cliffs, whose
# verdict needs the size's own time.
implied() {
  [[ $mode == fail ]] || return 0
  local prefix=$inplace.$nodes:$1:$2: key m value
  for key in "${!outcome[@]}"; do
    [[ $key == "$prefix"* ]] || continue
    m=${key#"$prefix"} value=${outcome[$key]}
    if [[ $value == pass ]] && ((m >= $3)); then
      echo "p $m"
      return 0
    elif [[ $value != pass && $value != oom && $value != slow ]] && ((m <= $3)); then
      echo "f $m"
      return 0
    fi
  done
}

# verify_point P S COUNT LIMIT: one size of the verification: implied by a
# job already made, or a job of its own: dense data where the job fits the
# memory limit, else sparse data (the bench's --sparse), else not run.
# Sets point_letter.
verify_point() {
  local procs=$1 size=$2 n=$3 limit=$4 sparse=0 known
  point_letter=-
  ((size <= 8 && n >= 1 && (n <= INT_MAX || large[$routine]))) || return 0
  known=$(implied "$procs" "$size" "$n")
  if [[ -n $known ]]; then
    point_letter=${known% *}
    echo "probe: $routine P=$procs s=$size n=$n: $point_letter, implied by n=${known#* }"
    implied_points=$((implied_points + 1))
    return 0
  fi
  local p=$procs s=$size
  if ! fits "$p" "$s" "$n"; then
    sparse=1
    if ! fits "$p" "$s" "$n" 1; then
      echo "probe: $routine: P=$p s=$s n=$n needs more than the memory limit even with" \
        "sparse data: not run" >&2
      return 0
    fi
  fi
  run_point "$limit" "$sparse" "$n"
  point_letter=$(letter "$inplace.$nodes:$p:$s:$n")
}

# verify P S N_S DELTA LIMIT: sets `verdict_runs` to the four runs of Table IX
# at (P, S), n_s/2, (n_s+D)/2, n_s, n_s+D, as letters. N_S and DELTA are in
# the layer's n (layer_scale), and so are these sizes. (n_s+D)/2 runs first:
# a failure there makes n_s/2 decide "half"; a pass makes n_s and then n_s+D
# decide "same". Each verdict needs one failing run and at most two passing
# ones; runs no verdict needs are not made.
verify() {
  local procs=$1 size=$2 safe=$3 delta=$4 limit=$5 scale
  scale=$(layer_scale "$procs")
  local sizes=($((safe / 2)) $(((safe + delta) / 2)) "$safe" $((safe + delta)))
  local runs=(- - - -)
  verify_run() {
    verify_point "$procs" "$size" $((sizes[$1] / scale)) "$limit"
    runs[$1]=$point_letter
  }
  verify_run 1
  if [[ ${runs[1]} == f ]]; then
    verify_run 0
  elif [[ ${runs[1]} == p ]]; then
    verify_run 2
    [[ ${runs[2]} != p ]] || verify_run 3
  fi
  verdict_runs=$(IFS=; echo "${runs[*]}")
}

# The entries found for the routine under way, each a list of KEY=VALUE
# words; `inconclusive` 1 when one of its searches could not measure.
entries=() inconclusive=0

# search_done OUTCOME: the end of one search (called from search, whose
# locals it reads): its line on the terminal and in searches.tsv.
search_done() {
  local wall
  wall=$(awk -v a="$wall_at_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  local jobs=$((jobs_run + jobs_reused - jobs_at_start))
  local secs
  secs=$(awk -v a="$job_seconds" -v b="$seconds_at_start" 'BEGIN { printf "%.1f", a - b }')
  echo "probe: $routine P=$p$(spread_shown) $form: $1; $jobs jobs ($((jobs_run - run_at_start))" \
    "run, $implied_points points implied), $secs s of jobs, $wall s here"
  append_line "$state/searches.tsv" "$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$routine" \
    "$p" "$inplace" "$jobs" $((jobs_run - run_at_start)) "$secs" "$wall" "$1" "$nodes")"
}

# doubling: step 1 of search() (its locals p, s, cap, form, from, limit,
# passed, first_fail, mode): doubling from `from`, small sizes together in
# one job. Each size must fit the memory limit as predicted when its job
# starts: after a large job the prediction is the measured one
# (predicted_bytes). Returns 1 where the search ended here (no failure up to
# the cap, or a failure at the first size).
doubling() {
  local stop_reason="INT_MAX" group alone=0 unreached sizes=() stopped_by_memory=0
  ((cap < INT_MAX || large[$routine])) && stop_reason="--max-count $cap"
  for ((n = from; n < cap; n = 2 * n)); do sizes+=("$n"); done
  know_buffer_bytes "$p" "$s" "${sizes[@]}" "$cap"
  n=$from
  overflow_first || while :; do
    if ! fits "$p" "$s" "$n"; then
      stop_reason="the memory limit ($memory_limit bytes) at n=$n"
      stopped_by_memory=$n
      break
    fi
    group=("$n")
    while ((n < cap)); do
      n=$((2 * n > cap ? cap : 2 * n))
      buffer_bytes "$p" "$s" "$n"
      if ((alone || buffers_out > SMALL_JOB_BYTES)) || ! fits "$p" "$s" "$n"; then
        break
      fi
      group+=("$n")
    done
    run_job "$limit" 0 1 "${group[@]}"
    local size
    unreached=0
    for size in "${group[@]}"; do
      case ${outcome[$inplace.$nodes:$p:$s:$size]:-} in
        pass)
          if is_slow "$p" "$s" "$size"; then
            # A cliff once may be the machine's: the two sizes again, with
            # more calls each, in a job of their own.
            echo "probe: $routine P=$p n=$size: more than ${SLOW_FACTOR}x the time per byte" \
              "of n=$((size / SLOW_REFERENCE)); repeating both"
            run_job "$limit" 0 "$SLOW_REPEAT_ITERS" $((size / SLOW_REFERENCE)) "$size"
            if is_slow "$p" "$s" "$size"; then
              mode=slow
              outcome[$inplace.$nodes:$p:$s:$size]=slow
              first_fail=$size
              break
            fi
            echo "probe: $routine P=$p n=$size: not slow when repeated"
          fi
          passed=$size ;;
        '') unreached=$size; break ;; # its job reached the limit of all its sizes
        *) first_fail=$size; break ;;
      esac
    done
    if ((unreached && first_fail == 0)); then
      # from there a job per size, each with the limit the size before it
      # (the last that passed, twice its call) would have given
      limit=$time_limit
      ((passed == 0)) || limit=$(next_limit "$(awk -v t="${seconds_of[$inplace.$nodes:$p:$s:$passed]:-0}" \
        'BEGIN { print 2 * t }')")
      n=$unreached alone=1
      continue
    fi
    ((first_fail == 0 && group[-1] < cap)) || break
    limit=$(next_limit "$job_wall")
  done
  ((first_fail || !stopped_by_memory)) || limits_before_memory_stop
  if ((first_fail == 0 && passed == 0 && stopped_by_memory == from && from != start_count)); then
    # The count its sibling form passed (from_sibling_form), predicted over
    # the limit for this form (the sibling's measured peak with the
    # prediction's 1/8 on top: MPICH's MPI_Scan at P = 4, 2^30 peaked at
    # 18.3 GB of 20.2): nothing of its own measured, nothing wrong found.
    ((nodes > 1)) || one_node[$routine:$inplace:$p]="clean 0 $limit"
    search_done "no failure of its own measured (n=$from, where ${sibling_form[$routine]} passed, is predicted over the memory limit)"
    return 1
  fi
  if ((first_fail == 0 && passed == 0 && stopped_by_memory)); then
    echo "probe: $routine: P=$p s=$s n=$stopped_by_memory, the first size, needs more than" \
      "the memory limit ($memory_limit bytes): nothing measured" >&2
    failed=1 inconclusive=1
    search_done "nothing measured (the first size over the memory limit)"
    return 1
  fi
  if ((first_fail == 0)); then
    if ((nodes == 1)); then
      one_node[$routine:$inplace:$p]="clean $passed $limit"
      search_done "no failure up to n=$passed (stopped by $stop_reason)"
    else
      search_done "no failure up to n=$passed (stopped by $stop_reason)$(spread_differs)"
    fi
    return 1
  fi
  if ((passed == 0)); then
    echo "probe: $routine: fails already at n=$first_fail" \
      "(${outcome[$inplace.$nodes:$p:$s:$first_fail]}); start lower with --start-count" >&2
    failed=1 inconclusive=1
    search_done "fails at the first size"
    return 1
  fi
}

# overflow_counts: the counts of `routine` at which an int first overflows
# (search's wrap): one past where its displacements wrap, and a large-count
# routine's 2^31; smaller first, 0 for none.
overflow_counts() {
  echo $((wrap ? wrap + 1 : 0)) $((large[$routine] ? INT_MAX + 1 : 0))
}

# overflow_first: where the search starts from its sibling form's count
# (from_sibling_form: sizes the doubling runs one per job, their memory
# predicted from the sibling's peaks) and its doubling would stop at the
# memory limit below one of overflow_counts, that count alone first
# (doubling's locals, its sizes among them; its limit the seed's, scaled by
# the count over twice `from`). Where it passes, so
# does every size the doubling would have run below it (the search assumes
# a size passes where a larger one did): the search ends there, as the
# doubling would have ended it, without the doubling's jobs (MPICH 4.0.2's
# journal replayed: the same INI from 112 jobs and 2,312 s fewer, in 92
# searches, most of them a large-count form from its int form's INT_MAX or
# safe count, passing at 2^31). Otherwise (1) the doubling runs as it
# would have, that job among its results.
overflow_first() {
  ((from != start_count)) && [[ $mode == fail ]] || return 1
  local n top=0 stop=0 count seed=$limit
  for n in "${sizes[@]}" "$cap"; do
    fits "$p" "$s" "$n" || { stop=$n; break; }
    top=$n
  done
  ((stop)) || return 1 # the doubling reaches the cap, not the memory limit
  for count in $(overflow_counts); do
    ((count > top && count < stop && count <= cap)) || continue
    fits "$p" "$s" "$count" || continue
    echo "probe: $routine P=$p $form: its doubling from n=$from would stop at the memory" \
      "limit at n=$stop; n=$count first, past which an int overflows"
    limit=$((seed * ((count + 2 * from - 1) / (2 * from))))
    run_job "$limit" 0 1 "$count"
    if [[ ${outcome[$inplace.$nodes:$p:$s:$count]:-} == pass ]]; then
      passed=$count stopped_by_memory=$stop
      stop_reason="the memory limit ($memory_limit bytes) at n=$stop"
      limit=$(next_limit "$job_wall")
      return 0
    fi
    limit=$seed
    return 1
  done
  return 1
}

# limits_before_memory_stop: where the doubling stopped at the memory limit
# (doubling's and search's locals), each count at which an int first
# overflows that lies between the last pass and that stop, if it fits,
# smaller first, up to a failure: a failure there is the one this search
# exists for, and a doubling steps over it.
# - where the routine's int displacements wrap, for a Class D (Open MPI's
#   in-place Alltoallw, P = 4: passed 536870912, stopped at 1073741824,
#   wraps at 715827883);
# - a large-count routine's first count past INT_MAX (MPICH's
#   MPI_Reduce_scatter_init_c, P = 2: its doubling from its sibling's
#   INT_MAX asks for 2^32 - 2, over the limit; 2^31 returns wrong data).
limits_before_memory_stop() {
  local count why
  for count in $(overflow_counts); do
    ((count > passed && count < stopped_by_memory && count <= cap)) || continue
    fits "$p" "$s" "$count" || continue
    why="where the displacements wrap"
    ((count != INT_MAX + 1)) || why="the first count past INT_MAX"
    echo "probe: $routine P=$p $form: n=$count, $why, fits the memory limit"
    # (overflow_first may have run it: once is enough)
    [[ -n ${outcome[$inplace.$nodes:$p:$s:$count]:-} ]] || run_job "$limit" 0 1 "$count"
    case ${outcome[$inplace.$nodes:$p:$s:$count]:-} in
      pass) passed=$count ;;
      '' | oom) return 0 ;;
      *)
        first_fail=$count
        return 0 ;;
    esac
  done
}

# sibling_hung KEY: the sibling form of `routine` (sibling_form), where the
# journal holds that one's job of KEY's P, s, form, spread and size as a hang
# (which reached its limit twice, or once as here). Such a job of `routine`
# that reaches its limit once is a hang, not run again: the second run
# guards against a passing size slowed past its limit by a loaded machine,
# which here would at worst give `routine` the verdict its sibling's own
# two runs measured at that size. (MPICH 4.0.2's journal: of 71 jobs run
# again, 35 were at a size where the sibling had hung, and each hung again:
# 3,564 s of second runs; of the other 36, one passed on its second run.)
sibling_hung() {
  local sibling=${sibling_form[$routine]}
  [[ -n $sibling ]] || return 1
  awk -F '\t' -v key="routine=$sibling ${1#"routine=$routine "}" '
    $1 == key && $2 == "status=timeout" && $NF == "end" { found = 1 }
    END { exit !found }' "$journal" || return 1
  echo "$sibling"
}

# from_sibling_form: whether a routine's search at one node starts from its
# sibling form's (sibling_form) at the same form and P (searched before it
# in this run), and that one's bound holds here: this routine's own jobs
# pass at the sibling's safe count and fail alike at its failure (passed,
# first_fail, limit and mode set; the verifications and W4's trials follow
# as for any bound). Otherwise (1) the doubling starts at the largest count
# those jobs or the sibling's passed (`from`), where the sibling found no
# failure up to its cap, or a large-count routine's int form found Class D
# (which MPI_Aint displacements cannot meet), or this routine passed the
# safe count but not the failure alike: what the sibling passed is not
# searched again.
from_sibling_form() {
  local sibling=${sibling_form[$routine]}
  [[ -n $sibling && -n ${irregular[$sibling]:-} ]] && ((nodes == 1)) || return 1
  local known
  await_task "$sibling $inplace $p 1" one_node one_node_class one_node_found memory_ratio
  read -ra known <<<"${one_node[$sibling:$inplace:$p]:-none}"
  local kind=${known[0]} safe=${known[1]:-} fail=${known[2]:-} seed_limit=${known[-1]}
  local shown="probe: $routine P=$p $form:"
  case $kind in
    none) return 1 ;;
    clean)
      # (a sibling that ran no size, all over the memory limit: passed 0)
      ((safe > 0)) || return 1
      from=$safe limit=$seed_limit
      echo "$shown $sibling passed up to n=$safe: doubling from there"
      return 1 ;;
  esac
  if ((large[$routine] && !large[$sibling])) &&
    [[ ${one_node_class[$sibling:$inplace:$p]} == class=D* ]]; then
    from=$safe limit=$seed_limit
    echo "$shown $sibling's failure was Class D, which cannot occur here: doubling from" \
      "its safe n=$safe"
    return 1
  fi
  local failure
  failure=$(words_named failure "${one_node_found[$sibling:$inplace:$p]}")
  failure=${failure#failure=}
  [[ $failure != slow ]] || mode=slow
  run_point "$seed_limit" 0 "$safe"
  local at_safe=${outcome[$inplace.$nodes:$p:$s:$safe]} at_fail=-
  if [[ $at_safe == pass ]]; then
    run_point "$seed_limit" 0 "$fail"
    at_fail=${outcome[$inplace.$nodes:$p:$s:$fail]}
    if [[ $at_fail == "$failure" ]]; then
      passed=$safe first_fail=$fail limit=$seed_limit
      echo "$shown n=$safe pass, n=$fail $failure, as $sibling: its bound holds here"
      return 0
    fi
    from=$safe limit=$seed_limit
  fi
  mode=fail
  echo "$shown n=$safe $at_safe, n=$fail $at_fail; $sibling: pass and $failure: a search of" \
    "its own"
  return 1
}

# count_cap: the largest count of `routine` tried: --max-count, which past
# INT_MAX only a large-count routine takes (the others stop at INT_MAX).
count_cap() {
  if ((large[$routine] || max_count <= INT_MAX)); then echo "$max_count"; else echo "$INT_MAX"; fi
}

# search P: the search of `routine` at P processes in form `inplace`.
search() {
  local p=$1 s=$type_size mode=fail
  local cap form=plain wrap
  cap=$(count_cap)
  ((inplace)) && form="in place"
  wrap=$(displacements_wrap_above "$p" "$s") # the doubling's, the refinement's and Class D's
  local jobs_at_start=$((jobs_run + jobs_reused)) seconds_at_start=$job_seconds
  local run_at_start=$jobs_run wall_at_start=$EPOCHREALTIME
  implied_points=0
  local n limit=$time_limit passed=0 first_fail=0 delta from=$start_count
  if from_sibling_form; then
    delta=$((first_fail - passed)) # the sibling's last step: nothing left to refine
  else
    doubling || return 0
    delta=$((passed / factor))
    ((delta >= 1)) || delta=1
  fi

  # Step 2: refinement on the grid (grid_point).
  local steps=$(((first_fail - passed + delta - 1) / delta))
  local low=0 high=$steps mid
  if [[ $refine == bisect ]]; then
    # Where the routine's int displacements wrap between the counts that
    # passed and failed, the grid points either side of the wrap first: the
    # same answer bisection gives (it too assumes a size passes where a
    # larger one does) in 1-2 jobs instead of log2 F. MPICH's Allgatherv
    # spent 4 jobs of 350-720 s in each such search (its first journal,
    # its ranks spinning).
    if ((wrap >= passed && wrap < first_fail)); then
      local below=$(((wrap - passed) / delta))
      for mid in "$below" $((below + 1)); do
        ((mid > low && mid < high)) || continue
        n=$(grid_point "$mid")
        run_point "$limit" 0 "$n"
        if [[ ${outcome[$inplace.$nodes:$p:$s:$n]} != pass ]]; then
          high=$mid
          break
        fi
        low=$mid
        limit=$(larger_limit "$limit" "$job_wall")
      done
    fi
    while ((high - low > 1)); do
      mid=$(((low + high) / 2))
      n=$(grid_point "$mid")
      run_point "$limit" 0 "$n"
      if [[ ${outcome[$inplace.$nodes:$p:$s:$n]} == pass ]]; then
        low=$mid
        limit=$(larger_limit "$limit" "$job_wall")
      else
        high=$mid
      fi
    done
  else
    for ((mid = 1; mid < steps; mid++)); do
      n=$(grid_point "$mid")
      run_point "$limit" 0 "$n"
      [[ ${outcome[$inplace.$nodes:$p:$s:$n]} == pass ]] || break
      low=$mid
      limit=$(larger_limit "$limit" "$job_wall")
    done
    high=$((low + 1))
  fi
  local search_jobs=$((jobs_run + jobs_reused - jobs_at_start)) search_seconds
  search_seconds=$(awk -v a="$job_seconds" -v b="$seconds_at_start" 'BEGIN { print a - b }')
  local safe fail
  safe=$(grid_point "$low")
  fail=$(grid_point "$high")
  local failure=${outcome[$inplace.$nodes:$p:$s:$fail]}
  local timing=()
  [[ $failure != slow ]] ||
    timing=(safe_seconds="${seconds_of[$inplace.$nodes:$p:$s:$safe]}"
      fail_seconds="${seconds_of[$inplace.$nodes:$p:$s:$fail]}")
  # The INI is in the layer's n: safe_count, delta and the bound.
  local scale
  scale=$(layer_scale "$p")
  if ((scale > 1)); then
    echo "probe: $routine: the layer's n is the sum of the counts, $scale x the bench's count:" \
      "safe_count $((scale * safe)), delta $((scale * (fail - safe)))"
  fi
  safe=$((scale * safe)) fail=$((scale * fail))
  local found=(type_size="$s" procs="$p" safe_count="$safe" delta=$((fail - safe))
    failure="$failure" "${timing[@]}" workaround=auto)
  ((inplace == 0)) || found+=(inplace=yes)
  ((nodes == 1)) || found+=(nodes="$nodes")

  # Class D: the first failure is where the last int displacement, (P-1)*n
  # (Alltoallw's in bytes: (P-1)*n*s), passes INT_MAX; never of a
  # routine whose MPI_Aint displacements do not wrap (aint_displs).
  local classified
  if ((wrap && safe <= wrap && fail > wrap)); then
    classified=(class=D)
  else
    # A doubled point moves up to twice the bytes: at 2s the search's limit,
    # 5x its last pass, still leaves 2.5x (and a job that reaches it runs
    # again with twice it); 2P ranks also share the same cores, which
    # measured here doubles the time again (MPICH Iscatter: 8.4 s at P = 4,
    # 34 s at P = 8 with half the count), so twice the limit there.
    await_task "$routine $inplace $((2 * p)) $nodes"
    verify $((2 * p)) "$s" "$safe" $((fail - safe)) $((2 * limit))
    local at_double_procs=$verdict_runs
    verify "$p" $((2 * s)) "$safe" $((fail - safe)) "$limit"
    local at_double_size=$verdict_runs
    mapfile -t classified < <("$ini_tool" classify "$safe" "$s" "$p" \
      "$at_double_procs" "$at_double_size")
    echo "probe: $routine: verification (s, 2P) $at_double_procs, (2s, P) $at_double_size" \
      "(n_s/2, (n_s+delta)/2, n_s, n_s+delta: p passed, f failed, - not run)"
  fi
  avoid=()
  [[ ${classified[0]} == class=D ]] || try_algorithms $((safe / scale)) $((fail / scale)) "$scale"
  echo "probe: $routine: ${classified[*]} ${found[*]} ${avoid[*]}"
  echo "probe: $routine: bound in $search_jobs jobs ($search_seconds s of jobs, $refine)," \
    "classified in $((jobs_run + jobs_reused - jobs_at_start - search_jobs)) more"
  if ((nodes == 1)); then
    local key=$routine:$inplace:$p
    one_node[$key]="bound $((safe / scale)) $((fail / scale)) $limit"
    one_node_class[$key]=${classified[*]} one_node_found[$key]=${found[*]}
    one_node_avoid[$key]=${avoid[*]}
  elif same_as_one_node; then
    search_done "${classified[*]} failure=$failure, as on 1 node"
    return 0
  fi
  found+=("${avoid[@]}")
  entries+=("${classified[*]} ${found[*]}")
  search_done "${classified[*]} failure=$failure$(spread_differs)"
}

# ---- the spread: the same search over several nodes --------------------------
#
# A search at spread N > 1 (--nodes) starts from the one-node search of the
# same routine, form and P (one_node[ROUTINE:FORM:P], set by search at nodes 1):
# "bound SAFE FAIL LIMIT" (the bench's counts either side of the bound on
# its grid, the search's last time limit) or "clean N LIMIT" (no failure up
# to N). The spread runs those sizes: SAFE passing and FAIL failing give the
# one-node bound on the same grid (the search assumes, at every spread, that
# a size passes when a larger one does), and N passing the one-node
# verdict; W4's choice is run at FAIL too. What agrees is said, journaled
# and reported, and not written: the one-node entry applies across nodes
# (README, "The bounds INI"). What does not is a full search at N, its entry
# written with nodes = N where it differs from the one-node one.
declare -A one_node=() one_node_class=() one_node_found=() one_node_avoid=()

# spread_shown: " over N nodes" in the lines of a search at spread N > 1.
spread_shown() {
  ((nodes == 1)) || printf ' over %s nodes' "$nodes"
}

# spread_differs: at spread N > 1, what one node found at the same routine,
# form and P, after the spread's own outcome.
spread_differs() {
  ((nodes > 1)) || return 0
  local kind n _
  read -r kind n _ <<<"${one_node[$routine:$inplace:$p]:-none}"
  case $kind in
    clean) printf '; differs from 1 node (no failure up to n=%s)' "$n" ;;
    bound)
      printf '; differs from 1 node (%s %s)' "${one_node_class[$routine:$inplace:$p]}" \
        "$(words_named 'safe_count delta' "${one_node_found[$routine:$inplace:$p]}")" ;;
    *) printf '; 1 node not measured' ;;
  esac
}

# words_named "NAME..." "KEY=VALUE...": the words of the list with those keys.
words_named() {
  local word shown=()
  for word in $2; do
    [[ " $1 " != *" ${word%%=*} "* ]] || shown+=("$word")
  done
  echo "${shown[*]}"
}

# same_as_one_node: the entry search made at spread N > 1 (its locals
# classified, found, avoid) says what the one-node entry says: the class,
# trigger and bound, safe_count and delta, and W4's choice. (The seconds it
# measured are the spread's own.)
same_as_one_node() {
  local key=$routine:$inplace:$p
  [[ ${one_node[$key]:-} == bound* ]] || return 1
  [[ ${classified[*]} == "${one_node_class[$key]}" ]] || return 1
  [[ $(words_named 'safe_count delta' "${found[*]}") == \
    "$(words_named 'safe_count delta' "${one_node_found[$key]}")" ]] || return 1
  [[ $(words_named avoid_with "${avoid[*]}") == \
    "$(words_named avoid_with "${one_node_avoid[$key]}")" ]]
}

# spread_search P: the search of `routine` at P processes in form `inplace`
# over `nodes` nodes, from the one-node verdict where there is one.
spread_search() {
  local p=$1 s=$type_size mode=fail form=plain
  ((inplace)) && form="in place"
  await_task "$routine $inplace $p 1"
  local known kind safe fail limit
  read -ra known <<<"${one_node[$routine:$inplace:$p]:-none}"
  kind=${known[0]} safe=${known[1]:-} fail=${known[2]:-} limit=${known[-1]}
  if [[ $kind == none ]]; then
    search "$p"
    return 0
  fi
  local jobs_at_start=$((jobs_run + jobs_reused)) seconds_at_start=$job_seconds
  local run_at_start=$jobs_run wall_at_start=$EPOCHREALTIME
  implied_points=0
  # Across nodes the same bytes go through the network transport: twice
  # the one-node search's limit (a job that reaches it runs again with
  # twice that before it counts as a hang).
  limit=$((2 * limit))
  [[ " ${one_node_found[$routine:$inplace:$p]:-} " != *" failure=slow "* ]] || mode=slow
  run_point "$limit" 0 "$safe"
  if [[ $kind == clean ]]; then
    if [[ ${outcome[$inplace.$nodes:$p:$s:$safe]} == pass ]]; then
      search_done "no failure up to n=$safe, as on 1 node"
      return 0
    fi
    echo "probe: $routine P=$p$(spread_shown): n=$safe" \
      "${outcome[$inplace.$nodes:$p:$s:$safe]}, passed on 1 node: a search of its own"
    search "$p"
    return 0
  fi
  local at_safe=${outcome[$inplace.$nodes:$p:$s:$safe]} at_fail=-
  [[ $at_safe != pass ]] || {
    run_point "$limit" 0 "$fail"
    at_fail=${outcome[$inplace.$nodes:$p:$s:$fail]}
  }
  if [[ $at_safe != pass || $at_fail == pass || $at_fail == oom ]]; then
    echo "probe: $routine P=$p$(spread_shown): n=$safe $at_safe, n=$fail $at_fail; on 1 node" \
      "pass and fail: a search of its own"
    search "$p"
    return 0
  fi
  local classified found avoid=()
  read -ra classified <<<"${one_node_class[$routine:$inplace:$p]}"
  read -ra found <<<"${one_node_found[$routine:$inplace:$p]}"
  found+=(nodes="$nodes")
  local chosen
  chosen=$(words_named avoid_with "${one_node_avoid[$routine:$inplace:$p]}")
  if [[ -n $chosen ]]; then
    # as W4's trial ran it (try_algorithms): MPICH's fallback off
    local setting=${chosen#avoid_with=}
    local bench_extra=() tag="#$setting" retry_at_limit=0
    algorithm_args "$setting" 1
    run_job "$limit" 0 1 "$fail"
    bench_extra=() tag=''
    if [[ ${outcome[$inplace.$nodes:$p:$s#$setting:$fail]:-} == pass ]]; then
      search_done "${classified[*]} failure=$at_fail, as on 1 node (and W4's $setting)"
      return 0
    fi
    echo "probe: $routine P=$p$(spread_shown): W4's $setting does not pass at n=$fail here:" \
      "the algorithms tried again"
    local scale cap
    cap=$(count_cap)
    scale=$(layer_scale "$p")
    try_algorithms "$safe" "$fail" "$scale"
    found+=("${avoid[@]}")
    entries+=("${classified[*]} ${found[*]}")
    search_done "${classified[*]} failure=$at_fail, W4 ${avoid[*]:-none}$(spread_differs)"
    return 0
  fi
  search_done "${classified[*]} failure=$at_fail, as on 1 node"
}

# spread_excludes P N: whether no search of `routine` runs at P over N
# nodes: P ranks cannot spread over N, or N > 1 and P is not one of
# --spread-procs, or the routine not one of --spread-collective (said).
spread_excludes() {
  if (($1 < $2)); then
    echo "probe: $routine: P=$1 cannot spread over $2 nodes: no search there"
  elif (($2 > 1)) && [[ -n $spread_procs_list && ,$spread_procs_list, != *,$1,* ]]; then
    echo "probe: $routine: P=$1 over $2 nodes: not in --spread-procs"
  elif (($2 > 1)) && [[ -n $spread_collective && ,$spread_collective, != *,$routine,* ]]; then
    echo "probe: $routine: P=$1 over $2 nodes: not in --spread-collective"
  else
    return 1
  fi
}

# search_at_spread P: the search at P over `nodes` nodes, unless excluded.
search_at_spread() {
  if spread_excludes "$1" "$nodes"; then
    return 0
  elif ((nodes == 1)); then
    search "$1"
  else
    spread_search "$1"
  fi
}

# algorithms_of ROUTINE: algorithms_listed[ROUTINE] holds the variable that
# chooses its algorithm and its values ("cvar=NAME", then "VALUE LABEL" lines;
# "cvar=none" where the MPI offers no choice), from a one-rank
# scaleguard-cvars job like the bench's.
declare -A algorithms_listed=()
algorithms_of() {
  if [[ -z ${algorithms_listed[$1]:-} ]]; then
    local log="$state/logs/algorithms-$1-$BASHPID.log" status=''
    local job=("$launchers/launch-$launcher" --procs 1 --time-limit 120 --log "$log"
      --job-name sg-algorithms)
    for item in "${bench_envs[@]}"; do job+=(--env "$item"); done
    campaign_check
    if run_launcher "$log" "${job[@]}" -- "$here/scaleguard-cvars" --algorithms "$1"; then
      status=$launched
    else
      status="failed (launcher status $?)"
    fi
    if [[ $status == status=completed* ]] && grep -q '^cvar=' "$log"; then
      algorithms_listed[$1]=$(sed -n '/^cvar=/,$p' "$log" | grep -E '^(cvar=|[0-9]+ )')
    else
      echo "probe: $1: the MPI's algorithms could not be listed ($status; log: $log)" >&2
      algorithms_listed[$1]=cvar=none
    fi
  fi
}

# trial_slow N SECONDS: under mode slow (a performance cliff), whether a
# trial's call of N took more than SLOW_FACTOR times the time per byte of
# the MPI's own choice at the safe size (try_algorithms's `safe`).
trial_slow() {
  [[ $mode == slow && -n $2 ]] || return 1
  local reference=${seconds_of[$inplace.$nodes:$p:$s:$safe]:-}
  [[ -n $reference ]] || return 1
  awk -v t="$2" -v n="$1" -v tr="$reference" -v nr="$safe" -v f=$SLOW_FACTOR \
    -v floor=$SLOW_MIN_SECONDS 'BEGIN { exit !(t >= floor && t / n > f * tr / nr) }'
}

# algorithm_args SETTING FALLBACK_OFF: bench_extra (the caller's) for a job
# under SETTING (NAME=VALUE[,NAME=VALUE]); with FALLBACK_OFF 1 and MPICH's
# variables, its fallback off first: an algorithm that does not apply errs
# instead of running the default.
algorithm_args() {
  local pair
  bench_extra=()
  [[ $2 == 0 || $1 != MPIR_CVAR_* ]] || bench_extra=(--cvar MPIR_CVAR_COLLECTIVE_FALLBACK=0)
  for pair in ${1//,/ }; do bench_extra+=(--cvar "$pair"); done
}

# try_algorithms SAFE FAIL SCALE: W4's trial of the search under way (its
# locals: classified, found, limit, cap, mode, by bash's dynamic scope), at the
# bench's counts SAFE (passed) and FAIL (the first that failed). Each value
# of the routine's algorithm variable at FAIL (one that runs the I-form,
# MPICH's nb, also with each of the I-form's), every byte checked (MPICH
# with MPIR_CVAR_COLLECTIVE_FALLBACK=0: an algorithm that does not apply
# errs instead of running the default); the fastest that passes is run
# again at doubling sizes, one job each, up to the first failure, the
# memory limit or --max-count; and with the layer (--layer) at FAIL under
# the entry as found, the layer's own choice. Sets `avoid` to the INI keys.
try_algorithms() {
  local safe=$1 fail=$2 scale=$3 cvar item value label best='' best_seconds=''
  avoid=()
  ((w4)) || return 0
  local listing
  algorithms_of "$routine"
  mapfile -t listing <<<"${algorithms_listed[$routine]}"
  cvar=${listing[0]#cvar=}
  if [[ $cvar == none ]]; then
    echo "probe: $routine: W4: the MPI offers no choice of algorithm here"
    return 0
  fi
  # the settings to try, NAME=VALUE[,NAME=VALUE]: each value, and where one
  # runs the I-form (MPICH's nb), it with each of the I-form's algorithms
  local settings=() labels=() inner icvar
  for item in "${listing[@]:1}"; do
    value=${item%% *} label=${item#* }
    settings+=("$cvar=$value") labels+=("$label")
    [[ $label == *" runs MPI_I"* ]] || continue
    algorithms_of "${label##* runs }"
    mapfile -t inner <<<"${algorithms_listed[${label##* runs }]}"
    icvar=${inner[0]#cvar=}
    [[ $icvar != none ]] || continue
    local each
    for each in "${inner[@]:1}"; do
      settings+=("$cvar=$value,$icvar=${each%% *}") labels+=("${label%% *} + ${each#* }")
    done
  done
  # A trial's limit: 2/5 of the search's (which is 5x the last passing job's
  # time), never below --time-limit. An algorithm more than twice as slow as
  # the MPI's own choice is no choice W4 would keep, and a hanging one costs
  # the limit (16 minutes at 5x for Open MPI's Reduce_scatter of 1 GiB).
  local k setting trial_limit=$((limit * 2 / 5))
  ((trial_limit >= time_limit)) || trial_limit=$time_limit
  for k in "${!settings[@]}"; do
    setting=${settings[$k]}
    local bench_extra=() tag="#$setting" retry_at_limit=0
    algorithm_args "$setting" 1
    run_job "$trial_limit" 0 1 "$fail"
    local got=${outcome[$inplace.$nodes:$p:$s$tag:$fail]:-hang} secs=${seconds_of[$inplace.$nodes:$p:$s$tag:$fail]:-}
    ! trial_slow "$fail" "$secs" || got=slow
    [[ $got != hang ]] || got="hang (no result within $trial_limit s: hung, or too slow to keep)"
    echo "probe: $routine: W4 trial $setting (${labels[$k]}) at n=$fail: $got${secs:+ in $secs s}"
    [[ $got == pass && -n $secs ]] || continue
    if [[ -z $best ]] || awk -v a="$secs" -v b="$best_seconds" 'BEGIN { exit !(a < b) }'; then
      best=$setting best_seconds=$secs
    fi
  done
  if [[ -z $best ]]; then
    echo "probe: $routine: W4: no algorithm passes at n=$fail"
    return 0
  fi
  local bench_extra=() tag="#$best" checked=$fail n=$((2 * fail))
  algorithm_args "$best" 0
  local job_limit
  job_limit=$(next_limit "$(awk -v t="$best_seconds" 'BEGIN { print 2 * t }')")
  while ((n <= cap)) && fits "$p" "$s" "$n"; do
    run_job "$job_limit" 0 1 "$n"
    [[ ${outcome[$inplace.$nodes:$p:$s$tag:$n]:-} == pass ]] || break
    ! trial_slow "$n" "${seconds_of[$inplace.$nodes:$p:$s$tag:$n]}" || break
    checked=$n
    job_limit=$(next_limit "$(awk -v t="${seconds_of[$inplace.$nodes:$p:$s$tag:$n]}" 'BEGIN { print 2 * t }')")
    n=$((2 * n))
  done
  avoid=(avoid_with="$best" avoid_checked=$((scale * checked)) avoid_seconds="$best_seconds")
  echo "probe: $routine: W4: $best passes from n=$fail to n=$checked"
  if [[ -z $layer ]]; then
    echo "probe: $routine: W4: no libscaleguard.so (--layer): its other workarounds not measured"
    return 0
  fi
  local config="$state/logs/w4-$routine-$p-$inplace.ini"
  rm -f "$config"
  "$ini_tool" replace "$config" "$routine" --entry "${classified[@]}" "${found[@]}" >/dev/null
  local preloads=("$layer" "${preloads[@]}") bench_envs=("${bench_envs[@]}" "SCALEGUARD_CONFIG=$config")
  bench_extra=() tag="#layer"
  run_job "$limit" 0 1 "$fail"
  local secs=${seconds_of[$inplace.$nodes:$p:$s$tag:$fail]:-}
  if [[ ${outcome[$inplace.$nodes:$p:$s$tag:$fail]:-} == pass && -n $secs ]]; then
    avoid+=(workaround_seconds="$secs")
    echo "probe: $routine: W4: the layer's own workaround at n=$fail: $secs s"
  else
    echo "probe: $routine: W4: the layer's own workaround at n=$fail did not pass"
  fi
}

# write_routine: the routine's entries replace its sections in the INI (a
# routine whose searches found nothing loses them); one Class D entry per
# form is enough, since D has no bound. A routine one of whose searches could
# not measure is left as it was.
write_routine() {
  if ((inconclusive)); then
    echo "probe: $routine: not measured at every P and form; INI unchanged"
    return 0
  fi
  local arguments=() entry seen_d=() words written=0
  for entry in "${entries[@]}"; do
    read -ra words <<<"$entry"
    if [[ ${words[0]} == class=D ]]; then
      local form=plain
      [[ $entry != *inplace=yes* ]] || form=inplace
      [[ " ${seen_d[*]} " != *" $form "* ]] || continue
      seen_d+=("$form")
    fi
    arguments+=(--entry "${words[@]}")
    written=$((written + 1))
  done
  "$ini_tool" replace "$output" "$routine" "${arguments[@]}"
  if ((written)); then
    echo "probe: $routine: $written entries written"
  else
    echo "probe: $routine: no failure at any P or form; no entry"
  fi
}

# ---- the campaign: the searches at once (--max-jobs K) ------------------------
#
# Each search (routine, form, P, spread) is a task, a subshell of this
# driver; at most K run at once and a search's jobs go one after another, so
# at most K jobs are in flight. What a search decides comes from its own
# jobs, but for its verification at (s, 2P): that reads what the search at
# 2P of the same routine, form and spread found (the sizes it implies, the
# memory it measured at 2P, its cliffs), as it does when the searches run
# one after another, largest P first; and a spread's search starts from the
# one-node search's verdict. So a search waits there for that one and takes
# its state (await_task), holding its place meanwhile: the jobs made
# and the INI written are those of one job at a time. Each task leaves its
# result in the campaign's folder (write_task_result); the driver writes a
# routine's entries once all its searches are done, routines in order
# (flush_routines). A task finding the campaign stopped (another search's
# launch error) starts no job; one whose driver is gone (killed: its restart
# runs what the journal lacks) journals nothing more.

campaign_run='' # the campaign's folder; empty with one job at a time
campaign_tasks=() # "ROUTINE FORM P NODES", in the order of one job at a time
declare -A task_index=() tasks_of_routine=()
readonly state_arrays=(outcome seconds_of fastest_of cpu_wait_of memory_ratio one_node one_node_class
  one_node_found one_node_avoid)

# campaign_check: in a campaign's task, before a job: exit 3 when the
# campaign stopped or the driver is gone.
campaign_check() {
  [[ -n $campaign_run ]] || return 0
  [[ ! -e $campaign_run/stop ]] || exit 3
  campaign_check_driver
}

# campaign_check_driver: in a campaign's task, exit 3 when the driver is gone
# ($$, in its subshells too).
campaign_check_driver() {
  [[ -z $campaign_run ]] || kill -0 $$ 2>/dev/null || exit 3
}

# await_task "ROUTINE FORM P NODES" [ARRAY...]: in a campaign's task, before
# what needs another search's result (the verification at (s, 2P); a
# spread's start, the one-node search; a sibling form's start, its
# sibling's search: from_sibling_form): once that search (if the campaign has it) is done, its
# state (or only those arrays) joins this one's, and the journal is read
# again (where sizes meet, its jobs answer this search's as they would one
# after another).
# It was started before this one (tasks start in the order of one job at a
# time, where it ran first), so the wait ends.
await_task() {
  [[ -n $campaign_run ]] || return 0
  local other=${task_index["$1"]:-}
  [[ -n $other ]] || return 0
  shift
  until [[ -e $campaign_run/task-$other ]]; do
    campaign_check
    sleep 0.2
  done
  # the wait is the other search's time, not this driver's
  slot_free_since=$EPOCHREALTIME
  merge_task_state "$campaign_run/task-$other" "$@"
  load_journal
}

# write_task_result FILE: what the driver needs of this task (its counts, its
# flags, its entries, when its last job ended) and the state another search
# takes from it (state_arrays), one tab-separated line each, FILE appearing
# whole.
write_task_result() {
  local name key entry
  {
    printf 'counts\t%s\t%s\t%s\t%s\n' "$jobs_run" "$jobs_reused" "$job_seconds" "$last_measured"
    printf 'flags\t%s\t%s\n' "$failed" "$inconclusive"
    printf 'slot_free_since\t%s\n' "$slot_free_since"
    printf 'library\t%s\n' "$library"
    for entry in "${entries[@]}"; do printf 'entry\t%s\n' "$entry"; done
    for name in "${state_arrays[@]}"; do
      local -n array=$name
      for key in "${!array[@]}"; do printf '%s\t%s\t%s\n' "$name" "$key" "${array[$key]}"; done
      unset -n array
    done
  } >"$1.part"
  mv "$1.part" "$1"
}

# merge_task_state FILE [ARRAY...]: another search's state (only those
# arrays: another routine's, whose jobs say nothing of this one's), where
# this one has none.
merge_task_state() {
  local line kind rest key file=$1
  shift
  local arrays=("${@:-${state_arrays[@]}}")
  while IFS= read -r line; do
    kind=${line%%$'\t'*} rest=${line#*$'\t'}
    [[ " ${arrays[*]} " == *" $kind "* ]] || continue
    key=${rest%%$'\t'*}
    local -n array=$kind
    [[ -n ${array["$key"]+set} ]] || array["$key"]=${rest#*$'\t'}
    unset -n array
  done <"$file"
}

# take_task_result FILE: a task's counts, flags and entries into the driver's.
take_task_result() {
  local line kind rest fields
  while IFS= read -r line; do
    kind=${line%%$'\t'*} rest=${line#*$'\t'}
    case $kind in
      counts)
        IFS=$'\t' read -ra fields <<<"$rest"
        jobs_run=$((jobs_run + fields[0])) jobs_reused=$((jobs_reused + fields[1]))
        job_seconds=$(awk -v a="$job_seconds" -v b="${fields[2]}" 'BEGIN { print a + b }')
        ((fields[3] <= last_measured)) || last_measured=${fields[3]} ;;
      flags)
        [[ ${rest%%$'\t'*} == 0 ]] || failed=1
        [[ ${rest#*$'\t'} == 0 ]] || inconclusive=1 ;;
      library) [[ -n $library ]] || library=$rest ;;
      entry) entries+=("$rest") ;;
    esac
  done <"$1"
}

# search_task INDEX SLOT_FREE_SINCE: the search campaign_tasks[INDEX], in a
# subshell, from the state a routine starts with; its slot's last job ended
# at SLOT_FREE_SINCE (empty: none did).
search_task() {
  local procs
  read -r routine inplace procs nodes <<<"${campaign_tasks[$1]}"
  slot_free_since=$2
  entries=() inconclusive=0 failed=0 outcome=() seconds_of=() fastest_of=() cpu_wait_of=()
  memory_ratio=() one_node=() one_node_class=() one_node_found=() one_node_avoid=()
  jobs_run=0 jobs_reused=0 job_seconds=0 last_measured=0
  search_at_spread "$procs"
  write_task_result "$campaign_run/task-$1"
}

# flush_routines: each routine, in order, whose searches are all done: its
# entries into the INI (write_routine).
routines_written=0
flush_routines() {
  local index
  while ((routines_written < ${#routines[@]})); do
    routine=${routines[routines_written]}
    for index in ${tasks_of_routine[$routine]:-}; do
      [[ -e $campaign_run/task-$index ]] || return 0
    done
    entries=() inconclusive=0
    for index in ${tasks_of_routine[$routine]:-}; do
      take_task_result "$campaign_run/task-$index"
    done
    write_routine
    routines_written=$((routines_written + 1))
  done
}

# run_campaign: every search as a task, at most max_jobs at once; a task
# that ends otherwise than done (a launch error) stops the campaign: no new
# task, the others end after their job in flight (journaled), exit 1.
run_campaign() {
  local name form procs spread task
  for name in "${routines[@]}"; do
    for form in "${forms[@]}"; do
      if ((form && !has_in_place[$name])); then
        echo "probe: $name has no in-place form"
        continue
      fi
      for spread in "${spreads[@]}"; do
        for procs in "${procs_all[@]}"; do
          routine=$name spread_excludes "$procs" "$spread" && continue
          task="$name $form $procs $spread"
          task_index[$task]=${#campaign_tasks[@]}
          tasks_of_routine[$name]+=" ${#campaign_tasks[@]}"
          campaign_tasks+=("$task")
        done
      done
    done
  done
  campaign_run=$state/campaign-$$
  rm -rf "$campaign_run"
  mkdir "$campaign_run"
  local next=0 running=0 stopped=0 handoff='' pid status index
  local -A task_of_pid=()
  while :; do
    if ((!stopped && next < ${#campaign_tasks[@]} && running < max_jobs)); then
      search_task "$next" "$handoff" &
      task_of_pid[$!]=$next
      next=$((next + 1)) running=$((running + 1)) handoff=''
      continue
    fi
    ((running)) || break
    status=0
    wait -n -p pid || status=$?
    index=${task_of_pid[${pid:-none}]:-}
    [[ -n $index ]] || continue
    running=$((running - 1))
    if ((status == 0)); then
      # the next task takes this one's place: its first job's driver time
      # counts from this one's last job
      handoff=$(sed -n 's/^slot_free_since\t//p' "$campaign_run/task-$index")
      flush_routines
    elif ((!stopped)); then
      stopped=1
      touch "$campaign_run/stop"
      read -r name form procs spread <<<"${campaign_tasks[index]}"
      ((form)) && form=" in place" || form=''
      ((spread == 1)) && spread='' || spread=" over $spread nodes"
      echo "probe: the search of $name$form at P=$procs$spread stopped (exit $status): the" \
        "campaign stops once its jobs in flight are done" >&2
    fi
  done
  flush_routines # (routines without a search: Bcast has no in-place form)
  ((!stopped)) || exit 1
  rm -rf "$campaign_run"
}

probe_started=$EPOCHREALTIME
if ((max_jobs > 1)); then
  run_campaign
else
  for routine in "${routines[@]}"; do
    # What one routine's jobs showed says nothing of another's (its
    # searches' results, one_node, and its memory, memory_ratio, are kept by
    # routine: from_sibling_form, memory_ratio_of).
    entries=() inconclusive=0 outcome=() seconds_of=() fastest_of=() cpu_wait_of=()
    for inplace in "${forms[@]}"; do
      if ((inplace && !has_in_place[$routine])); then
        echo "probe: $routine has no in-place form"
        continue
      fi
      for nodes in "${spreads[@]}"; do
        for p in "${procs_all[@]}"; do
          search_at_spread "$p"
        done
      done
    done
    write_routine
  done
fi
inplace=0 nodes=1

# Every job reused: the library as any job's log of this journal names it,
# else as the fingerprint's job below reads it (a clean clone of a
# committed journal has no logs).
[[ -n $library ]] || library=$(grep -rh -m 1 '# scaleguard-bench: mpi_library=' "$state/logs" 2>/dev/null |
  head -n 1 | sed 's/^.*# scaleguard-bench: mpi_library=//') || true
((last_measured)) || last_measured=$EPOCHSECONDS
platform=(hostname="$(hostname -s)" measured="$(date -u -d "@$last_measured" +%Y-%m-%dT%H:%M:%SZ)"
  launcher="$launcher")

# The platform's fingerprint (fingerprint/read.h): the control variables
# that choose the collectives' algorithms, as a one-rank job of the same
# launcher and environment as the bench's reads them; [cvars] and the rule
# and digest in [platform] (none when the job fails: the layer then
# compares the library only).
cvars=()
cvars_log="$state/logs/cvars-$$.log"
cvars_job=("$launchers/launch-$launcher" --procs 1 --time-limit 120 --log "$cvars_log"
  --job-name sg-cvars)
for item in "${bench_envs[@]}"; do cvars_job+=(--env "$item"); done
if run_launcher "$cvars_log" "${cvars_job[@]}" -- "$here/scaleguard-cvars"; then
  cvars_status=$launched
else
  cvars_status="launcher failed"
fi
if [[ $cvars_status == status=completed* ]] && grep -q '^cvars_rule=' "$cvars_log"; then
  [[ -n $library ]] || library=$(sed -n 's/^mpi_library=//p' "$cvars_log" | head -n 1)
  # its lines, NAME=VALUE; the launcher's own ("launch-local: ...") are not
  while IFS= read -r line; do
    if [[ $line == cvars_rule=* ]]; then
      platform+=("$line") rule=${line#cvars_rule=}
    elif [[ $line == cvars_digest=* ]]; then
      platform+=("$line")
    elif [[ $line =~ ^[A-Za-z0-9_.-]+= ]]; then
      cvars+=("$line")
    fi
  done < <(sed -n '/^cvars_rule=/,$p' "$cvars_log")
  echo "probe: the MPI's fingerprint: ${#cvars[@]} control variables ($rule)"
else
  echo "probe: the MPI's control variables could not be read ($cvars_status; log: $cvars_log);" \
    "no [cvars]"
fi
[[ -z $library ]] || platform=(mpi_library="${library:0:150}" "${platform[@]}")
"$ini_tool" replace "$output" platform --entry "${platform[@]}"
if ((${#cvars[@]})); then
  "$ini_tool" replace "$output" cvars --entry "${cvars[@]}"
else
  "$ini_tool" replace "$output" cvars
fi
wall=$(awk -v a="$probe_started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
echo "probe: $jobs_run jobs run, $jobs_reused reused, ${job_seconds} s of jobs, $wall s in all;" \
  "wrote $output"
exit "$failed"
