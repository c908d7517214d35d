#!/usr/bin/env bash
# refusal-case.sh STAGE_DIR LACKING_BENCH
#
# A routine the benchmark has no case for (a row of the routine table added
# without one) is refused loudly, never run: LACKING_BENCH is the kernel
# built without the Reduce_scatter family's case (SG_BENCH_LACKS), as such a
# row would leave it. Each one-line case below runs with it:
#   refused NAME ARGS...  the bench exits 2 (usage) before MPI starts, naming
#                         the routine on stderr, and prints no result line;
#   runs NAME PROCS ARGS... the same bench passes a family it has (the
#                         refusal is the routine's, not the build's), through
#                         the local launcher;
#   probe NAME ROUTINE    scaleguard-probe, given that bench, exits 2 naming
#                         the routine and runs no job (its journal empty):
#                         the probe's error, not a failure of the MPI.
# Exit 0 when all hold. Logs and state are NAME.* here.
set -euo pipefail

stage=$1 lacking=$2
status=0
fail() { echo "FAIL: $*"; status=1; }

refused() {
  local name=$1 routine
  shift
  routine=$(sed -n 's/.*-c \([^ ]*\).*/\1/p' <<<"$*")
  local code=0
  "$lacking" "$@" >"$name.out" 2>"$name.err" || code=$?
  echo "$name: exit $code: $(head -1 "$name.err")"
  ((code == 2)) || fail "$name: exit $code, not 2 (usage)"
  grep -q "^scaleguard-bench: $routine: the benchmark has no case for it" "$name.err" ||
    fail "$name: stderr does not name $routine as having no case"
  ! grep -q 'result=' "$name.out" || fail "$name: printed a result line"
}

runs() {
  local name=$1 procs=$2 line
  shift 2
  line=$("$stage/libexec/scaleguard/launch-local" --procs "$procs" --time-limit 120 \
    --log "$PWD/$name.log" -- "$lacking" "$@")
  echo "$name: $line"
  [[ $line == "status=completed exit=0 "* ]] || fail "$name: the job did not pass"
  grep -q ' result=pass ' "$name.log" || fail "$name: no result=pass line"
}

probe() {
  local name=$1 routine=$2 tree=$PWD/$1.tree code=0
  rm -rf "$tree" "$name.ini" "$name.state"
  mkdir -p "$tree/bin"
  cp "$stage/bin/scaleguard-probe" "$tree/bin/"
  ln -s "$stage/bin/scaleguard-ini" "$tree/bin/scaleguard-ini"
  ln -s "$lacking" "$tree/bin/scaleguard-bench"
  ln -s "$stage/libexec" "$tree/libexec"
  "$tree/bin/scaleguard-probe" --collective "$routine" --procs 2 --type-size 1 \
    --output "$name.ini" --state "$name.state" >"$name.out" 2>"$name.err" || code=$?
  echo "$name: exit $code: $(head -1 "$name.err")"
  ((code == 2)) || fail "$name: the probe exited $code, not 2 (its usage error)"
  local named="^scaleguard-probe: the benchmark cannot probe $routine: .*$routine: the benchmark"
  grep -q "$named has no case" "$name.err" ||
    fail "$name: the probe does not name $routine as the benchmark's gap"
  [[ ! -s $name.state/jobs.tsv ]] || fail "$name: a job was recorded"
  [[ ! -e $name.ini ]] || fail "$name: an INI was written"
}

refused blocking -c MPI_Reduce_scatter_block -n 1000
refused nonblocking -c MPI_Ireduce_scatter -n 10,20 -s 4
refused predict --predict-memory -c MPI_Reduce_scatter -n 1000 --procs 2
runs allreduce 2 -c MPI_Allreduce -n 1000 -s 4
probe probe_ireduce_scatter MPI_Ireduce_scatter

((status == 0)) && echo "PASS: a family without a case is refused by the bench and by the probe"
exit "$status"
