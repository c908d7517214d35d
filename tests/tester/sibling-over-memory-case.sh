#!/usr/bin/env bash
# sibling-over-memory-case.sh STAGE_BIN JOURNAL
#
# A sibling form's search starts at the count its sibling passed, and that
# count may be predicted over the memory limit for it: JOURNAL holds MPICH
# 4.0.2's MPI_Scan jobs at P = 4 (results/probe-mpich), which passed n = 2^30
# with an 18.3 GB peak; MPI_Scan_c's prediction there adds 1/8 (20.6 GB) to
# a limit of 20220792013 bytes. Nothing of its own is measured, nothing is
# wrong: the search ends without an entry, and the probe does not fail (it
# once did, so probe-platform left the INI unwritten). Replayed with an
# mpiexec that does not exist: the probe must ask for no job.
set -euo pipefail

bin=$1 journal=$2
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
replay "$bin" sibling-over-memory "$journal" --collective MPI_Scan,MPI_Scan_c --procs 4 \
  --forms plain --type-size 1 --max-count 1099511627776 --memory-limit 20220792013 --no-w4 || true

status=0
out=sibling-over-memory.out
grep -q '^probe: MPI_Scan_c P=4 plain: no failure of its own measured (n=1073741824, where MPI_Scan passed, is predicted over the memory limit)' "$out" ||
  { echo "FAIL: MPI_Scan_c's search did not end as not measured at n=2^30"; status=1; }
! grep -q 'nothing measured' "$out" || { echo "FAIL: the search counts as nothing measured"; status=1; }
grep -q '^probe: MPI_Scan_c: no failure at any P or form; no entry' "$out" ||
  { echo "FAIL: MPI_Scan_c's routine does not end without an entry"; status=1; }
! grep -q 'limit [0-9]* s: ' "$out" || { echo "FAIL: the probe asked for a job"; status=1; }
exit "$status"
