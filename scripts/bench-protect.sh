#!/usr/bin/env bash
# The protection overhead benchmark: libscaleguard.so against the bare MPI
# call, side by side in one run (tests/benchmark/sg_overhead.c), both MPIs.
# Writes a Markdown report (default results/protect-overhead.md at P = 2,
# results/protect-overhead-pP.md at another P) and the same numbers as a TSV
# next to it (.md -> .tsv; scaleguard-report
# --benchmark plots it):
#   no trigger (cases `none`, `shipped`, `cfg`): 8 B, 1 KiB, 64 KiB, 1 MiB
#     per rank and peer, without a configuration (Class D checks only), with
#     the MPI's shipped configs/debian12-MPI-*.ini, and with a bound
#     configured for every routine that the call stays under; next to them
#     their floor (case `floor`): a preload that only forwards each call to
#     PMPI (tests/benchmark/forward.c), the cost of interposing at all;
#   the collective checks on (case `checks`: `[checks] collectives = yes`,
#     no bounds; `checks64`: with `batch = 64`), the watchdog on (case
#     `watchdog`: SCALEGUARD_WATCHDOG=60, no bounds) and the trace on (case
#     `trace`: SCALEGUARD_TRACE into the work directory, removed after each
#     run), the same sizes, and where `none` ran too, against it;
#   each workaround forced (cases W1-B, W2, W1-A): 1, 8 and 64 MiB, with a
#     bound of a fraction of the call's trigger value (W1-B: a quarter, four
#     rounds at every size; W1-A: half of n P, groups of 2).
# Needs the build trees of scripts/build.sh (build/mpich, build/openmpi), or
# others: SCALEGUARD_BUILD=DIR for DIR/mpich and DIR/openmpi,
# SCALEGUARD_BUILD_MPICH / SCALEGUARD_BUILD_OPENMPI for one tree each.
# SCALEGUARD_BENCH_PROCS sets P (default 2): with more ranks than cores,
# busy-polling MPIs time out on scheduler ticks. SCALEGUARD_BENCH_MPIS (default
# "mpich openmpi") chooses the MPIs, SCALEGUARD_BENCH_CASES (default
# "floor none shipped cfg W1-B W2 W1-A W3"; the checks, the watchdog and the
# trace only on request, results/checks-overhead.md: SCALEGUARD_BENCH_CASES="none
# checks checks64 watchdog", results/trace-overhead.md: "none trace")
# the cases; a run of some cases writes a report of those only (give it a
# REPORT of its own).
set -euo pipefail
cd "$(dirname "$0")/.."

bench_name=bench-protect
# shellcheck source=scripts/bench-common.sh
source scripts/bench-common.sh
bench_start protect-overhead "$@"

tree_of() {
  bench_tree "$1" tests/benchmark/sg_overhead protect/libscaleguard.so \
    tests/benchmark/libsg_forward.so stage/bin/scaleguard-ini
}
for mpi in "${mpis[@]}"; do tree_of "$mpi" >/dev/null; done

