#!/bin/bash
# find-package-mismatch.sh CMAKE BUILD_DIR WORK THIS_MPICC OTHER_MPICC
# Installs BUILD_DIR (this tree, built for THIS_MPICC's MPI) into WORK/prefix
# and configures a project that finds ScaleGuard there and its MPI with
# OTHER_MPICC, the other MPI's compiler, finding MPI before ScaleGuard and
# after it: both must fail at configure time with the message that says
# so. The same project with THIS_MPICC configures (the control). Exits 77
# (ctest: skipped) where OTHER_MPICC is not installed.
set -u
cmake=$1 build=$2 work=$3 this_mpicc=$4 other_mpicc=$5
if ! command -v "$other_mpicc" >/dev/null; then
    echo "find-package-mismatch.sh: skipped: no $other_mpicc (the other MPI is not installed)" >&2
    exit 77
fi
rm -rf "$work"
mkdir -p "$work"
if ! "$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1; then
    cat "$work/install.log" >&2
    echo "find-package-mismatch.sh: cmake --install failed" >&2
    exit 1
fi
fail=0
message="ScaleGuard in .* was built for (MPICH|Open MPI) [0-9.]+, but this project's MPI"
message+=" \(MPI::MPI_C\) is (MPICH|Open MPI) [0-9.]+: libscaleguard.so works with the MPI it"
message+=" was built for only"
# project ORDER MPICC: configures a project that finds ScaleGuard and MPI in
# ORDER with MPICC, its output in $log; returns cmake's exit status
project() {
    local dir
    dir=$work/$1-$(basename "$2")
    mkdir -p "$dir"
    {
        echo "cmake_minimum_required(VERSION 3.25)"
        echo "project(Consumer LANGUAGES C)"
        if [ "$1" = mpi-first ]; then
            echo "find_package(MPI REQUIRED COMPONENTS C)"
            echo "find_package(ScaleGuard REQUIRED)"
        else
            echo "find_package(ScaleGuard REQUIRED)"
            echo "find_package(MPI REQUIRED COMPONENTS C)"
        fi
    } >"$dir/CMakeLists.txt"
    log=$dir/configure.log
    "$cmake" -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
        -DMPI_C_COMPILER="$2" >"$log" 2>&1
}
for order in mpi-first scaleguard-first; do
    if project "$order" "$other_mpicc"; then
        echo "find-package-mismatch.sh: $order with $other_mpicc configured" >&2
        fail=1
    elif ! tr -s ' \n' '  ' <"$log" | grep -Eq "$message"; then
        cat "$log" >&2
        echo "find-package-mismatch.sh: $order with $other_mpicc failed without saying why" >&2
        fail=1
    fi
    if ! project "$order" "$this_mpicc"; then
        cat "$log" >&2
        echo "find-package-mismatch.sh: $order with $this_mpicc failed" >&2
        fail=1
    fi
done
[ "$fail" -eq 0 ] && echo "find-package-mismatch.sh: the other MPI refused, this one taken"
exit "$fail"
