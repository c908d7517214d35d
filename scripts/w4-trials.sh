#!/usr/bin/env bash
# W4's real cases (issue 21, point 3): for each problem of this platform's
# shipped INI that another algorithm could avoid (Class G and X; a Class D
# problem lies in the caller's int displacements, which no algorithm
# changes), the bench at the first size that failed, every byte checked,
# once with the MPI's own choice (the failure, again) and once with each
# algorithm the routine's control variable offers (scaleguard-cvars
# --algorithms; one that runs the I-form, MPICH's nb, also with each of the
# I-form's; MPICH with MPIR_CVAR_COLLECTIVE_FALLBACK=0, so that an
# algorithm that does not apply fails instead of running the default).
# Writes results/w4-algorithms-MPI.md: per problem, each algorithm's outcome
# and seconds per call. A problem's jobs take minutes (gigabytes at P = 3 or
# 4): run it alone on the machine.
set -euo pipefail
usage() {
  cat <<'USAGE'
usage: scripts/w4-trials.sh [--only MPI_ROUTINE] [--limit SECONDS] [--ini FILE]
                            [--out FILE] mpich|openmpi
Needs build/MPI (scripts/build.sh). One job per (problem, algorithm) through
the local launcher, each within SECONDS (default 300) and 22 GB. The problems
of FILE (default configs/debian12-MPI-*.ini); the table into --out (default
results/w4-algorithms-MPI.md).
USAGE
}
only='' limit=300 ini='' out=''
while (($#)); do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --only) only=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --ini) ini=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) break ;;
  esac
done
if (($# != 1)) || [[ $1 != mpich && $1 != openmpi ]]; then
  usage >&2
  exit 2
fi
mpi=$1
[[ -z $ini ]] || ini=$(readlink -f "$ini")
[[ -z $out ]] || out=$(readlink -m "$out")
cd "$(dirname "$0")/.."
stage=build/$mpi/stage
bin=$stage/bin
[[ -n $ini ]] || ini=$(ls configs/debian12-"$mpi"-*.ini)
[[ -n $out ]] || out=results/w4-algorithms-$mpi.md
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
[[ -x $bin/scaleguard-bench && -x $bin/scaleguard-cvars ]] ||
  { echo "w4-trials: no $bin/scaleguard-bench or scaleguard-cvars (scripts/build.sh)" >&2; exit 1; }

# one job: outcome and seconds of the bench's line, or the launcher's ending
run() { # run PROCS COUNT INPLACE ROUTINE [--cvar ...]...
  local procs=$1 count=$2 inplace=$3 routine=$4 log=$logs/job.log
  shift 4
  local args=(-c "$routine" -n "$count" -s 1)
  ((inplace)) && args+=(--inplace)
  local status
  status=$("$stage/libexec/scaleguard/launch-local" --procs "$procs" --time-limit "$limit" \
    --memory-limit 22000000000 --log "$log" -- "$bin/scaleguard-bench" "${args[@]}" "$@")
  local line said
  line=$(grep -ao 'scaleguard-bench: routine=.*' "$log" | tail -n 1 || true)
  # what the MPI said of an error, for the table (the first such line)
  said=$(grep -aEm 1 'Assertion failed|Fatal error|MPI_ERR|[Ss]egmentation|signal [0-9]+|not usable' "$log" |
    tr '|' '/' | cut -c1-100 || true)
  if [[ -n $line ]]; then
    local result=${line#*result=} seconds=${line#*seconds=}
    echo "${result%% *} ${seconds%% *} ${said:-}"
  else
    status=${status#status=}
    echo "${status%% *} - ${said:-}"
  fi
}

{
  echo "# W4 trials: $(head -n 1 "$ini" | sed 's/^; ScaleGuard bounds for //')"
  echo
  echo "Measured $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname -s) by \`scripts/w4-trials.sh $mpi\`:"
  echo "each problem of \`$ini\` that an algorithm could avoid (Class G and X), at the"
  echo "first size that failed, with the MPI's own choice and with each algorithm of the"
  echo "routine's control variable (\`scaleguard-bench --cvar\`), every byte checked."
  echo "Seconds: one call (the slowest rank's). \`signal\`: a rank crashed; \`failed\`: the job"
  echo "ended with an error and no result (MPICH: an internal assertion aborts); \`timeout\`:"
  echo "no end within $limit s (a hang, or slower than that); \`mpi-error\`: the call returned"
  echo "an error (MPICH, with \`MPIR_CVAR_COLLECTIVE_FALLBACK=0\`: also an algorithm that does"
  echo "not apply). Said: the first line of the job's log that names the error."
} >"$out"

declare -A seen=()
while IFS=$'\t' read -r section class _ _ type_size procs safe delta _ _ inplace _; do
  routine=${section%%#*}
  class=${class#class=} procs=${procs#procs=} safe=${safe#safe_count=} delta=${delta#delta=}
  inplace=${inplace#inplace=}
  [[ $class == G || $class == X ]] || continue
  [[ -z $only || $routine == "$only" ]] || continue
  [[ ${type_size#type_size=} == 1 ]] || continue
  n=$((safe + delta))
  count=$n
  case $routine in # the layer's n is the vector reduced: P blocks of the bench's count
    MPI_Reduce_scatter | MPI_Ireduce_scatter | MPI_Reduce_scatter_block | MPI_Ireduce_scatter_block)
      count=$((n / procs)) ;;
  esac
  key="$routine $procs $count $inplace"
  [[ -z ${seen[$key]:-} ]] || continue
  seen[$key]=1
  form=
  [[ $inplace == yes ]] && form=", in place"
  mapfile -t algorithms < <("$bin/scaleguard-cvars" --algorithms "$routine")
  cvar=${algorithms[0]#cvar=}
  echo "w4-trials: $routine P=$procs count=$count$form: ${#algorithms[@]} choices" >&2
  {
    echo
    echo "## $routine, P = $procs, count $count$form ($section: $class, n = $n)"
    echo
    echo "| algorithm | outcome | seconds | said |"
    echo "|---|---|---:|---|"
  } >>"$out"
  in_place=0
  [[ $inplace == yes ]] && in_place=1
  read -r result seconds said < <(run "$procs" "$count" "$in_place" "$routine")
  echo "| the MPI's own choice | $result | $seconds | $said |" >>"$out"
  [[ $cvar != none ]] || { echo "| (no algorithm variable) | | | |" >>"$out"; continue; }
  fallback=()
  [[ $cvar == MPIR_CVAR_* ]] && fallback=(--cvar MPIR_CVAR_COLLECTIVE_FALLBACK=0)
  # each value; one that runs the I-form (MPICH's nb) also with each of its
  settings=() names=()
  for item in "${algorithms[@]:1}"; do
    value=${item%% *} name=${item#* }
    settings+=("$cvar=$value") names+=("$name")
    [[ $name == *" runs MPI_I"* ]] || continue
    mapfile -t inner < <("$bin/scaleguard-cvars" --algorithms "${name##* runs }")
    for each in "${inner[@]:1}"; do
      settings+=("$cvar=$value ${inner[0]#cvar=}=${each%% *}") names+=("${name%% *} + ${each#* }")
    done
  done
  for k in "${!settings[@]}"; do
    cvars=()
    for pair in ${settings[$k]}; do cvars+=(--cvar "$pair"); done
    read -r result seconds said < <(run "$procs" "$count" "$in_place" "$routine" \
      "${fallback[@]}" "${cvars[@]}")
    echo "| ${settings[$k]} (${names[$k]}) | $result | $seconds | $said |" >>"$out"
    echo "w4-trials:   ${settings[$k]} (${names[$k]}): $result $seconds" >&2
  done
done < <("$bin/scaleguard-ini" dump "$ini" | grep "^MPI_")
echo "w4-trials: wrote $out" >&2
