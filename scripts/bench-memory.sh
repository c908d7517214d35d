#!/usr/bin/env bash
# The workarounds' extra memory: peak resident set size of one call under
# each forced workaround against the bare call, per rank, both MPIs. For each
# routine of `scaleguard-ini routines`, scaleguard-bench runs one call of
# BYTES of MPI_BYTE per rank and peer (default 64 MiB) in separate jobs:
# bare, and under libscaleguard.so with `workaround = NAME` and the bound
# bench-protect.sh forces it by (W1-B and W2: a quarter of the call's n, four
# rounds, so a chunk is a quarter of a block; W1-A: half of n P, groups of
# 2). Each job's peak_rss_max (the largest rank's peak) is read from its
# line; the extra is their difference, next to one chunk, the target: at
# most one chunk per rank. A chunk is the most one sub-call may move per
# rank under the bound: BYTES / 4 under W1-B's and W2's, BYTES / 2 under
# W1-A's (where W1-A does not apply, auto cuts by that bound).
# Writes a Markdown report (default results/protect-memory.md at P = 2,
# results/protect-memory-pP.md at another P) and a TSV next to it. P from
# SCALEGUARD_BENCH_PROCS (default 2), MPIs from SCALEGUARD_BENCH_MPIS (default
# "mpich openmpi"), the workarounds from SCALEGUARD_BENCH_WORKAROUNDS (default
# "W1-B W2 W1-A"), the size from SCALEGUARD_BENCH_BYTES. Build trees as for
# scripts/bench-protect.sh (build/mpich, build/openmpi, or SCALEGUARD_BUILD=DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

bench_name=bench-memory
# shellcheck source=scripts/bench-common.sh
source scripts/bench-common.sh
bench_start protect-memory "$@"
bytes=${SCALEGUARD_BENCH_BYTES:-67108864}
read -ra workarounds <<<"${SCALEGUARD_BENCH_WORKAROUNDS:-W1-B W2 W1-A}"
# Each workaround's trigger and the divisor of its bound, as bench-protect.sh
# forces it.
declare -A forced=([W1-B]="n 4" [W2]="n 4" [W1-A]="nP 2")
for workaround in "${workarounds[@]}"; do
  [[ -n ${forced[$workaround]:-} ]] ||
    { echo "bench-memory: unknown workaround '$workaround' (${!forced[*]})" >&2; exit 1; }
done

tree_of() { bench_tree "$1" stage/bin/scaleguard-bench protect/libscaleguard.so; }
for mpi in "${mpis[@]}"; do tree_of "$mpi" >/dev/null; done

# The 26, from the tree's own table (not the persistent `_init` forms: a
# Start runs the I-form's call, measured as that one).
mapfile -t routines < <("$(tree_of "${mpis[0]}")/stage/bin/scaleguard-ini" routines |
  awk '$1 !~ /_init(_c)?$/ {print $1}')

# peak MPI ROUTINE INI|- [OPTION...]: the largest rank's peak RSS of one
# call (its last line: after --blocking-first, the I-form's), in bytes.
peak() {
  local mpi=$1 routine=$2 ini=$3 tree
  shift 3
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
    -n "$count" "$@" 2>"$work/stderr" |
    sed -n 's/.*result=pass .*peak_rss_max=\([0-9]*\).*/\1/p' | tail -1
}

