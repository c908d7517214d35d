#!/usr/bin/env bash
# probe-wrong-world.sh STAGE_DIR CASE [PROBE_ARGUMENTS...]
#
# scaleguard-probe under a launch that does not make one world of P ranks
# (issue 47, item 8): the probe must stop with a launch error (exit 1), and
# its journal must hold no verdict of any job (once, P one-rank jobs each
# passed and the journal recorded every size as a pass at P); or under a
# launch that loses output.
# CASE:
#   singletons     a stand-in launch-local that runs P one-rank jobs (the
#                  bench started P times without mpiexec)
#   no-world       a stand-in launch-local whose job dies before MPI_Init,
#                  every time: the launch error comes after three such runs
#   no-world-once  the same but only the first time, then the stage's own
#                  launch-local (open-mpi/ompi#10734's start-up crash): the
#                  job runs again and the probe finishes (exit 0), its
#                  journal holding that job once
#   slurm          the stage's own launch-slurm with SCALEGUARD_SLURM_MPI=none
#                  (SLURM_CONF names the cluster)
#   lost-lines     the stage's own launch-local, but a job that ended on a
#                  rank's MPI error keeps only its first result line (srun
#                  --kill-on-bad-exit dropped rank 0's output in flight
#                  once): MPI_Allgather at P = 2 under the fault preload
#                  (PROBE_ARGUMENTS: an MPI error past n = 1000) must still
#                  find the bound 992, the sizes whose lines were lost not
#                  judged but run again
# The probe runs from a copy of the stage's bin/ whose libexec holds the
# stand-in (the probe finds its launchers beside itself).
set -euo pipefail

stage=$1 case=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/libexec/scaleguard"
cp "$stage/bin/scaleguard-probe" "$work/bin/"
for tool in scaleguard-bench scaleguard-ini scaleguard-cvars; do
  ln -s "$stage/bin/$tool" "$work/bin/$tool"
done
for launcher in "$stage"/libexec/scaleguard/*; do
  ln -s "$launcher" "$work/libexec/scaleguard/"
done
expected="launch error: asked for one job of 3 ranks, the launcher ran 3 of 1,1,1 rank\\(s\\)"
probe=(--collective MPI_Allreduce --procs 3 --type-size 1 --max-count 1024 --time-limit 30
  --no-w4)
: >"$work/runs" # the stand-in's launches, a line each
case $case in
  singletons | no-world | no-world-once | lost-lines)
    rm "$work/libexec/scaleguard/launch-local"
    cat >"$work/libexec/scaleguard/launch-local" <<'STAND_IN'
#!/usr/bin/env bash
# The launcher interface (launch-common.sh), but P one-rank jobs, or none.
set -euo pipefail
procs=1 log=/dev/null envs=() original=("$@")
while [[ $1 != -- ]]; do
  case $1 in
    --procs) procs=$2 ;;
    --log) log=$2 ;;
    --env) envs+=("$2") ;;
  esac
  shift 2
done
shift
echo "${1##*/}" >>"$STAND_IN_RUNS" # the program: the bench, or the fingerprint's cvars
if [[ $STAND_IN_CASE == lost-lines ]]; then
  report=$("$STAND_IN_REAL" "${original[@]}")
  if grep -q '^scaleguard-bench: rank [0-9]*: .* returned ' "$log"; then
    awk '!/scaleguard-bench: routine=/ || !seen++' "$log" >"$log.cut"
    mv "$log.cut" "$log"
  fi
  echo "$report"
  exit 0
fi
if [[ $STAND_IN_CASE == no-world-once && ($1 != */scaleguard-bench ||
  $(grep -c '^scaleguard-bench$' "$STAND_IN_RUNS") -gt 1) ]]; then
  exec "$STAND_IN_REAL" "${original[@]}"
fi
if [[ $STAND_IN_CASE == no-world* ]]; then
  echo "stand-in: the job died before MPI_Init" >"$log"
  echo "status=failed exit=1 seconds=0.010"
  exit 0
fi
: >"$log"
for ((rank = 0; rank < procs; rank++)); do
  env "${envs[@]}" "$@" >>"$log" 2>&1 &
