#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls exactly this):
#   both MPI trees, built with warnings as errors (SCALEGUARD_WERROR): every
#   test but the differential soak (label soak), the real-scale runs too long
#   for CI (label long) and the shipped INI's other entries (label shipped),
#   the large-memory ones one at a time;
#   Release trees of both, built only (the optimiser warns otherwise);
#   a sanitizer tree (ASan + UBSan) for the unit tests;
#   a clang tree running each fuzz target for SCALEGUARD_FUZZ_SECONDS (30 here,
#   CI's time; the tree's own default is 60).
set -euo pipefail
usage() {
  cat <<'EOF'
usage: scripts/run-tests.sh
       scripts/run-tests.sh --help
The whole test suite, as CI runs it: installs what is missing, builds
build/mpich and build/openmpi (warnings are errors here) and runs all their
tests but those labelled soak, long and shipped (README.md says how to run
them), the large-memory ones one at a time, builds both in Release
(build/release-MPI), runs the unit tests under ASan + UBSan (build/sanitize)
and each fuzz target for $SCALEGUARD_FUZZ_SECONDS (30) seconds (build/fuzz).
EOF
}
case $# in
  0) ;;
  *) case $1 in -h | --help) usage; exit 0 ;; *) usage >&2; exit 2 ;; esac ;;
esac
cd "$(dirname "$0")/.."
# Each part's heading says when it starts, in seconds since the suite began
# (CI's budget is 45 minutes: where the time goes).
part() { echo "=== [${SECONDS} s] $*"; }

scripts/install-deps.sh
part "build/mpich and build/openmpi"
scripts/build.sh -DSCALEGUARD_WERROR=ON

jobs=$(nproc)
for mpi in mpich openmpi; do
  part "$mpi: tests"
  ctest --test-dir "build/$mpi" --output-on-failure --parallel "$jobs" -LE 'large|long|shipped|soak'
  part "$mpi: large-memory tests, one at a time"
  ctest --test-dir "build/$mpi" --output-on-failure -L large --no-tests=ignore
done

part "Release builds (the optimiser's warnings differ), warnings as errors"
for mpi in mpich openmpi; do
  cmake -S . -B "build/release-$mpi" -DMPI_C_COMPILER="mpicc.$mpi" -DCMAKE_BUILD_TYPE=Release \
    -DSCALEGUARD_WERROR=ON
  cmake --build "build/release-$mpi" --parallel "$jobs"
done

part "unit tests under AddressSanitizer and UBSan"
cmake -S . -B build/sanitize -DMPI_C_COMPILER=mpicc.mpich -DSCALEGUARD_WERROR=ON \
  -DSCALEGUARD_SANITIZE=ON
cmake --build build/sanitize --parallel "$jobs"
ctest --test-dir build/sanitize --output-on-failure --parallel "$jobs" -L unit

part "fuzz targets"
CC=clang cmake -S . -B build/fuzz -DMPI_C_COMPILER=mpicc.mpich -DSCALEGUARD_WERROR=ON \
  -DSCALEGUARD_FUZZ=ON \
  -DSCALEGUARD_FUZZ_SECONDS="${SCALEGUARD_FUZZ_SECONDS:-30}"
cmake --build build/fuzz --parallel "$jobs"
ctest --test-dir build/fuzz --output-on-failure --parallel "$jobs" -L fuzz
part "done"
