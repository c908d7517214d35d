#!/usr/bin/env bash
# The workarounds' extra memory: peak resident set size of one call under a
# forced workaround against the bare call, per rank, both MPIs. For each of
# the 26 routines, scaleguard-bench runs one call of BYTES of MPI_BYTE per
# rank and peer (default 64 MiB) twice, in separate jobs: bare, and under
# libscaleguard.so with a bound of a quarter of the call's n for that
# routine and `workaround = NAME` (default W1-B: four rounds, so a chunk is a
# quarter of a block). Each job's peak_rss_max (the largest rank's peak) is
# read from its line; the extra is their difference, next to one chunk
# (BYTES / 4), the target: at most one chunk per rank.
# Writes a Markdown report (default results/protect-memory.md at P = 2,
# results/protect-memory-pP.md at another P) and a TSV next to it. P from SCALEGUARD_BENCH_PROCS (default 2), MPIs from
# SCALEGUARD_BENCH_MPIS (default "mpich openmpi"), the workaround from
# SCALEGUARD_BENCH_WORKAROUND, the size from SCALEGUARD_BENCH_BYTES. Build
# trees as for scripts/bench-protect.sh (build/mpich, build/openmpi, or
# SCALEGUARD_BUILD=DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

bench_name=bench-memory
# shellcheck source=scripts/bench-common.sh
source scripts/bench-common.sh
bench_start protect-memory "$@"
bytes=${SCALEGUARD_BENCH_BYTES:-67108864}
workaround=${SCALEGUARD_BENCH_WORKAROUND:-W1-B}

tree_of() { bench_tree "$1" stage/bin/scaleguard-bench protect/libscaleguard.so; }
for mpi in "${mpis[@]}"; do tree_of "$mpi" >/dev/null; done

# The 26, from the tree's own table.
mapfile -t routines < <("$(tree_of "${mpis[0]}")/stage/bin/scaleguard-ini" routines |
  awk '{print $1}')

# peak MPI ROUTINE INI|-: the largest rank's peak RSS of one call, in bytes.
peak() {
  local mpi=$1 routine=$2 ini=$3 tree
  tree=$(tree_of "$mpi")
  local settings=()
  [[ $ini == - ]] ||
    settings=("LD_PRELOAD=$tree/protect/libscaleguard.so" "SCALEGUARD_CONFIG=$ini"
      SCALEGUARD_LOG=info)
  local launch
  bench_launch "$tree" "$procs" "${settings[@]}"
  local count=$bytes
  [[ $routine != *educe_scatter* ]] || count=$((bytes / procs)) # n is the whole vector
  env -u SCALEGUARD_CONFIG "${launch[@]}" "$tree/stage/bin/scaleguard-bench" -c "$routine" \
    -n "$count" 2>"$work/stderr" | sed -n 's/.*result=pass .*peak_rss_max=\([0-9]*\).*/\1/p'
}

printf 'mpi\tprocs\troutine\tworkaround\tbytes\tbare_peak\tprotected_peak\textra\tchunk\n' \
  >"$table_file.new"
chunk=$((bytes / 4))
{
  echo "# Extra memory of the workarounds: peak RSS, protected against bare"
  echo
  echo "Measured $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ($(nproc) cores," \
    "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)), P = $procs," \
    "by \`scripts/bench-memory.sh\`; load average when it began: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "One call of $((bytes >> 20)) MiB of MPI_BYTE per rank and peer (Bcast, Reduce,"
  echo "Allreduce: the vector; Reduce_scatter(_block): the vector over P), bare and under"
  echo "$workaround forced by a bound of a quarter of the call's n; each a job of its own,"
  echo "its largest rank's peak RSS (scaleguard-bench's peak_rss_max). Target: the extra at"
  echo "most one chunk, $((chunk >> 20)) MiB. The same numbers: \`$(basename "$table_file")\`."
  for mpi in "${mpis[@]}"; do
    echo
    echo "### $mpi"
    echo
    echo "| routine | layer took | bare (MiB) | protected (MiB) | extra (MiB) | within one chunk |"
    echo "|---|---|---:|---:|---:|---|"
    for routine in "${routines[@]}"; do
      n=$bytes
      [[ $routine != *educe_scatter* ]] || n=$((bytes / procs * procs))
      ini=$work/$routine.ini
      printf '[%s]\nclass = G\ntrigger = n\nbound = %s\nworkaround = %s\n' "$routine" \
        $((n / 4)) "$workaround" >"$ini"
      bare=$(peak "$mpi" "$routine" -)
      guarded=$(peak "$mpi" "$routine" "$ini")
      # what the layer says it did, e.g. "W1-B (blocks over 16777216 point to point)"
      took=$(sed -n "s/^scaleguard: $routine: class G, [^:]*: //p" "$work/stderr" | head -1)
      if [[ -z $bare || -z $guarded ]]; then
        echo "| $routine | ${took:--} | ${bare:-failed} | ${guarded:-failed} | - | - |"
        continue
      fi
      extra=$((guarded - bare))
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mpi" "$procs" "$routine" "$workaround" \
        "$bytes" "$bare" "$guarded" "$extra" "$chunk" >>"$table_file.new"
      awk -v r="$routine" -v t="${took:--}" -v b="$bare" -v g="$guarded" -v e="$extra" \
        -v c="$chunk" 'BEGIN { printf "| %s | %s | %.1f | %.1f | %.1f | %s |\n", r, t,
                               b / 1048576, g / 1048576, e / 1048576, e <= c ? "yes" : "no" }'
    done
  done
} >"$report.new"
mv "$report.new" "$report"
mv "$table_file.new" "$table_file"
echo "bench-memory: wrote $report and $table_file"