done
status=0
wait || status=$?
echo "status=completed exit=$status seconds=0.100"
STAND_IN
    chmod +x "$work/libexec/scaleguard/launch-local"
    export STAND_IN_CASE=$case STAND_IN_RUNS=$work/runs
    export STAND_IN_REAL=$stage/libexec/scaleguard/launch-local
    if [[ $case == lost-lines ]]; then
      probe=(--collective MPI_Allgather --procs 2 --type-size 1 --start-count 64 --max-count 4096
        --time-limit 30 --no-w4)
    fi
    if [[ $case == no-world ]]; then
      expected="launch error: the job ended \\(status=failed\\) before its ranks reported"
      expected+=" their world"
    fi
    ;;
  slurm)
    export SCALEGUARD_SLURM_MPI=none
    probe+=(--launcher slurm --memory-limit 4294967296)
    # MPICH's ranks start as singletons; Open MPI's refuse to start without
    # a PMI plugin (no world line): either way a launch error.
    expected="launch error: (asked for one job of 3 ranks, the launcher ran 3 of 1,1,1 rank\\(s\\)|"
    expected+="the job ended \(status=[a-z]+\) before its ranks reported their world)"
    ;;
  *) echo "probe-wrong-world.sh: unknown case $case" >&2; exit 2 ;;
esac

status=0
"$work/bin/scaleguard-probe" "${probe[@]}" "$@" --output "$work/out.ini" --state "$work/state" \
  >"$work/out" 2>"$work/err" || status=$?
cat "$work/out" "$work/err"
result=0
fail() {
  echo "FAIL: $*"
  result=1
}
bench_runs=$(grep -c '^scaleguard-bench$' "$work/runs" || true)
if [[ $case == lost-lines ]]; then
  lost="probe: MPI_Allgather P=2 s=1 n=128: no result line, although a rank erred at n=1024 past"
  ((status == 0)) || fail "exit status $status, expected 0"
  grep -qF "$lost" "$work/out" || fail "standard output does not say: $lost"
  grep -q $'counts=64,128,256,512,1024,2048,4096 .*\t64=pass,128=not-run,' "$work/state/jobs.tsv" ||
    fail "the journal does not leave n=128 of the first job unjudged"
  grep -qx 'bound = 992' "$work/out.ini" || fail "the bound is not 992: $(grep '^bound' "$work/out.ini")"
  ((result)) || echo PASS
  exit "$result"
fi
if [[ $case == no-world-once ]]; then
  again="ended \\(status=failed\\) before its ranks reported their world \\(log: [^)]*-lost-1\\.log\\); again: "
  lost=$(compgen -G "$work/state/logs/job-*-lost-1.log" || true)
  journaled=$(grep -c . "$work/state/jobs.tsv" || true)
  ((status == 0)) || fail "exit status $status, expected 0 (the job ran again and passed)"
  grep -Eq "$again" "$work/out" || fail "standard output does not say that the job runs again: $again"
  if [[ -z $lost ]] || ! grep -q 'stand-in: the job died before MPI_Init' "$lost"; then
    fail "the first run's log is not kept as job-...-lost-1.log"
  fi
  ((bench_runs == journaled + 1)) ||
    fail "$bench_runs runs of the bench for $journaled journaled jobs, expected one more"
  grep -q 'no failure up to n=1024' "$work/out" || fail "the search did not pass every size up to 1024"
  ((result)) || echo PASS
  exit "$result"
fi
[[ $case != no-world ]] || ((bench_runs == 3)) ||
  fail "$bench_runs runs of the job that never started, expected 3"
((status == 1)) || fail "exit status $status, expected 1 (a launch error)"
grep -Eq "scaleguard-probe: $expected" "$work/err" || fail "standard error does not say: $expected"
grep -q "scaleguard-probe: nothing recorded of that job; the probe stops" "$work/err" ||
  fail "standard error does not say that nothing was recorded"
if [[ -s $work/state/jobs.tsv ]]; then
  fail "the journal recorded a verdict:"
  cat "$work/state/jobs.tsv"
fi
[[ ! -e $work/out.ini ]] || fail "the probe wrote $work/out.ini"
((result)) || echo PASS
exit "$result"
