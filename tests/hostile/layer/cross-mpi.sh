#!/bin/bash
# cross-mpi.sh LIBRARY BUILT_FOR RUNS LAUNCH...
# Runs LAUNCH... (a program of this tree's MPI, RUNS) with LIBRARY, the
# libscaleguard.so built for the other MPI (BUILT_FOR), preloaded by
# LAUNCH's environment; passes when the job ends with 0, its results are
# right and the layer said once that it is off. Exits 77 (ctest: skipped)
# where LIBRARY does not exist (the other MPI's tree is not built).
set -u
library=$1 built_for=$2 runs=$3
shift 3
if [ ! -f "$library" ]; then
    echo "cross-mpi.sh: skipped: no $library (build the other MPI's tree:" \
        "scripts/build.sh, or set SCALEGUARD_OTHER_MPI_LIBRARY)" >&2
    exit 77
fi
output=$(mktemp) || exit 1
trap 'rm -f "$output"' EXIT
"$@" >"$output" 2>&1
status=$?
cat "$output" >&2
fail=0
if [ "$status" -ne 0 ]; then
    echo "cross-mpi.sh: exit status $status, expected 0" >&2
    fail=1
fi
if ! grep -Eq "^cross_mpi: 0 wrong results on [0-9]+ ranks$" "$output"; then
    echo "cross-mpi.sh: the program did not report right results" >&2
    fail=1
fi
message="^scaleguard: libscaleguard.so was built for $built_for [0-9.]+, this program runs"
message+=" $runs [0-9.]+: ScaleGuard is off for this job \(every call goes to the MPI as made\);"
message+=" use .*libscaleguard.so"
said=$(grep -Ec "$message" "$output")
if [ "$said" -ne 1 ]; then
    echo "cross-mpi.sh: the message that the layer is off came $said times, expected once:" >&2
    echo "  $message" >&2
    fail=1
fi
if grep -Ev "$message" "$output" | grep -q "^scaleguard:"; then
    echo "cross-mpi.sh: the layer said more than that it is off" >&2
    fail=1
fi
exit "$fail"