# The 26, from the tree's own table: NAME, and whether it is a v-routine and
# reduces a packed vector of P blocks (scaleguard-ini routines); not the
# persistent `_init` forms (a Start runs the I-form's call, measured as that one).
declare -A irregular=() packed=()
routines=()
while read -r name regularity _ send _; do
  [[ ! $name =~ _init(_c)?$ ]] || continue
  routines+=("${name#MPI_}")
  [[ $regularity != irregular ]] || irregular[${name#MPI_}]=1
  [[ $send != send=packed ]] || packed[${name#MPI_}]=1
done < <("$(tree_of "${mpis[0]}")/stage/bin/scaleguard-ini" routines)

# The no-trigger sizes, and the sizes each forced workaround runs at.
untriggered_sizes=(8 1024 65536 1048576)
forced_sizes=(1048576 8388608 67108864)

# The forced workarounds: NAME TRIGGER DIVISOR. Each forced case configures
# every routine with that trigger, a bound of the call's trigger value over
# DIVISOR and `workaround = NAME`. W1-A needs a bound that depends on P. W3
# serves Class D only: trigger D gives the v-routines a `class = D` entry,
# and their protected calls a far layout whose int displacements wrap
# (sg_overhead --wrap; the bare call moves the same blocks packed).
forced=("W1-B n 4" "W2 n 4" "W1-A nP 2" "W3 D -")

# Notes printed under a forced case's table.
declare -A forced_note=([W2]="reductions fall back to W1-B"
  [W1-A]="groups of 2 (Allgather(v): pairs of single ranks; reductions to all: a 2 x 2 grid, so at P < 4 they fall back to auto); Alltoall(v) fall back to auto"
  [W3]="v-routines, displacements wrapped; without PMPI_*_c (Open MPI) the next valid workaround")

# More ranks than cores: 1, else 0.
oversubscribed=$((procs > $(nproc)))

# MPICH at P > cores: its Allgatherv pipelines the ring in 32 KiB pieces and
# every piece waits for a scheduler tick (45 s for one 64 MiB call at P = 4
# on 2 cores). Unpipelined, for both the bare and the protected call.
mpich_env=()
if ((oversubscribed)) && [[ " ${mpis[*]} " == *" mpich "* ]]; then
  mpich_env=(MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE=1073741824)
fi

# config NAME TRIGGER BOUND WORKAROUND: one G entry for every routine. A
# Reduce_scatter's n is its whole vector, P blocks: its bound is P times.
config() {
  local file=$work/$1.ini routine bound
  for routine in "${routines[@]}"; do
    bound=$3
    [[ -z ${packed[$routine]:-} || $3 == - ]] || bound=$((bound * procs))
    if [[ $2 == D ]]; then
      [[ -z ${irregular[$routine]:-} ]] || printf '[MPI_%s]\nclass = D\nworkaround = %s\n\n' "$routine" "$4"
    else
      printf '[MPI_%s]\nclass = G\ntrigger = %s\nbound = %s\nworkaround = %s\n\n' \
        "$routine" "$2" "$bound" "$4"
    fi
  done >"$file"
  echo "$file"
}
untriggered=$(config untriggered snP 1000000000000 auto)

# The bound of a forced case: the trigger value of a call of BYTES of
# MPI_BYTE per rank and peer (n = BYTES, s = 1) over DIVISOR.
fraction() {
  local trigger=$1 bytes=$2 divisor=$3
  case $trigger in
    n | sn) echo $((bytes / divisor)) ;;
    nP | snP) echo $((bytes * procs / divisor)) ;;
    D) echo - ;;
    *) echo "bench-protect: unknown trigger '$trigger'" >&2; exit 1 ;;
  esac
}

# run MPI BYTES SECONDS REPS CONFIG|-|floor [SG_OVERHEAD_OPTION...]: prints
# "routine bytes bare protected ratio" lines; `floor` preloads the
# forwarding library instead of the layer.
run() {
  local mpi=$1 bytes=$2 seconds=$3 reps=$4 ini=$5 tree
  shift 5
  tree=$(tree_of "$mpi")
  local preload=$tree/protect/libscaleguard.so
  [[ $ini != floor ]] || preload=$tree/tests/benchmark/libsg_forward.so ini=-
  local settings=("LD_PRELOAD=$preload" "SCALEGUARD_LOG=quiet" "${case_settings[@]}")
  [[ $ini == - ]] || settings+=("SCALEGUARD_CONFIG=$ini")
  [[ $mpi != mpich ]] || settings+=("${mpich_env[@]}")
  local launch
  bench_launch "$tree" "$procs" "${settings[@]}"
  env -u SCALEGUARD_CONFIG "${launch[@]}" "$tree/tests/benchmark/sg_overhead" \
    --bytes "$bytes" --seconds "$seconds" --reps "$reps" "$@"
}

read -ra cases <<<"${SCALEGUARD_BENCH_CASES:-floor none shipped cfg W1-B W2 W1-A W3}"
for kase in "${cases[@]}"; do
  [[ " floor none shipped cfg checks checks64 watchdog trace ${forced[*]%% *} " == *" $kase "* ]] ||
    { echo "bench-protect: unknown case '$kase' in SCALEGUARD_BENCH_CASES" >&2; exit 1; }
done
selected() { [[ " ${cases[*]} " == *" $1 "* ]]; }
case_settings=() # what a case sets in the environment (table)

# The TSV: one line per routine, case and size.
printf 'mpi\tprocs\troutine\tcase\tbytes\tbare_seconds\tprotected_seconds\tratio\n' \
  >"$table_file.new"

