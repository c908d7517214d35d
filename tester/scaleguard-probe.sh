#!/usr/bin/env bash
# scaleguard-probe: find the safe bound of MPI collectives and classify the
# failure past it (paper section III-B, Table IX), then write the bounds INI.
#
# For each routine:
#   1. doubling: n = start, 2 start, 4 start, ... until a failure, INT_MAX,
#      --max-count or the memory limit. Small sizes share one job; the time
#      limit of each later job is 10x the wall time of the last passing one
#      (never below --time-limit), so a slow size is not mistaken for a hang.
#   2. refinement between n' (passed) and 2n' (failed) on the grid
#      Delta = n'/f: bisection (log2 f jobs) or the paper's linear scan.
#   3. Class D when a v-routine's first failure is where its int
#      displacements overflow; otherwise verification at (s, 2P) and (2s, P)
#      and the Table IX classification (scaleguard-ini classify), each size
#      a job of its own, with sparse data where dense data do not fit.
# The INI's counts are in the n the protection layer computes (for
# Reduce_scatter(_block) the sum of the counts: P times the bench's count).
# Every job's result is appended to the state folder as it lands: a driver
# started again with the same arguments reuses every finished job.
set -euo pipefail

readonly INT_MAX=2147483647
# Jobs up to this many predicted buffer bytes run their sizes together.
readonly SMALL_JOB_BYTES=$((64 << 20))
# What an MPI process needs besides its buffers, for the memory prediction.
readonly RUNTIME_BYTES_PER_RANK=$((64 << 20))

usage() {
  cat <<'EOF'
Usage: scaleguard-probe --collective NAME|all --procs P --type-size S --output FILE
                        [--launcher local|slurm] [--factor F] [--start-count N]
                        [--max-count N] [--time-limit SEC] [--memory-limit BYTES]
                        [--inplace] [--refine bisect|linear] [--state DIR]
                        [--bench-preload LIB]... [--bench-env NAME=VALUE]...

Finds the largest count n_s at which the collective still works with P
processes and elements of S bytes (1, 2, 4 or 8), classifies the failure past
it (Class D, G or X), and writes or merges the routine's section and
[platform] in the bounds INI FILE (workaround = auto). Counts in the INI are
the layer's n: for Reduce_scatter(_block) the sum of the counts, P times the
bench's count.

  --collective NAME   an MPI collective (MPI_Scatter, MPI_Igatherv, ...) or
                      `all` for the 26 of them, one after another
  --launcher          local (default): this MPI's mpiexec; slurm: sbatch jobs
                      from the templates in share/scaleguard/jobs
  --factor F          refinement grid Delta = n'/F (default 16, a power of 2)
  --start-count N     first count of the doubling (default 1)
  --max-count N       largest count tried (default and at most INT_MAX)
  --time-limit SEC    limit of the first job and floor of all later ones
                      (default 60); later limits are 10x the last passing job
  --memory-limit B    no job predicted to need more than B bytes is run, and
                      jobs are held to it (default 80% of this node's memory)
  --inplace           use MPI_IN_PLACE where the routine allows it
  --refine            bisect (default) or linear (the paper's scan)
  --state DIR         job results, logs (default FILE.state); rerunning with
                      the same arguments reuses every finished job
  --bench-preload LIB added to LD_PRELOAD of every rank of every job
  --bench-env N=V     set in the environment of every rank of every job

Exit status: 0 done, 1 a routine could not be measured or a job could not be
started, 2 usage error.
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

collective='' procs='' type_size='' output='' launcher=local factor=16 start_count=1
max_count=$INT_MAX time_limit=60 memory_limit='' inplace=0 refine=bisect state=
preloads=() bench_envs=()

while (($#)); do
  option=$1
  case $option in
    --help | -h) usage; exit 0 ;;
    --inplace) inplace=1; shift; continue ;;
  esac
  (($# >= 2)) || die_usage "$option needs a value"
  value=$2
  shift 2
  case $option in
    --collective) collective=$value ;;
    --procs) procs=$value ;;
    --type-size) type_size=$value ;;
    --output) output=$value ;;
    --launcher) launcher=$value ;;
    --factor) factor=$value ;;
    --start-count) start_count=$value ;;
    --max-count) max_count=$value ;;
    --time-limit) time_limit=$value ;;
    --memory-limit) memory_limit=$value ;;
    --refine) refine=$value ;;
    --state) state=$value ;;
    --bench-preload) preloads+=("$value") ;;
    --bench-env)
      [[ $value == [A-Za-z_]*=* ]] || die_usage "--bench-env '$value' is not NAME=VALUE"
      bench_envs+=("$value") ;;
    *) die_usage "unknown option '$option'" ;;
  esac
