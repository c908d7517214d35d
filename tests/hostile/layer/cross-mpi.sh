#!/bin/bash
# cross-mpi.sh LIBRARY BUILT_FOR RUNS LAUNCH...
# Runs LAUNCH... (a program of this tree's MPI, RUNS) with LIBRARY, the
# libscaleguard.so built for the other MPI (BUILT_FOR), preloaded by
# LAUNCH's environment; passes when the job ends with 0, its results are
# right and the layer said once that it is off, and nothing else
# (count-lines.sh). Exits 77 (ctest: skipped) where LIBRARY does not exist
# (the other MPI's tree is not built).
set -u
library=$1 built_for=$2 runs=$3
shift 3
if [ ! -f "$library" ]; then
    echo "cross-mpi.sh: skipped: no $library (build the other MPI's tree:" \
        "scripts/build.sh, or set SCALEGUARD_OTHER_MPI_LIBRARY)" >&2
    exit 77
fi
message="^scaleguard: libscaleguard.so was built for $built_for [0-9.]+, this program runs"
message+=" $runs [0-9.]+: ScaleGuard is off for this job \(every call goes to the MPI as made\);"
message+=" use .*libscaleguard.so"
exec bash "$(dirname "$0")/count-lines.sh" --lines 1 "^cross_mpi: 0 wrong results on [0-9]+ ranks$" \
    --lines 1 "$message" --lines 1 "^scaleguard:" -- "$@"
