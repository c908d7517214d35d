#!/usr/bin/env bash
# The trace's worked example (README, "Tracing the calls"): a small
# application (tests/trace/traced.c: a ring of sends and receives,
# non-blocking ones from any source, Sendrecv on a duplicate of
# MPI_COMM_WORLD, collectives, and a Gatherv that an INI has W1-B run) at
# P = 4 under libscaleguard.so with SCALEGUARD_TRACE, then scaleguard-trace
# (the summary, the DOT graph, the page), then a screenshot of the page in
# headless Chromium. Writes results/trace-example/ (the trace, each rank's
# file in its text form rank-N.txt, trace.md, trace.dot, trace.html) and
# results/trace-example.png.
set -euo pipefail
case ${1:-} in
  -h | --help)
    cat <<'USAGE'
usage: scripts/trace-example.sh [mpich|openmpi]
Installs what is missing, builds build/<mpi> (default mpich) if needed, runs a
small application traced at P = 4 and writes results/trace-example/ and
results/trace-example.png.
USAGE
    exit 0 ;;
esac
cd "$(dirname "$0")/.."
mpi=${1:-mpich}
tree=build/$mpi
scripts/install-deps.sh
if [[ ! -x $tree/tests/trace/traced || ! -x $tree/viewer/scaleguard-trace ]]; then
  cmake -S . -B "$tree" -DMPI_C_COMPILER="mpicc.$mpi" >/dev/null
  cmake --build "$tree" --parallel "$(nproc)" >/dev/null
fi
source scripts/bench-common.sh
out=results/trace-example
rm -rf "$out"
mkdir -p "$out"
ini=$out/gatherv-w1b.ini
printf '; every MPI_Gatherv over 2 elements in all runs by W1-B\n[MPI_Gatherv]\nclass = G\ntrigger = nP\nbound = 2\nworkaround = W1-B\n' >"$ini"
bench_launch "$tree" 4 "LD_PRELOAD=$PWD/$tree/protect/libscaleguard.so" \
  "SCALEGUARD_CONFIG=$PWD/$ini" "SCALEGUARD_TRACE=$PWD/$out"
"${launch[@]}" "$tree/tests/trace/traced" 3 >"$out/application.out"
for file in "$out"/rank-*.sgtrace; do
  "$tree/viewer/scaleguard-trace" --text "$file" >"${file%.sgtrace}.txt"
done
"$tree/viewer/scaleguard-trace" --json "$out"
chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1000 \
  --screenshot="$PWD/results/trace-example.png" "file://$PWD/$out/trace.html" 2>/dev/null
echo "trace-example: $out/trace.md, $out/trace.html, results/trace-example.png"
