#!/usr/bin/env bash
# The tester as a campaign (issue 48, item 3): a small campaign of
# scaleguard-probe (--launcher slurm --max-jobs K) under the fault preload of
# tests/fault (every routine, plain form, P = 2, counts up to 64; MPI_Ibcast
# and MPI_Alltoallv fail past n = 40, so theirs are whole searches) on a
# cluster of jobs/local-slurm.sh of 1, 2 and 4 nodes, each started afresh and
# stopped after. Per node count: the campaign's wall time, the sum of its
# jobs' seconds (the journal's seconds=, plus a retried job's first limit),
# and the driver's own time between one job's end and the next one's start in
# the same search slot (the journal's driver=: median and largest; goal
# <= 1 s). Writes Markdown (default results/campaign.md).
# Needs root and the build tree of scripts/build.sh (SCALEGUARD_BENCH_MPI:
# mpich, the default, or openmpi), or another: SCALEGUARD_BUILD=DIR for
# DIR/MPI, SCALEGUARD_BUILD_MPICH / SCALEGUARD_BUILD_OPENMPI for the tree
# itself. SCALEGUARD_BENCH_JOBS_PER_NODE: K per node (default 1: one node
# runs one job at a time, the baseline);
# SCALEGUARD_BENCH_PORT: the clusters' port (default 49000, slurmd the next;
# their prefix /run/scaleguard-bench-campaign).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  echo "Usage: scripts/bench-campaign.sh [REPORT.md]"
  echo
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
  exit 0
fi
report=${1:-results/campaign.md}
mpi=${SCALEGUARD_BENCH_MPI:-mpich}
case $mpi in
  mpich) tree=${SCALEGUARD_BUILD_MPICH:-${SCALEGUARD_BUILD:-build}/mpich} ;;
  openmpi) tree=${SCALEGUARD_BUILD_OPENMPI:-${SCALEGUARD_BUILD:-build}/openmpi} ;;
  *) echo "bench-campaign: SCALEGUARD_BENCH_MPI must be mpich or openmpi" >&2; exit 2 ;;
esac
[[ -x $tree/stage/bin/scaleguard-probe && -f $tree/tests/fault/libsgfault.so ]] ||
  { echo "bench-campaign: $tree lacks the probe or the fault preload: build it" >&2; exit 1; }
((EUID == 0)) || { echo "bench-campaign: needs root (the cluster)" >&2; exit 1; }
tree=$(readlink -f "$tree")
per_node=${SCALEGUARD_BENCH_JOBS_PER_NODE:-1}
[[ $per_node =~ ^[1-9]$ ]] || { echo "bench-campaign: SCALEGUARD_BENCH_JOBS_PER_NODE: 1..9" >&2; exit 2; }
export SCALEGUARD_SLURM_PORT=${SCALEGUARD_BENCH_PORT:-49000}
local_slurm=$tree/stage/share/scaleguard/jobs/local-slurm.sh
prefix=/run/scaleguard-bench-campaign
work=$(mktemp -d)
trap '"$local_slurm" stop --prefix "$prefix" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

campaign=(--collective all --forms plain --procs 2 --type-size 1 --max-count 64 --time-limit 30
  --no-w4 --launcher slurm --memory-limit 2G
  --bench-preload "$tree/tests/fault/libsgfault.so"
  --bench-env "SCALEGUARD_FAULT_ROUTINES=MPI_Ibcast,MPI_Alltoallv"
  --bench-env SCALEGUARD_FAULT_TRIGGER=n --bench-env SCALEGUARD_FAULT_BOUND=40
  --bench-env SCALEGUARD_FAULT_KIND=mpi-error)

