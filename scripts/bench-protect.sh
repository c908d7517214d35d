#!/usr/bin/env bash
# The protection overhead benchmark: libscaleguard.so against the bare MPI
# call, side by side in one run (tests/benchmark/sg_overhead.c), P = 4, both
# MPIs. Writes a Markdown report (default results/protect-overhead.md).
#   no trigger: 8 B, 1 KiB, 64 KiB, 1 MiB per rank and peer, without a
#     configuration (Class D checks only) and with a bound configured for
#     every routine that the call stays under;
#   W1-B and W2 forced: 64 MiB with an n bound of 16 Mi elements.
# Needs the build trees of scripts/build.sh. SCALEGUARD_BENCH_PROCS sets P:
# with more ranks than cores, busy-polling MPIs time out on scheduler ticks.
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:-results/protect-overhead.md}
procs=${SCALEGUARD_BENCH_PROCS:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

routines=(Bcast Ibcast Scatter Iscatter Scatterv Iscatterv Gather Igather Gatherv Igatherv
  Allgather Iallgather Allgatherv Iallgatherv Alltoall Ialltoall Alltoallv Ialltoallv
  Reduce Ireduce Allreduce Iallreduce Reduce_scatter Ireduce_scatter
  Reduce_scatter_block Ireduce_scatter_block)

# config NAME TRIGGER BOUND WORKAROUND: one G entry for every routine
config() {
  local file=$work/$1.ini routine
  for routine in "${routines[@]}"; do
    printf '[MPI_%s]\nclass = G\ntrigger = %s\nbound = %s\nworkaround = %s\n\n' \
      "$routine" "$2" "$3" "$4"
  done >"$file"
  echo "$file"
}
untriggered=$(config untriggered snP 1000000000000 auto)
w1b=$(config w1b n 16777216 W1-B)
w2=$(config w2 n 16777216 W2)

# run MPI BYTES SECONDS CONFIG|-: prints "routine bytes bare protected ratio" lines
run() {
  local mpi=$1 bytes=$2 seconds=$3 ini=$4
  local SCALEGUARD_MPIEXEC SCALEGUARD_MPIEXEC_FLAGS SCALEGUARD_MPIEXEC_ENV_FLAG
  # shellcheck source=/dev/null
  source "build/$mpi/stage/share/scaleguard/mpi.env"
  local launch=("$SCALEGUARD_MPIEXEC")
  read -ra flags <<<"$SCALEGUARD_MPIEXEC_FLAGS"
  launch+=("${flags[@]}" -n "$procs")
  local settings=("LD_PRELOAD=$PWD/build/$mpi/protect/libscaleguard.so" "SCALEGUARD_LOG=quiet")
  [[ $ini == - ]] || settings+=("SCALEGUARD_CONFIG=$ini")
  local setting
  for setting in "${settings[@]}"; do
    if [[ $SCALEGUARD_MPIEXEC_ENV_FLAG == -x ]]; then
      launch+=(-x "$setting")
    else
      launch+=("$SCALEGUARD_MPIEXEC_ENV_FLAG" "${setting%%=*}" "${setting#*=}")
    fi
  done
  env -u SCALEGUARD_CONFIG "${launch[@]}" "build/$mpi/tests/benchmark/sg_overhead" \
    --bytes "$bytes" --seconds "$seconds" --reps 3
}

# table TITLE MPI CONFIG|- SECONDS BYTES...: one column of ratios per size
table() {
  local title=$1 mpi=$2 ini=$3 seconds=$4 bytes
  shift 4
  local sizes=("$@")
  for bytes in "${sizes[@]}"; do
    run "$mpi" "$bytes" "$seconds" "$ini" >"$work/$mpi-$bytes.txt"
  done
  printf '\n#### %s — %s\n\n| routine |' "$mpi" "$title"
  for bytes in "${sizes[@]}"; do printf ' %s B (bare µs) | ratio |' "$bytes"; done
  printf '\n|---|'
  for bytes in "${sizes[@]}"; do printf -- '---:|---:|'; done
  printf '\n'
  local routine
  for routine in "${routines[@]}"; do
    printf '| MPI_%s |' "$routine"
    for bytes in "${sizes[@]}"; do
      awk -v r="MPI_$routine" '$1 == r { printf " %.1f | %.3f |", $3, $5 }' "$work/$mpi-$bytes.txt"
    done
    printf '\n'
  done
}

{
  echo "# Protection overhead: libscaleguard.so / bare MPI call"
  echo
  echo "Measured $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ($(nproc) cores," \
    "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)), P = $procs" \
    "ranks (oversubscribed when P > cores), by \`scripts/bench-protect.sh\`."
  echo "Each ratio is the protected call's best block time over the bare call's (PMPI),"
  echo "measured alternately in one run; sizes are bytes per rank and peer (MPI_BYTE)."
  for mpi in mpich openmpi; do
    echo
    echo "### $mpi"
    table "no trigger, no configuration (Class D checks only)" "$mpi" - 0.3 8 1024 65536 1048576
    table "no trigger, a bound configured for every routine" "$mpi" "$untriggered" 0.3 \
      8 1024 65536 1048576
    table "W1-B forced (n bound 16 Mi)" "$mpi" "$w1b" 2 67108864
    table "W2 forced (n bound 16 Mi; reductions fall back to W1-B)" "$mpi" "$w2" 2 67108864
  done
} >"$report.new"
mv "$report.new" "$report"
echo "bench-protect: wrote $report"
