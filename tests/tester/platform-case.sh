#!/usr/bin/env bash
# platform-case.sh SOURCE_DIR STAGE_BIN MPI NAME ROUTINE N_TRUE [KEY=VALUE...]
#
# One of this platform's real scaling problems, probed exactly as
# scripts/probe-platform.sh regenerates configs/debian12-*.ini: that script
# with --routine ROUTINE, into NAME.ini and NAME.state in the current folder
# (shared by the MPI's routines: each run merges its section), then the
# section checked by check-section.sh (N_TRUE, KEY=VALUE, true_bound=B:K).
set -euo pipefail

source_dir=$1 bin=$2 mpi=$3 name=$4 routine=$5 n_true=$6
shift 6
"$source_dir/scripts/probe-platform.sh" --bin "$bin" --output "$name.ini" --state "$name.state" \
  --routine "$routine" "$mpi" | tee "$name-$routine.out"
"$(dirname "$0")/check-section.sh" "$bin" "$name.ini" "$routine" "$n_true" "$@"
