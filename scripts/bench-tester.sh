#!/usr/bin/env bash
# The tester's refinement benchmark: jobs and job seconds scaleguard-probe
# needs to find the bound with --refine bisect against the paper's linear
# scan (--refine linear), for the same simulated problems (the fault preload
# of tests/fault), in one run. Target: the bound in at most
# ceil(log2 n_s) + log2 f + 1 jobs. Writes a Markdown table (default
# results/tester-refine.md). Needs the build tree of scripts/build.sh
# (SCALEGUARD_BENCH_MPI: mpich, the default, or openmpi), or another:
# SCALEGUARD_BUILD=DIR for DIR/MPI, SCALEGUARD_BUILD_MPICH /
# SCALEGUARD_BUILD_OPENMPI for the tree itself.
# The problems of one refinement share one INI and one state folder;
# SCALEGUARD_BENCH_STATE=DIR keeps them as DIR/bisect.ini, DIR/bisect.state,
# DIR/linear.ini, DIR/linear.state (for scaleguard-report; DIR's old ones
# are replaced).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  echo "Usage: scripts/bench-tester.sh [REPORT.md]"
  echo
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
  exit 0
fi
report=${1:-results/tester-refine.md}
mpi=${SCALEGUARD_BENCH_MPI:-mpich}
case $mpi in
  mpich) tree=${SCALEGUARD_BUILD_MPICH:-${SCALEGUARD_BUILD:-build}/mpich} ;;
  openmpi) tree=${SCALEGUARD_BUILD_OPENMPI:-${SCALEGUARD_BUILD:-build}/openmpi} ;;
  *) echo "bench-tester: SCALEGUARD_BENCH_MPI must be mpich or openmpi" >&2; exit 2 ;;
esac
[[ -x $tree/stage/bin/scaleguard-probe && -f $tree/tests/fault/libsgfault.so ]] ||
  { echo "bench-tester: $tree lacks the probe or the fault preload: build it" >&2; exit 1; }
tree=$(readlink -f "$tree")
factor=16
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
keep=${SCALEGUARD_BENCH_STATE:-$work}
mkdir -p "$keep"
for refine in bisect linear; do rm -rf "${keep:?}/$refine.ini" "${keep:?}/$refine.state"; done

# name routine procs trigger bound(true n_s follows from it)
problems=(
  "Scatter-snP MPI_Scatter 2 snP 3000000"
  "Allgather-nP MPI_Allgather 2 nP 5000000"
  "Reduce-sn MPI_Reduce 2 sn 40000000"
  "Alltoall-n MPI_Alltoall 2 n 100000"
  "Bcast-n MPI_Bcast 2 n 1000"
)

rows=()
for problem in "${problems[@]}"; do
  read -r name routine procs trigger bound <<<"$problem"
  for refine in bisect linear; do
    out=$work/$name-$refine.out
    "$tree/stage/bin/scaleguard-probe" --collective "$routine" --procs "$procs" --type-size 1 \
      --output "$keep/$refine.ini" --state "$keep/$refine.state" --refine "$refine" \
      --factor "$factor" --time-limit 30 \
      --bench-preload "$tree/tests/fault/libsgfault.so" \
      --bench-env SCALEGUARD_FAULT_ROUTINES="$routine" \
      --bench-env SCALEGUARD_FAULT_TRIGGER="$trigger" \
      --bench-env SCALEGUARD_FAULT_BOUND="$bound" >"$out"
    safe=$(sed -n 's/.* safe_count=\([0-9]*\).*/\1/p' "$out")
    read -r jobs seconds < <(sed -n 's/.*: bound in \([0-9]*\) jobs (\([0-9.]*\) s.*/\1 \2/p' "$out")
    target=$(awk -v n="$safe" -v f="$factor" \
      'BEGIN { l = log(n) / log(2); c = int(l); if (c < l) c++; print c + log(f) / log(2) + 1 }')
    rows+=("| $name | $refine | $safe | $jobs | $seconds | $target | $( ((jobs <= target)) && echo yes || echo no) |")
    echo "${rows[-1]}"
  done
done

{
  echo "# Tester: bisection against the paper's linear scan"
  echo
  echo "$(date -u +%Y-%m-%d), $(hostname -s), $(nproc) cores, $mpi, P = 2, s = 1, f = $factor;"
  echo "problems simulated by the fault preload (tests/fault). \`scripts/bench-tester.sh\`."
  echo "Jobs and job seconds until the bound is known (doubling + refinement; the"
  echo "Table IX verification adds two jobs to either). Target: ceil(log2 n_s) + log2 f + 1."
  echo
  echo "| problem | refine | n_s | jobs | job seconds | target | met |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$report"
echo "wrote $report"