# table TITLE MPI CASE SECONDS REPS BYTES...: one column of ratios per size.
# The case's configuration is $work/CASE-BYTES.ini, or none when that is
# missing.
table() {
  local title=$1 mpi=$2 kase=$3 seconds=$4 reps=$5 bytes ini
  shift 5
  selected "$kase" || return 0
  local sizes=("$@")
  for bytes in "${sizes[@]}"; do
    ini=$work/$kase-$bytes.ini
    [[ -f $ini ]] || ini=-
    [[ $kase != floor ]] || ini=floor
    local options=()
    [[ $kase != W3 ]] || options=(--wrap)
    case_settings=()
    [[ $kase != watchdog ]] ||
      case_settings=(SCALEGUARD_WATCHDOG=60 "SCALEGUARD_WATCHDOG_DIR=$work/watchdog-states")
    [[ $kase != trace ]] || case_settings=("SCALEGUARD_TRACE=$work/trace")
    if ! run "$mpi" "$bytes" "$seconds" "$reps" "$ini" "${options[@]}" >"$work/$mpi-$kase-$bytes.txt"; then
      echo "bench-protect: $mpi, case $kase, $bytes B at P = $procs failed (configuration" \
        "${ini/#$work\//}; its output above); no report written" >&2
      exit 1
    fi
    # sg_overhead: name, bytes, bare us, protected us, ratio.
    awk -v OFS='\t' -v mpi="$mpi" -v procs="$procs" -v kase="$kase" \
      'NF == 5 && $1 ~ /^MPI_/ { print mpi, procs, $1, kase, $2, sprintf("%.8f", $3 / 1e6),
                                  sprintf("%.8f", $4 / 1e6), $5 }' \
      "$work/$mpi-$kase-$bytes.txt" >>"$table_file.new"
    rm -rf "$work/trace" # a few GiB at the small sizes
  done
  printf '\n#### %s — %s\n\n| routine |' "$mpi" "$title"
  for bytes in "${sizes[@]}"; do printf ' %s B (bare µs) | ratio |' "$bytes"; done
  printf '\n|---|'
  for bytes in "${sizes[@]}"; do printf -- '---:|---:|'; done
  printf '\n'
  local routine
  for routine in "${routines[@]}"; do
    [[ $kase != W3 || -n ${irregular[$routine]:-} ]] || continue
    printf '| MPI_%s |' "$routine"
    for bytes in "${sizes[@]}"; do
      awk -v r="MPI_$routine" '$1 == r { printf " %.1f | %.3f |", $3, $5 }' \
        "$work/$mpi-$kase-$bytes.txt"
    done
    printf '\n'
  done
}

# vform MPI: W1-B next to what its sub-calls' routine costs in this MPI. A
# regular routine's W1-B runs its v-form (Scatter as Scatterv, ...): the
# v-form's bare call over the routine's bare call, of the same size in the
# same run (the W1-B case's bare column), is the MPI's own share of W1-B's
# ratio.
vform() {
  local mpi=$1 bytes routine
  printf '\n#### %s — W1-B next to the MPI'"'"'s own cost of its routine (the v-form bare / the routine bare)\n\n| routine |' "$mpi"
  for bytes in "${forced_sizes[@]}"; do printf ' %s B: W1-B | v-form bare / bare |' "$bytes"; done
  printf '\n|---|'
  for bytes in "${forced_sizes[@]}"; do printf -- '---:|---:|'; done
  printf '\n'
  for routine in "${routines[@]}"; do
    [[ -n ${irregular[${routine}v]:-} ]] || continue
    printf '| MPI_%s |' "$routine"
    for bytes in "${forced_sizes[@]}"; do
      awk -v r="MPI_$routine" -v v="MPI_${routine}v" '
        $1 == r { whole = $3; ratio = $5 } $1 == v { vbare = $3 }
        END { printf " %.3f | %.3f |", ratio, vbare / whole }' "$work/$mpi-W1-B-$bytes.txt"
    done
    printf '\n'
  done
}

# versus MPI CASE: the checks' (or the watchdog's) ratio over the layer's
# without them (case none), each the median of its own run against the bare
# call.
versus() {
  local mpi=$1 kase=$2 bytes routine
  printf '\n#### %s — %s against the layer without them (%s ratio / none ratio)\n\n| routine |' \
    "$mpi" "$kase" "$kase"
  for bytes in "${untriggered_sizes[@]}"; do printf ' %s B |' "$bytes"; done
  printf '\n|---|'
  for bytes in "${untriggered_sizes[@]}"; do printf -- '---:|'; done
  printf '\n'
  for routine in "${routines[@]}"; do
    printf '| MPI_%s |' "$routine"
    for bytes in "${untriggered_sizes[@]}"; do
      awk -v r="MPI_$routine" '$1 == r { ratio[FILENAME] = $5 }
        END { for (f in ratio) if (f ~ /-none-/) n = ratio[f]; else c = ratio[f]
              printf " %.3f |", c / n }' \
        "$work/$mpi-$kase-$bytes.txt" "$work/$mpi-none-$bytes.txt"
    done
    printf '\n'
  done
}

