#!/usr/bin/env bash
# wrap-under-memory-case.sh STAGE_BIN JOURNAL
#
# A doubling stopped by the memory limit before the count at which the
# routine's int displacements wrap runs that count too. JOURNAL holds the
# jobs of Open MPI 4.1.4's MPI_Alltoallw in place at P = 4
# (results/probe-openmpi): the doubling passed up to n = 536870912 and
# 1073741824 does not fit 20220792013 bytes (80% of that machine), but the
# byte displacements wrap at 3 n > INT_MAX, n = 715827883, which fits. The
# probe, started on that journal with an mpiexec that does not exist, must
# reuse the doubling's 6 jobs and then ask for that count (the launch fails
# there and the probe stops: what matters is the job it asked for).
set -euo pipefail

bin=$1 journal=$2
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
replay "$bin" wrap-mem "$journal" --collective MPI_Alltoallw --procs 4 --forms inplace --type-size 1 \
  --memory-limit 20220792013 || true

status=0
reused=$(grep -c '^probe: MPI_Alltoallw in place P=4 s=1 n=.*: reused$' wrap-mem.out || true)
((reused == 6)) || { echo "FAIL: $reused of the doubling's 6 jobs reused"; status=1; }
grep -q "^probe: MPI_Alltoallw in place P=4 s=1 n=715827883, limit [0-9]* s: " \
  wrap-mem.out || { echo "FAIL: no job at n=715827883, where the displacements wrap"; status=1; }
exit "$status"
