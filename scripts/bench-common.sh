#!/usr/bin/env bash
# What the protection benchmarks share (sourced by scripts/bench-protect.sh
# and scripts/bench-memory.sh; `bench_name` set by the caller, for messages).

: "${bench_name:=bench}"

# bench_tree MPI FILE...: the build tree of one MPI as an absolute path
# (build/MPI, or SCALEGUARD_BUILD=DIR for DIR/MPI, or SCALEGUARD_BUILD_MPICH /
# SCALEGUARD_BUILD_OPENMPI), which must hold each FILE (relative to it).
bench_tree() {
  local mpi=$1 tree file
  shift
  case $mpi in
    mpich) tree=${SCALEGUARD_BUILD_MPICH:-${SCALEGUARD_BUILD:-build}/mpich} ;;
    openmpi) tree=${SCALEGUARD_BUILD_OPENMPI:-${SCALEGUARD_BUILD:-build}/openmpi} ;;
    *) echo "$bench_name: unknown MPI '$mpi'" >&2; exit 2 ;;
  esac
  for file in "$@"; do
    [[ -e $tree/$file ]] || { echo "$bench_name: $tree/$file is missing: build $tree" >&2; exit 1; }
  done
  readlink -f "$tree"
}

# bench_launch TREE PROCS NAME=VALUE...: sets the array `launch` to that
# tree's mpiexec over PROCS ranks with each environment setting.
bench_launch() {
  local tree=$1 procs=$2 setting
  shift 2
  local SCALEGUARD_MPIEXEC SCALEGUARD_MPIEXEC_FLAGS SCALEGUARD_MPIEXEC_ENV_FLAG
  # shellcheck source=/dev/null
  source "$tree/stage/share/scaleguard/mpi.env"
  launch=("$SCALEGUARD_MPIEXEC")
  read -ra flags <<<"$SCALEGUARD_MPIEXEC_FLAGS"
  launch+=("${flags[@]}" -n "$procs")
  for setting in "$@"; do
    if [[ $SCALEGUARD_MPIEXEC_ENV_FLAG == -x ]]; then
      launch+=(-x "$setting")
    else
      launch+=("$SCALEGUARD_MPIEXEC_ENV_FLAG" "${setting%%=*}" "${setting#*=}")
    fi
  done
}

# bench_default_report NAME PROCS: where a benchmark's report goes unless the
# caller names it: results/NAME.md at P = 2 (one rank per core, the reference
# case), results/NAME-pP.md at any other P.
bench_default_report() {
  if (($2 == 2)); then echo "results/$1.md"; else echo "results/$1-p$2.md"; fi
}

# bench_start NAME ARGS...: what each benchmark does first. --help prints the
# caller's header comment; then it sets procs (SCALEGUARD_BENCH_PROCS,
# default 2), report (the first of ARGS, else bench_default_report NAME) and
# table_file (its TSV), mpis (SCALEGUARD_BENCH_MPIS, default both) and work,
# a scratch folder removed at exit, as are the report's and table's .new files
# of a run that did not finish (a finished run has moved them into place).
# shellcheck disable=SC2034 # the caller reads them
bench_start() {
  local name=$1
  shift
  if [[ ${1:-} == --help || ${1:-} == -h ]]; then
    echo "Usage: scripts/$bench_name.sh [REPORT.md]"
    echo
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
    exit 0
  fi
  procs=${SCALEGUARD_BENCH_PROCS:-2}
  report=${1:-$(bench_default_report "$name" "$procs")}
  table_file=${report%.md}.tsv
  read -ra mpis <<<"${SCALEGUARD_BENCH_MPIS:-mpich openmpi}"
  work=$(mktemp -d)
  trap 'rm -rf "$work" "$report.new" "$table_file.new"' EXIT
}
