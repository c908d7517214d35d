#!/usr/bin/env bash
# timing-under-load.sh STAGE_BIN FAULT_LIB
#
# A timing verdict on a busy machine (issue 47, item 10): MPI_Scatter past
# 1500 bytes per rank keeps each rank's CPU busy for 0.2 s more per call (the
# fault preload's kind busy), while a busy loop pinned to every CPU of the
# machine takes half of it. The cliff's time is then the machine's, not the
# MPI's: the probe must say the machine is busy, and write no `failure =
# slow` (once, a build beside the probe made it write a cliff that did not
# exist).
set -euo pipefail

bin=$1 fault=$2
work=$(mktemp -d)
hogs=()
trap 'kill "${hogs[@]}" 2>/dev/null; rm -rf "$work"' EXIT
for ((cpu = 0; cpu < $(nproc); cpu++)); do
  taskset -c "$cpu" sh -c 'while :; do :; done' &
  hogs+=($!)
done

status=0
"$bin/scaleguard-probe" --collective MPI_Scatter --procs 2 --type-size 1 --max-count 65536 \
  --time-limit 30 --no-w4 --output "$work/out.ini" --state "$work/state" \
  --bench-preload "$fault" --bench-env SCALEGUARD_FAULT_ROUTINES=MPI_Scatter \
  --bench-env SCALEGUARD_FAULT_TRIGGER=snP --bench-env SCALEGUARD_FAULT_BOUND=3000 \
  --bench-env SCALEGUARD_FAULT_KIND=busy >"$work/out" 2>&1 || status=$?
grep -v '^sgfault: ' "$work/out" || true
result=0
if ((status != 0)); then
  echo "FAIL: the probe's exit status $status, expected 0"
  result=1
fi
busy='probe: MPI_Scatter P=2 n=[0-9]+: 10x slower per byte than n=[0-9]+, but its ranks waited'
busy+=' 0\.[0-9]+ of the time for CPUs other work held: the machine is busy, the time untrusted'
if ! grep -Eq "$busy" "$work/out"; then
  echo "FAIL: the probe did not say that the machine was busy"
  result=1
fi
if grep -q 'failure *= *slow' "$work/out.ini" 2>/dev/null ||
  grep -q 'failure=slow' "$work/out"; then
  echo "FAIL: a cliff measured on a busy machine was written as failure = slow"
  result=1
fi
((result)) || echo PASS
exit "$result"
