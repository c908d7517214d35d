#!/usr/bin/env bash
# Configure and build one tree per MPI: build/mpich and build/openmpi.
# Extra arguments go to cmake at configure time.
set -euo pipefail
case ${1:-} in
  -h | --help)
    cat <<'EOF'
usage: scripts/build.sh [CMAKE_ARGUMENTS...]
       scripts/build.sh --help
Configures and builds build/mpich (mpicc.mpich) and build/openmpi
(mpicc.openmpi); CMAKE_ARGUMENTS (e.g. -DSCALEGUARD_SANITIZE=ON) go to cmake's
configure step of both.
EOF
    exit 0 ;;
esac
cd "$(dirname "$0")/.."

for mpi in mpich openmpi; do
  cmake -S . -B "build/$mpi" -DMPI_C_COMPILER="mpicc.$mpi" "$@"
  cmake --build "build/$mpi" --parallel "$(nproc)"
done
