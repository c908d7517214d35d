#!/usr/bin/env bash
# probe-wrong-world.sh STAGE_DIR CASE [PROBE_ARGUMENTS...]
#
# scaleguard-probe under a launch that does not make one world of P ranks
# (issue 47, item 8): the probe must stop with a launch error (exit 1), and
# its journal must hold no verdict of any job (once, P one-rank jobs each
# passed and the journal recorded every size as a pass at P).
# CASE:
#   singletons  a stand-in launch-local that runs P one-rank jobs (the bench
#               started P times without mpiexec)
#   no-world    a stand-in launch-local whose job dies before MPI_Init
#   slurm       the stage's own launch-slurm with SCALEGUARD_SLURM_MPI=none
#               (SLURM_CONF names the cluster)
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
case $case in
  singletons | no-world)
    rm "$work/libexec/scaleguard/launch-local"
    cat >"$work/libexec/scaleguard/launch-local" <<'STAND_IN'
#!/usr/bin/env bash
# The launcher interface (launch-common.sh), but P one-rank jobs, or none.
set -euo pipefail
procs=1 log=/dev/null envs=()
while [[ $1 != -- ]]; do
  case $1 in
    --procs) procs=$2 ;;
    --log) log=$2 ;;
    --env) envs+=("$2") ;;
  esac
  shift 2
done
shift
if [[ $STAND_IN_CASE == no-world ]]; then
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
    export STAND_IN_CASE=$case
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
if ((status != 1)); then
  echo "FAIL: exit status $status, expected 1 (a launch error)"
  result=1
fi
if ! grep -Eq "scaleguard-probe: $expected" "$work/err"; then
  echo "FAIL: standard error does not say: $expected"
  result=1
fi
if ! grep -q "scaleguard-probe: nothing recorded of that job; the probe stops" "$work/err"; then
  echo "FAIL: standard error does not say that nothing was recorded"
  result=1
fi
if [[ -s $work/state/jobs.tsv ]]; then
  echo "FAIL: the journal recorded a verdict:"
  cat "$work/state/jobs.tsv"
  result=1
fi
if [[ -e $work/out.ini ]]; then
  echo "FAIL: the probe wrote $work/out.ini"
  result=1
fi
((result)) || echo PASS
exit "$result"