for bytes in "${untriggered_sizes[@]}"; do
  cp "$untriggered" "$work/cfg-$bytes.ini"
  printf '[checks]\ncollectives = yes\n' >"$work/checks-$bytes.ini"
  printf '[checks]\ncollectives = yes\nbatch = 64\n' >"$work/checks64-$bytes.ini"
done
for item in "${forced[@]}"; do
  read -r name trigger divisor <<<"$item"
  for bytes in "${forced_sizes[@]}"; do
    config "$name-$bytes" "$trigger" "$(fraction "$trigger" "$bytes" "$divisor")" "$name" >/dev/null
  done
done

{
  echo "# Protection overhead: libscaleguard.so / bare MPI call${SCALEGUARD_BENCH_CASES:+ (cases: $SCALEGUARD_BENCH_CASES)}"
  echo
  echo "Measured $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ($(nproc) cores," \
    "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)), P = $procs" \
    "ranks (oversubscribed when P > cores), by \`scripts/bench-protect.sh\`;" \
    "load average when it began: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Each ratio is the median over pairs of blocks of calls, bare (PMPI) then protected,"
  echo "of the protected block's time over the bare one's; the times are each side's fastest"
  echo "block (tests/benchmark/sg_overhead.c); sizes are bytes per rank and peer (MPI_BYTE)."
  echo "A forced workaround's bound is a fraction of the call's trigger value (W1-B: a quarter,"
  echo "four rounds; W1-A: half of n P, groups of 2)."
  echo "The same numbers: \`$(basename "$table_file")\`."
  if ((oversubscribed)); then
    echo "With more ranks than cores, a rank that polls for a descheduled one waits for the"
    echo "scheduler: many bare times below are whole multiples of about 4 ms (the floor"
    echo "tables), and a workaround's dependent steps (W1-A's stages) can each add such a"
    echo "wait. Ratios of a few ms are ratios of those waits; P = 2 shows the layer's own cost."
  fi
  if ((${#mpich_env[@]})); then
    echo "MPICH ran with ${mpich_env[*]} (P > cores: its pipelined"
    echo "Allgatherv waits a scheduler tick per 32 KiB piece)."
  fi
  for mpi in "${mpis[@]}"; do
    echo
    echo "### $mpi"
    shipped=(configs/debian12-"$mpi"-*.ini)
    for bytes in "${untriggered_sizes[@]}"; do cp "${shipped[0]}" "$work/shipped-$bytes.ini"; done
    # Calls of a microsecond: eight pairs of blocks of 50 ms.
    table "floor: a preload that only forwards each call to PMPI (no layer)" "$mpi" floor 0.4 8 \
      "${untriggered_sizes[@]}"
    table "no trigger, no configuration (Class D checks only)" "$mpi" none 0.4 8 \
      "${untriggered_sizes[@]}"
    table "no trigger, the shipped ${shipped[0]}" "$mpi" shipped 0.4 8 \
      "${untriggered_sizes[@]}"
    table "no trigger, a bound configured for every routine" "$mpi" cfg 0.4 8 \
      "${untriggered_sizes[@]}"
    table "the collective checks on (\`[checks] collectives = yes\`, no bounds)" "$mpi" checks \
      0.4 8 "${untriggered_sizes[@]}"
    ! selected checks || ! selected none || versus "$mpi" checks
    table "the collective checks on, 64 calls to an exchange (\`batch = 64\`)" "$mpi" checks64 \
      0.4 8 "${untriggered_sizes[@]}"
    ! selected checks64 || ! selected none || versus "$mpi" checks64
    table "the watchdog on (SCALEGUARD_WATCHDOG=60, no bounds)" "$mpi" watchdog 0.4 8 \
      "${untriggered_sizes[@]}"
    ! selected watchdog || ! selected none || versus "$mpi" watchdog
    table "the trace on (SCALEGUARD_TRACE, no bounds)" "$mpi" trace 0.4 8 \
      "${untriggered_sizes[@]}"
    ! selected trace || ! selected none || versus "$mpi" trace
    for item in "${forced[@]}"; do
      read -r name trigger divisor <<<"$item"
      local_bound="$trigger bound = $trigger/$divisor"
      [[ $trigger != D ]] || local_bound="class = D"
      table "$name forced ($local_bound${forced_note[$name]:+; ${forced_note[$name]}})" \
        "$mpi" "$name" 0.5 3 "${forced_sizes[@]}"
      [[ $name != W1-B ]] || ! selected W1-B || vform "$mpi"
    done
  done
} >"$report.new"
mv "$report.new" "$report"
mv "$table_file.new" "$table_file"
echo "bench-protect: wrote $report and $table_file"
