#!/usr/bin/env bash
# The main job: install what is missing, build both MPI trees and install
# each under PREFIX/<mpi> (default: ./install).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${SCALEGUARD_PREFIX:-$PWD/install}

scripts/install-deps.sh
scripts/build.sh
for mpi in mpich openmpi; do
  cmake --install "build/$mpi" --prefix "$prefix/$mpi"
done
echo
echo "ScaleGuard installed: $prefix/mpich and $prefix/openmpi"
