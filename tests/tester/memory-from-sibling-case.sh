#!/usr/bin/env bash
# memory-from-sibling-case.sh STAGE_BIN JOURNAL
#
# A sibling form's search predicts its memory from its sibling's measured
# peaks. JOURNAL holds the jobs of MPICH 4.0.2's MPI_Reduce_scatter at P = 4
# (results/probe-mpich): it passed up to n = 536870912 (16 GB measured),
# where 1073741824 does not fit 20220792013 bytes (80% of that machine).
# MPI_Reduce_scatter_c's search starts there; the static prediction (9/4 of
# a reduction's dense buffers) put that size over the limit and nothing was
# measured. The probe, started on that journal with an mpiexec that does
# not exist, must reuse the 7 jobs and then ask for MPI_Reduce_scatter_c at
# n = 536870912 (the launch fails there and the probe stops: what matters is
# the job it asked for), with a limit of 160 s: 5 x the sibling's 15.9 s
# there, twice as the job needs more than half the memory limit.
set -euo pipefail

bin=$1 journal=$2
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
replay "$bin" memory-sibling "$journal" --collective MPI_Reduce_scatter,MPI_Reduce_scatter_c \
  --procs 4 --forms plain --type-size 1 --max-count 1099511627776 --memory-limit 20220792013 || true

status=0
reused=$(grep -c '^probe: MPI_Reduce_scatter P=4 s=1 n=.*: reused$' memory-sibling.out || true)
((reused == 7)) || { echo "FAIL: $reused of MPI_Reduce_scatter's 7 jobs reused"; status=1; }
grep -q '^probe: MPI_Reduce_scatter_c P=4 s=1 n=536870912, limit [0-9]* s: ' memory-sibling.out ||
  { echo "FAIL: no MPI_Reduce_scatter_c job at n=536870912, which its sibling ran"; status=1; }
grep -q '^probe: MPI_Reduce_scatter_c P=4 s=1 n=536870912, limit 160 s: ' memory-sibling.out ||
  { echo "FAIL: that job's limit is not 160 s (2 x 80 s: over half the memory limit)"; status=1; }
exit "$status"
