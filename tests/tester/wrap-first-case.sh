#!/usr/bin/env bash
# wrap-first-case.sh STAGE_BIN JOURNAL
#
# The refinement of a failure where int displacements wrap (Class D) tries
# the grid points either side of the wrap first. JOURNAL holds the jobs of
# MPICH 4.0.2's MPI_Allgatherv at P = 3 (results/probe-mpich): the doubling
# (n = 536870912 passed, 1073741824 crashed) and the one point below the wrap
# at (P-1) n = INT_MAX on the grid 2^29/16, 1040187392 (passed), and none of
# the points a plain bisection runs first (805306368, 939524096, 1006632960).
# The probe, started on that journal with an mpiexec that does not exist,
# must find Class D from the journal alone: no job run, 8 reused, the safe
# count 1040187392 and delta 33554432.
set -euo pipefail

bin=$1 journal=$2
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
replay "$bin" wrap "$journal" --collective MPI_Allgatherv --procs 3 --forms plain --type-size 1 \
  --memory-limit 64G

status=0
grep -q '^probe: 0 jobs run, 8 reused' wrap.out ||
  { echo "FAIL: the search ran jobs beyond the wrap's grid points (want 0 run, 8 reused)"; status=1; }
entry=$("$bin/scaleguard-ini" dump wrap.ini | grep -P '^MPI_Allgatherv\t' || true)
for want in class=D safe_count=1040187392 delta=33554432 failure=crash procs=3; do
  [[ $'\t'$entry$'\t' == *$'\t'$want$'\t'* ]] || { echo "FAIL: the entry lacks $want: $entry"; status=1; }
done
exit "$status"
