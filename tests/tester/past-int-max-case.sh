#!/usr/bin/env bash
# past-int-max-case.sh STAGE_BIN JOURNAL
#
# A large-count routine's doubling stopped by the memory limit runs the first
# count past INT_MAX if it fits. JOURNAL holds the jobs of MPICH 4.0.2's
# MPI_Ireduce_scatter, MPI_Reduce_scatter_init and MPI_Reduce_scatter_init_c
# at P = 2 (results/probe-mpich): the first two passed up to INT_MAX, the
# last passed at INT_MAX and returned wrong data at 2^31 per block. Its
# doubling from its sibling's INT_MAX asks for 2^32 - 2, which does not fit
# 20220792013 bytes (80% of that machine): without that job its search wrote
# "no failure up to n=2147483647" and no count past INT_MAX ran. The probe,
# started on that journal with an mpiexec that does not exist, must take the
# job at 2^31 from the journal and the failure with it (the safe count INT_MAX,
# the layer's n 2 x that); the classification's jobs then fail to launch and
# the probe stops.
set -euo pipefail

bin=$1 journal=$2
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
replay "$bin" past-int-max "$journal" \
  --collective MPI_Ireduce_scatter,MPI_Reduce_scatter_init,MPI_Reduce_scatter_init_c --procs 2 \
  --forms plain --type-size 1 --max-count 1099511627776 --memory-limit 20220792013 || true

status=0
expect() {
  grep -qF "$1" past-int-max.out || { echo "FAIL: no line '$1'"; status=1; }
}
expect 'probe: MPI_Reduce_scatter_init_c P=2 plain: n=2147483648, the first count past INT_MAX, fits the memory limit'
expect 'probe: MPI_Reduce_scatter_init_c P=2 s=1 n=2147483648: reused'
expect 'probe: MPI_Reduce_scatter_init_c: the layer'"'"'s n is the sum of the counts, 2 x the bench'"'"'s count: safe_count 4294967294'
exit "$status"