printf 'mpi\tprocs\troutine\tworkaround\tbytes\tbare_peak\tprotected_peak\textra\tchunk\n' \
  >"$table_file.new"
{
  echo "# Extra memory of the workarounds: peak RSS, protected against bare"
  echo
  echo "Measured $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ($(nproc) cores," \
    "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)), P = $procs," \
    "by \`scripts/bench-memory.sh\`; load average when it began: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "One call of $((bytes >> 20)) MiB of MPI_BYTE per rank and peer (Bcast, Reduce,"
  echo "Allreduce: the vector; Reduce_scatter(_block): the vector over P), bare and under"
  echo "each workaround forced as in \`protect-overhead\` (W1-B and W2: a bound of a quarter"
  echo "of the call's n; W1-A: half of n P); each a job of its own, its largest rank's peak"
  echo "RSS (scaleguard-bench's peak_rss_max; under W1-A an I-form's job, bare too, runs the"
  echo "blocking form first, which makes W1-A's sub-communicators, and the peak covers both)."
  echo "A cell: what the layer says it ran (the I-form's call), and the"
  echo "extra in MiB. Target: the extra at most one chunk, the most one sub-call may move"
  echo "per rank under the bound ($((bytes >> 22)) MiB under W1-B's and W2's, $((bytes >> 21)) MiB under"
  echo "W1-A's); a cell over it is marked **over**. The same numbers: \`$(basename "$table_file")\`."
  for mpi in "${mpis[@]}"; do
    echo
    echo "### $mpi"
    echo
    printf '| routine | bare (MiB) |'
    printf ' %s forced |' "${workarounds[@]}"
    printf '\n|---|---:|'
    printf -- '---|%.0s' "${workarounds[@]}"
    printf '\n'
    for routine in "${routines[@]}"; do
      n=$bytes
      [[ $routine != *educe_scatter* ]] || n=$((bytes / procs * procs))
      bare=$(peak "$mpi" "$routine" -)
      # W1-A's I-form runs on sub-communicators that a blocking call made:
      # under it an I-form's job runs its blocking form first, bare too.
      first=() bare_first=$bare
      if [[ $routine == MPI_I* && " ${workarounds[*]} " == *" W1-A "* ]]; then
        first=(--blocking-first)
        bare_first=$(peak "$mpi" "$routine" - "${first[@]}")
      fi
      printf '| %s | %s |' "$routine" \
        "$(if [[ -n $bare ]]; then awk -v b="$bare" 'BEGIN { printf "%.1f", b / 1048576 }'; else echo failed; fi)"
      for workaround in "${workarounds[@]}"; do
        read -r trigger divisor <<<"${forced[$workaround]}"
        value=$n chunk=$((bytes / divisor))
        [[ $trigger != nP ]] || value=$((n * procs))
        ini=$work/$routine-$workaround.ini
        entries=("$routine")
        # (the blocking form that runs first needs the entry to make them)
        blocking=${routine#MPI_I}
        [[ $workaround != W1-A || $routine != MPI_I* ]] || entries+=("MPI_${blocking^}")
        for entry in "${entries[@]}"; do
          printf '[%s]\nclass = G\ntrigger = %s\nbound = %s\nworkaround = %s\n' "$entry" \
            "$trigger" $((value / divisor)) "$workaround"
        done >"$ini"
        options=() base=$bare
        [[ $workaround != W1-A ]] || options=("${first[@]}") base=$bare_first
        guarded=$(peak "$mpi" "$routine" "$ini" "${options[@]}")
        # what the layer says it did, e.g. "W1-B (blocks over 16777216 point to point)"
        took=$(sed -n "s/^scaleguard: $routine: class G, [^:]*: //p" "$work/stderr" | head -1)
        if [[ -z $base || -z $guarded ]]; then
          printf ' %s: failed |' "${took:--}"
          continue
        fi
        extra=$((guarded - base))
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mpi" "$procs" "$routine" \
          "$workaround" "$bytes" "$base" "$guarded" "$extra" "$chunk" >>"$table_file.new"
        awk -v t="${took:--}" -v e="$extra" -v c="$chunk" \
          'BEGIN { printf " %s: %.1f%s |", t, e / 1048576, e <= c ? "" : " **over**" }'
      done
      printf '\n'
    done
  done
} >"$report.new"
mv "$report.new" "$report"
mv "$table_file.new" "$table_file"
echo "bench-memory: wrote $report and $table_file"