done

is_count() { [[ $1 =~ ^[1-9][0-9]{0,18}$ ]]; }

[[ -n $collective ]] || die_usage "--collective is required"
[[ -n $output ]] || die_usage "--output is required"
is_count "$procs" || die_usage "--procs must be a positive integer"
[[ $type_size =~ ^(1|2|4|8)$ ]] || die_usage "--type-size must be 1, 2, 4 or 8"
[[ $launcher =~ ^(local|slurm)$ ]] || die_usage "--launcher must be local or slurm"
[[ $refine =~ ^(bisect|linear)$ ]] || die_usage "--refine must be bisect or linear"
if ! is_count "$factor" || ((factor < 2 || (factor & (factor - 1)) != 0)); then
  die_usage "--factor must be a power of 2, at least 2"
fi
if ! is_count "$start_count" || ((start_count > INT_MAX)); then
  die_usage "--start-count must be in 1..$INT_MAX"
fi
if ! is_count "$max_count" || ((max_count < start_count || max_count > INT_MAX)); then
  die_usage "--max-count must be in --start-count..$INT_MAX"
fi
is_count "$time_limit" || die_usage "--time-limit must be a positive number of seconds"
if [[ -z $memory_limit ]]; then
  memory_limit=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 * 0.8 }' /proc/meminfo)
fi
is_count "$memory_limit" || die_usage "--memory-limit must be a positive number of bytes"
for tool in "$bench" "$ini_tool" "$launchers/launch-$launcher"; do
  [[ -x $tool ]] || { echo "scaleguard-probe: $tool is missing" >&2; exit 1; }
done

declare -A irregular=()
while read -r name kind; do
  irregular[$name]=$([[ $kind == irregular ]] && echo 1 || echo 0)
done < <("$ini_tool" routines)
if [[ $collective == all ]]; then
  mapfile -t routines < <("$ini_tool" routines | cut -d' ' -f1)
else
  [[ -n ${irregular[$collective]:-} ]] || die_usage "unknown collective '$collective'"
  routines=("$collective")
fi

state=${state:-$output.state}
mkdir -p "$state/logs"
journal=$state/jobs.tsv
touch "$journal"
# A kill in the middle of an append leaves a line without its newline: end it,
# so the next append starts a line of its own (the cut line does not count).
[[ -z $(tail -c 1 "$journal") ]] || echo >>"$journal"

# ---- jobs and their journal --------------------------------------------------

# The journal: one line per finished job, tab-separated
#   KEY  status=..  exit=..  seconds=..  COUNT=OUTCOME,...  end
# A line without its final `end` was cut short by a kill and does not count.
declare -A journaled=()
while IFS=$'\t' read -r key status code seconds results end; do
  [[ $end == end ]] && journaled[$key]="$status $code $seconds $results"
done <"$journal"

declare -A outcome=() # "P:s:n" -> pass | crash | hang | mpi-error | oom | wrong-data
jobs_run=0 jobs_reused=0 job_seconds=0 library=

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

