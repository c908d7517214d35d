#!/usr/bin/env bash
# overflow-first-case.sh STAGE_BIN JOURNAL
#
# A search from its sibling form's count whose doubling would stop at the
# memory limit below the first count past INT_MAX runs that count first, and
# a pass there ends it. JOURNAL holds MPICH 4.0.2's jobs of MPI_Scatterv and
# MPI_Scatterv_c at P = 4 (results/probe-mpich): Scatterv is Class D (safe
# 704643072), so Scatterv_c doubles from there; 2818572288 does not fit
# 20220792013 bytes (80% of that machine), 2^31 does and passed. The journal
# holds Scatterv_c's job at 2^31 and not its doubling's (704643072,
# 1409286144): the probe, started on it with an mpiexec that does not exist,
# must take 2^31 from the journal and end the search there, writing no
# failure (a job it asked for beyond the journal fails to launch and the
# probe stops).
set -euo pipefail

bin=$1 journal=$2
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
status=0
replay "$bin" overflow-first "$journal" --collective MPI_Scatterv,MPI_Scatterv_c --procs 4 \
  --forms plain --type-size 1 --max-count 1099511627776 --memory-limit 20220792013 ||
  { echo "FAIL: the probe failed (it asked for a job the journal lacks)"; status=1; }

expect() {
  grep -qF "$1" overflow-first.out || { echo "FAIL: no line '$1'"; status=1; }
}
expect 'probe: MPI_Scatterv_c P=4 plain: its doubling from n=704643072 would stop at the memory limit at n=2818572288; n=2147483648 first, past which an int overflows'
expect 'probe: MPI_Scatterv_c P=4 s=1 n=2147483648: reused'
expect 'probe: MPI_Scatterv_c P=4 plain: no failure up to n=2147483648 (stopped by the memory limit (20220792013 bytes) at n=2818572288); 1 jobs (0 run'
! grep -q '^probe: MPI_Scatterv_c P=4 s=1 n=\(704643072\|1409286144\)' overflow-first.out ||
  { echo "FAIL: the doubling's jobs below 2^31 ran"; status=1; }
grep -q '^\[MPI_Scatterv_c' overflow-first.ini && { echo "FAIL: an entry for MPI_Scatterv_c"; status=1; }
grep -q '^\[MPI_Scatterv\]' overflow-first.ini || { echo "FAIL: no MPI_Scatterv entry"; status=1; }
exit "$status"
