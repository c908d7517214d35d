#!/usr/bin/env bash
# library-from-fingerprint-case.sh STAGE_BIN JOURNAL
#
# A probe whose every job comes from a committed journal (no job log to name
# the MPI library, as in a clean clone) still writes [platform] mpi_library:
# the fingerprint's one-rank job reads it. JOURNAL: MPICH 4.0.2's jobs of
# MPI_Scatterv and MPI_Scatterv_c at P = 4 (overflow-first.jobs.tsv), every
# job the search needs, run without libscaleguard-yield.so (--busy-wait); the
# probe runs with this tree's MPI.
set -euo pipefail

bin=$1 journal=$2
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
journal_state library "$journal"
status=0
"$bin/scaleguard-probe" --collective MPI_Scatterv,MPI_Scatterv_c --procs 4 --forms plain \
  --type-size 1 --max-count 1099511627776 --memory-limit 20220792013 --busy-wait --output library.ini \
  --state library.state >library.out 2>&1 || { echo "FAIL: the probe failed"; status=1; }
grep -q '^probe: 0 jobs run, ' library.out || { echo "FAIL: a job ran (not all from the journal)"; status=1; }
[[ ! -e library.state/logs ]] || ! grep -rq 'scaleguard-bench: mpi_library=' library.state/logs ||
  { echo "FAIL: a job log names the library (the case needs none)"; status=1; }
expected=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*/MPICH Version:\t/p')
grep -qF "mpi_library = $expected" library.ini ||
  { echo "FAIL: no 'mpi_library = $expected' in library.ini:"; grep '^mpi_library' library.ini; status=1; }
exit "$status"