# run_job ROUTINE P S LIMIT SPARSE COUNT... : one job over ascending counts
# (SPARSE 1: the bench's --sparse data); fills `outcome` and sets job_wall
# (seconds). Sizes after the first failure are not run.
run_job() {
  local routine=$1 p=$2 s=$3 limit=$4 sparse=$5
  shift 5
  local counts=("$@")
  local list
  list=$(IFS=,; echo "${counts[*]}")
  local key="routine=$routine procs=$p type_size=$s inplace=$inplace"
  ((sparse)) && key+=" sparse=1"
  key+=" counts=$list launcher=$launcher preload=${preloads[*]} env=${bench_envs[*]}"
  local shown="${counts[0]}"
  ((${#counts[@]} == 1)) || shown+="..${counts[-1]} (${#counts[@]} sizes)"
  ((sparse)) && shown+=" (sparse data)"
  local record=${journaled[$key]:-}
  if [[ -n $record ]]; then
    jobs_reused=$((jobs_reused + 1))
    printf 'probe: %s P=%s s=%s n=%s: reused\n' "$routine" "$p" "$s" "$shown"
  else
    # A job of a killed driver may still be running: never share its log.
    local log="$state/logs/job-$(($(wc -l <"$journal") + 1))-$$.log"
    local launch=("$launchers/launch-$launcher" --procs "$p" --time-limit "$limit" --log "$log"
      --memory-limit "$memory_limit" --job-name "sg-$routine")
    local item
    for item in "${preloads[@]}"; do launch+=(--preload "$item"); done
    for item in "${bench_envs[@]}"; do launch+=(--env "$item"); done
    local bench_args=(-c "$routine" -n "$list" -s "$s")
    ((inplace)) && bench_args+=(--inplace)
    ((sparse)) && bench_args+=(--sparse)
    printf 'probe: %s P=%s s=%s n=%s, limit %s s: ' "$routine" "$p" "$s" "$shown" "$limit"
    local line status code seconds
    line=$("${launch[@]}" -- "$bench" "${bench_args[@]}") ||
      { echo "launcher failed (log: $log)"; exit 1; }
    read -r status code seconds <<<"$line"
    status=${status#status=} code=${code#exit=} seconds=${seconds#seconds=}
    [[ -n $status && -n $code && -n $seconds ]] ||
      { echo "bad launcher report '$line'"; exit 1; }
    # Result lines of the sizes that finished, then the ending for the next.
    declare -A result=()
    local count value
    while read -r count value; do
      result[$count]=$value
    done < <(sed -n 's/^scaleguard-bench: routine=[^ ]* count=\([0-9]*\) .*result=\([a-z-]*\).*/\1 \2/p' "$log")
    [[ -n $library ]] || library=$(sed -n 's/^# scaleguard-bench: mpi_library=//p' "$log" | head -1)
    local results=() ended=0
    for count in "${counts[@]}"; do
      if ((ended)); then
        value=not-run
      elif [[ -n ${result[$count]:-} ]]; then
        value=${result[$count]}
      else
        [[ $status != completed ]] ||
          { echo "the bench finished without a result for n=$count (log: $log)"; exit 1; }
        value=$(outcome_of_ending "$status" "$code")
      fi
      [[ $value == pass || $value == not-run ]] || ended=1
      results+=("$count=$value")
    done
    record="status=$status exit=$code seconds=$seconds $(IFS=,; echo "${results[*]}")"
    printf '%s\t%s\t%s\t%s\t%s\tend\n' "$key" "status=$status" "exit=$code" \
      "seconds=$seconds" "$(IFS=,; echo "${results[*]}")" >>"$journal"
    journaled[$key]=$record
    jobs_run=$((jobs_run + 1))
    echo "$status in $seconds s"
  fi
  local fields item
  read -ra fields <<<"$record"
  job_wall=${fields[2]#seconds=}
  job_seconds=$(awk -v a="$job_seconds" -v b="$job_wall" 'BEGIN { print a + b }')
  IFS=, read -ra fields <<<"${fields[3]}"
  for item in "${fields[@]}"; do
    [[ ${item#*=} == not-run ]] || outcome[$p:$s:${item%%=*}]=${item#*=}
  done
}

# The next job's limit: 10x the wall time of a passing job, at least the floor.
next_limit() {
  awk -v wall="$1" -v floor="$time_limit" \
    'BEGIN { t = int(10 * wall + 0.999); print (t > floor ? t : floor) }'
}

# In the refinement, sizes go down as well as up: keep the larger limit.
larger_limit() {
  local next
  next=$(next_limit "$2")
  echo $((next > $1 ? next : $1))
}

# buffer_bytes ROUTINE P S N [SPARSE]: the bench's buffer bytes for one job
# (all ranks), as it allocates them; with SPARSE 1 those it touches.
buffer_bytes() {
  local routine=$1 p=$2 s=$3 n=$4 sparse=${5:-0} line
  local args=(--predict-memory -c "$routine" -n "$n" -s "$s" --procs "$p")
  ((inplace)) && args+=(--inplace)
  ((sparse)) && args+=(--sparse)
  line=$("$bench" "${args[@]}")
  line=${line#*bytes_total=}
  echo "${line%% *}"
}

# predicted_bytes ROUTINE P S N [SPARSE]: the memory one job needs: the
# buffers the bench touches and the MPI runtime. A reduction needs more, with
# sparse data or not: measured here, Open MPI 4.1.4's Reduce_scatter peaks per
# rank at 2 (P = 2) to 2.25 (P = 4) times the dense buffers, because it makes
# every page of the send buffer resident and holds 1.5 times the vector of its
# own; predicted as 9/4 of the dense buffers. A job must not run out of memory
# and have that taken for the MPI's bug.
predicted_bytes() {
  local routine=$1 p=$2 s=$3 n=$4 sparse=${5:-0} bytes
  if [[ ${routine,,} == *reduce* ]]; then
    bytes=$(($(buffer_bytes "$routine" "$p" "$s" "$n") * 9 / 4))
  else
    bytes=$(buffer_bytes "$routine" "$p" "$s" "$n" "$sparse")
  fi
  echo $((bytes + p * RUNTIME_BYTES_PER_RANK))
}

fits() { (($(predicted_bytes "$@") <= memory_limit)); }

# The layer's n (protect/collective.c, sg_call_shape) is the bench's count
# times this: for Reduce_scatter(_block) the layer's n is the whole vector,
# the sum of the counts, P times the bench's -n (each rank's block).
layer_scale() {
  case $1 in
    MPI_Reduce_scatter | MPI_Ireduce_scatter | MPI_Reduce_scatter_block | \
      MPI_Ireduce_scatter_block) echo "$2" ;;
    *) echo 1 ;;
  esac
}

# ---- the search of one routine -----------------------------------------------

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

# verify_point ROUTINE P S COUNT LIMIT: one size of the verification, a job
# of its own: dense data where the job fits the memory limit, else sparse
# data (the bench's --sparse), else not run. Sets point_letter.
verify_point() {
  local routine=$1 p=$2 s=$3 n=$4 limit=$5 sparse=0
  point_letter=-
  ((s <= 8 && n >= 1 && n <= INT_MAX)) || return 0
  if ! fits "$routine" "$p" "$s" "$n"; then
    sparse=1
    if ! fits "$routine" "$p" "$s" "$n" 1; then
      echo "probe: $routine: P=$p s=$s n=$n needs more than the memory limit even with" \
        "sparse data: not run" >&2
      return 0
    fi
  fi
  run_job "$routine" "$p" "$s" "$limit" "$sparse" "$n"
  point_letter=$(letter "$p:$s:$n")
}

# verify ROUTINE P S N_S DELTA LIMIT: sets `verdict_runs` to the four runs of
# Table IX at (P, S), n_s/2, (n_s+D)/2, n_s, n_s+D, as letters. N_S and DELTA
# are in the layer's n (layer_scale), and so are these sizes. (n_s+D)/2 runs
# first: a failure there makes n_s/2 decide "half"; a pass makes n_s and then
# n_s+D decide "same". Each verdict needs one failing run and at most two
# passing ones; runs no verdict needs are not made.
verify() {
  local routine=$1 p=$2 s=$3 safe=$4 delta=$5 limit=$6 scale
  scale=$(layer_scale "$routine" "$p")
  local sizes=($((safe / 2)) $(((safe + delta) / 2)) "$safe" $((safe + delta)))
  local runs=(- - - -)
  run_point() {
    verify_point "$routine" "$p" "$s" $((sizes[$1] / scale)) "$limit"
    runs[$1]=$point_letter
  }
  run_point 1
  if [[ ${runs[1]} == f ]]; then
    run_point 0
  elif [[ ${runs[1]} == p ]]; then
    run_point 2
    [[ ${runs[2]} != p ]] || run_point 3
  fi
  verdict_runs=$(IFS=; echo "${runs[*]}")
}

search() {
  local routine=$1 p=$procs s=$type_size
  local cap=$max_count
  local jobs_at_start=$((jobs_run + jobs_reused)) seconds_at_start=$job_seconds

  # Step 1: doubling. Small sizes go together in one job.
  local sizes=() n=$start_count stop_reason="INT_MAX"
  ((cap < INT_MAX)) && stop_reason="--max-count $cap"
  while :; do
    if ! fits "$routine" "$p" "$s" "$n"; then
      stop_reason="the memory limit ($memory_limit bytes) at n=$n"
      break
    fi
    sizes+=("$n")
    ((n < cap)) || break
    n=$((2 * n > cap ? cap : 2 * n))
  done
  local limit=$time_limit passed=0 first_fail=0 i=0 group
  while ((i < ${#sizes[@]} && first_fail == 0)); do
    group=("${sizes[i]}")
    i=$((i + 1))
    while ((i < ${#sizes[@]})) &&
      (($(buffer_bytes "$routine" "$p" "$s" "${sizes[i]}") <= SMALL_JOB_BYTES)); do
      group+=("${sizes[i]}")
      i=$((i + 1))
    done
    run_job "$routine" "$p" "$s" "$limit" 0 "${group[@]}"
    for n in "${group[@]}"; do
      case ${outcome[$p:$s:$n]:-} in
        pass) passed=$n ;;
        '') ;;
        *) first_fail=$n; break ;;
      esac
    done
    ((first_fail)) || limit=$(next_limit "$job_wall")
  done
  if ((first_fail == 0)); then
    echo "probe: $routine: no failure up to n=$passed (stopped by $stop_reason); INI unchanged"
    return 0
  fi
  if ((passed == 0)); then
    echo "probe: $routine: fails already at n=$first_fail (${outcome[$p:$s:$first_fail]});" \
      "start lower with --start-count" >&2
    failed=1
    return 0
  fi

  # Step 2: refinement on the grid (grid_point).
  local delta=$((passed / factor))
  ((delta >= 1)) || delta=1
  local steps=$(((first_fail - passed + delta - 1) / delta))
  local low=0 high=$steps mid
  if [[ $refine == bisect ]]; then
    while ((high - low > 1)); do
      mid=$(((low + high) / 2))
      n=$(grid_point "$mid")
      run_job "$routine" "$p" "$s" "$limit" 0 "$n"
      if [[ ${outcome[$p:$s:$n]} == pass ]]; then
        low=$mid
        limit=$(larger_limit "$limit" "$job_wall")
      else
        high=$mid
      fi
    done
  else
    for ((mid = 1; mid < steps; mid++)); do
      n=$(grid_point "$mid")
      run_job "$routine" "$p" "$s" "$limit" 0 "$n"
      [[ ${outcome[$p:$s:$n]} == pass ]] || break
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
  local failure=${outcome[$p:$s:$fail]}
  # The INI is in the layer's n: safe_count, delta and the bound.
  local scale
  scale=$(layer_scale "$routine" "$p")
  if ((scale > 1)); then
    echo "probe: $routine: the layer's n is the sum of the counts, $scale x the bench's count:" \
      "safe_count $((scale * safe)), delta $((scale * (fail - safe)))"
  fi
  safe=$((scale * safe)) fail=$((scale * fail))
  local found=(type_size="$s" procs="$p" safe_count="$safe" delta=$((fail - safe))
    failure="$failure" workaround=auto)

  # Class D: the first failure is where the last int displacement, (P-1)*n,
  # passes INT_MAX.
  local classified
  if ((irregular[$routine] && (p - 1) * safe <= INT_MAX && (p - 1) * fail > INT_MAX)); then
    classified=(class=D)
  else
    # A doubled point moves up to twice the bytes: twice the time limit.
    verify "$routine" $((2 * p)) "$s" "$safe" $((fail - safe)) $((2 * limit))
    local at_double_procs=$verdict_runs
    verify "$routine" "$p" $((2 * s)) "$safe" $((fail - safe)) $((2 * limit))
    local at_double_size=$verdict_runs
    mapfile -t classified < <("$ini_tool" classify "$safe" "$s" "$p" \
      "$at_double_procs" "$at_double_size")
    echo "probe: $routine: verification (s, 2P) $at_double_procs, (2s, P) $at_double_size" \
      "(n_s/2, (n_s+delta)/2, n_s, n_s+delta: p passed, f failed, - not run)"
  fi
  "$ini_tool" replace "$output" "$routine" --entry "${classified[@]}" "${found[@]}"
  echo "probe: $routine: ${classified[*]} ${found[*]}"
  echo "probe: $routine: bound in $search_jobs jobs ($search_seconds s of jobs, $refine)," \
    "classified in $((jobs_run + jobs_reused - jobs_at_start - search_jobs)) more"
}

for routine in "${routines[@]}"; do
  search "$routine"
done

platform=(hostname="$(hostname -s)" measured="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  launcher="$launcher")
[[ -z $library ]] || platform=(mpi_library="${library:0:150}" "${platform[@]}")
"$ini_tool" replace "$output" platform --entry "${platform[@]}"
echo "probe: $jobs_run jobs run, $jobs_reused reused, ${job_seconds} s of jobs; wrote $output"
exit "$failed"
