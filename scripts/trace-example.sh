#!/usr/bin/env bash
# The trace's worked example (README, "Tracing the calls"): a small
# application (tests/trace/traced.c: a ring of sends and receives,
# non-blocking ones from any source, Sendrecv on a duplicate of
# MPI_COMM_WORLD, collectives, and a Gatherv that an INI has W1-B run) at
# P = 4 under libscaleguard.so with SCALEGUARD_TRACE, then scaleguard-trace
# (the summary, the DOT graph, the page), then screenshots of the page in
# headless Chromium: the whole page, and its timeline zoomed to a round
# around rank 0's first MPI_Gatherv; and the page of a synthetic trace of
# 1,024 ranks (tests/viewer/synthetic-trace.c, 20 rounds). Writes
# results/trace-example/ (the trace, each rank's file in its text form
# rank-N.txt, trace.md, trace.dot, trace.html), results/trace-example.png,
# results/trace-example-timeline.png and results/trace-page-1024.png.
set -euo pipefail
case ${1:-} in
  -h | --help)
    cat <<'USAGE'
usage: scripts/trace-example.sh [mpich|openmpi]
Installs what is missing, builds build/<mpi> (default mpich) if needed, runs a
small application traced at P = 4 and writes results/trace-example/,
results/trace-example.png, results/trace-example-timeline.png and (a synthetic
trace of 1,024 ranks) results/trace-page-1024.png.
USAGE
    exit 0 ;;
esac
cd "$(dirname "$0")/.."
mpi=${1:-mpich}
tree=build/$mpi
scripts/install-deps.sh
if [[ ! -x $tree/tests/trace/traced || ! -x $tree/viewer/scaleguard-trace ||
      ! -x $tree/tests/viewer/synthetic-trace ]]; then
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
screenshot() { # screenshot PNG HEIGHT ADDRESS
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size="1400,$2" \
    --screenshot="$PWD/$1" "$3" 2>/dev/null
}
screenshot results/trace-example.png 1500 "file://$PWD/$out/trace.html"
# a window of 30 ms around rank 0's first Gatherv (times since the first call)
window=$(cat "$out"/rank-*.txt | awk '$1 == "call" { t = substr($5, 3); if (first == "" || t < first) first = t }
  END { print first }')
window=$(awk -v f="$window" '$1 == "call" && $3 == "MPI_Gatherv" {
  printf "from=%.6f&to=%.6f\n", substr($5, 3) - f - 0.01, substr($5, 3) - f + 0.02; exit }' "$out/rank-0.txt")
screenshot results/trace-example-timeline.png 420 "file://$PWD/$out/trace.html#$window"
synthetic=$(mktemp -d)
trap 'rm -rf "$synthetic"' EXIT
"$tree/tests/viewer/synthetic-trace" "$synthetic/trace" 1024 20 >/dev/null
"$tree/viewer/scaleguard-trace" "$synthetic/trace" >/dev/null
screenshot results/trace-page-1024.png 1000 "file://$synthetic/trace/trace.html"
echo "trace-example: $out/trace.md, $out/trace.html, results/trace-example.png," \
  "results/trace-example-timeline.png, results/trace-page-1024.png"
