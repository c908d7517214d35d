#!/usr/bin/env bash
# Configure and build one tree per MPI: build/mpich and build/openmpi.
# Extra arguments go to cmake at configure time.
set -euo pipefail
cd "$(dirname "$0")/.."

for mpi in mpich openmpi; do
  cmake -S . -B "build/$mpi" -DMPI_C_COMPILER="mpicc.$mpi" "$@"
  cmake --build "build/$mpi" --parallel "$(nproc)"
done