# journal_figures STATE: a line of the jobs and their seconds, then one of
# the driver times' median, largest and count
journal_figures() {
  awk -F '\t' -v driver="$work/driver" '$NF == "end" {
      jobs++
      for (i = 2; i < NF; i++) {
        if ($i ~ /^seconds=/) { sub(/^seconds=/, "", $i); seconds += $i }
        else if ($i ~ /^retried=/) { sub(/^retried=/, "", $i); seconds += $i }
        else if ($i ~ /^driver=/) { sub(/^driver=/, "", $i); print $i > driver }
      }
    }
    END { printf "%d %.1f\n", jobs, seconds; close(driver) }' "$1/jobs.tsv"
  touch "$work/driver"
  sort -g "$work/driver" | awk '{ v[NR] = $1 }
    END {
      if (NR == 0) { print "- - 0"; exit }
      median = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.3f %.3f %d\n", median, v[NR], NR
    }'
}

rows=()
for nodes in 1 2 4; do
  jobs=$((per_node * nodes))
  "$local_slurm" stop --prefix "$prefix" >/dev/null 2>&1 || true
  eval "$("$local_slurm" start --nodes "$nodes" --prefix "$prefix")"
  rm -rf "$work/$nodes.ini" "$work/$nodes.state"
  started=$EPOCHREALTIME
  "$tree/stage/bin/scaleguard-probe" "${campaign[@]}" --max-jobs "$jobs" \
    --output "$work/$nodes.ini" --state "$work/$nodes.state" >"$work/$nodes.out" 2>&1 ||
    {
      cat "$work/$nodes.out"
      # shellcheck disable=SC2012 # the newest log; the probe names them
      tail -n 20 "$(ls -t "$work/$nodes.state"/logs/*.log | head -n 1)"
      echo "bench-campaign: the campaign on $nodes node(s) failed" >&2
      exit 1
    }
  wall=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  rm -f "$work/driver"
  mapfile -t figures < <(journal_figures "$work/$nodes.state")
  read -r count seconds <<<"${figures[0]}"
  read -r median largest gaps <<<"${figures[1]}"
  ratio=$(awk -v s="$seconds" -v w="$wall" 'BEGIN { printf "%.2f", s / w }')
  met=no
  [[ $largest == - ]] || ! awk -v m="$largest" 'BEGIN { exit !(m <= 1) }' || met=yes
  rows+=("| $nodes | $jobs | $count | $wall | $seconds | $ratio | $median | $largest ($gaps) | $met |")
  echo "${rows[-1]}"
  grep -c '^\[MPI_' "$work/$nodes.ini" | grep -qx 2 ||
    { echo "bench-campaign: the campaign on $nodes node(s) did not find the 2 entries" >&2; exit 1; }
done

{
  echo "# The tester as a campaign: wall time against job time"
  echo
  echo "$(date -u +%Y-%m-%d), $(hostname -s), $(nproc) cores, $mpi. \`scripts/bench-campaign.sh\`:"
  echo
  echo "    scaleguard-probe ${campaign[*]//$tree/BUILD} --max-jobs K"
  echo
  echo "on a cluster of \`jobs/local-slurm.sh start --nodes N\` (K = $per_node per node): every"
  echo "routine's search at P = 2, two of them failing (the fault preload: MPI_Ibcast and"
  echo "MPI_Alltoallv past n = 40), each job of a campaign (K > 1) asking Slurm for its predicted"
  echo "memory (K = 1 is one job at a time, the probe without a campaign). *Wall*: the"
  echo "probe's command, start to end (with its one-rank job reading the MPI's control"
  echo "variables); *job seconds*: the sum of its jobs' own times (the journal's \`seconds=\`,"
  echo "measured inside each job around its srun step); *driver*: its own time between one"
  echo "job's end and the next one's start in the same search slot (the journal's \`driver=\`:"
  echo "reading the result, deciding, starting the next; after the launcher saw the job end,"
  echo "before it submits the next), median and largest (how many such gaps); goal <= 1 s."
  echo "The rest of wall x K minus job seconds is Slurm's and the launcher's: submitting,"
  echo "scheduling, starting the batch script and srun, and polling for the end (every 0.2 s"
  echo "for 3 s, then every second). The nodes share this machine's cores: K jobs of 2 ranks"
  echo "at once run on its $(nproc) cores."
  echo
  echo "| nodes | K | jobs | wall (s) | job seconds | job s / wall | driver median (s) | driver max (s) (gaps) | max <= 1 s |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$report"
echo "wrote $report"
