#!/usr/bin/env bash
# Regenerate this platform's bounds INI for one MPI from real runs of the
# tester: with --full, scaleguard-probe over every collective
# (scaleguard-ini routines), both forms and P = 2, 3, 4, its journal in
# results/probe-MPI (committed: a later run resumes from it) and its report
# next to it; without it, on each of that
# MPI's known scaling problems (DESIGN.md, "Facts measured on this
# platform"), one after another, into one INI and one state folder. The
# real-scale tester tests (tests/tester, label long) run those known probes,
# one routine each (--routine).
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/probe-platform.sh --full [--spread] [--bin DIR] [--output FILE] [--state DIR]
                                 [--report DIR] [--fresh] [--busy-wait] mpich|openmpi
       scripts/probe-platform.sh [--bin DIR] [--output FILE] [--state DIR]
                                 [--routine NAME] [--fresh] [--busy-wait] mpich|openmpi
       scripts/probe-platform.sh --help
With --full, runs the tester (scaleguard-probe, s = 1, local launcher) on all
42 collectives, each plain and in place (where it has that form), at P = 4, 3
and 2, doubling from n = 1, and writes the bounds INI; the journal goes to
results/probe-MPI/state (default) and the report (scaleguard-report) to
results/probe-MPI. Hours: run it alone on the machine, and again after a stop
(it resumes from the journal). With --spread too, each search at P = 4 of the
int-count routines and their I-forms again with its ranks spread over 2 and 4
nodes (scaleguard-probe --nodes 1,2,4 --spread-procs 4 --spread-collective
...: two ranks a node, then one; each such search is a job or two at the
one-node search's largest sizes, through TCP), on the
cluster of SCALEGUARD_CLUSTER_SSH / SCALEGUARD_CLUSTER_HOSTS, or on one of four
nodes it starts (jobs/local-slurm.sh, as root) and stops; its jobs join the
same journal (the one-node jobs are all reused).
Without --full, runs the tester on the known scaling problems of that MPI on
this platform and writes the bounds INI:
  mpich    MPI_Scatter at P = 3, MPI_Gatherv at P = 4
  openmpi  MPI_Reduce_scatter at P = 2, MPI_Gatherv at P = 4
Each search doubles from --start-count 268435456 (2^28; every problem here is
near 2^30 elements, and all smaller sizes pass) and refines on the grid
2^29/16. About 2 minutes per MPI on 2 quiet cores (MPICH 95 s, Open MPI
124 s here) and up to 16 GiB at once; nothing else big should run meanwhile.

  --bin DIR       where scaleguard-probe is (default build/MPI/stage/bin, the
                  tree scripts/build.sh makes; an installed prefix's bin works)
  --output FILE   the INI (default with --full the shipped file,
                  configs/<os><version>-MPI-<mpi version>.ini, e.g.
                  configs/debian12-mpich-4.0.2.ini; without it
                  build/MPI/known-<os><version>-MPI-<mpi version>.ini)
  --state DIR     the probe's journal of finished jobs (default
                  build/MPI/platform-state, with --full results/probe-MPI/state):
                  run again, no finished job is redone
  --report DIR    with --full, where the report goes (default results/probe-MPI)
  --routine NAME  probe only that one of the MPI's problems and merge it into
                  FILE; without it FILE is written anew
  --spread        with --full: also over 2 and 4 nodes (above)
  --fresh         forget the journal first: measure everything again
  --busy-wait     the probe's --busy-wait: its jobs without libscaleguard-yield.so
                  (the journals in results/ were measured so; tester/README.md)

The file starts with a comment saying which command wrote it and when.
Exit status: 0 written, 1 a probe failed, 2 usage.
EOF
}

die_usage() {
  echo "probe-platform: $1 (see --help)" >&2
  exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
bin='' output='' state='' only='' fresh=0 mpi='' full=0 report='' spread=0 wait_args=()
while (($#)); do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --fresh) fresh=1; shift ;;
    --full) full=1; shift ;;
    --spread) spread=1; shift ;;
    --busy-wait) wait_args=(--busy-wait); shift ;;
    --bin | --output | --state | --routine | --report)
      (($# >= 2)) || die_usage "$1 needs a value"
      case $1 in
        --bin) bin=$2 ;;
        --report) report=$2 ;;
        --output) output=$2 ;;
        --state) state=$2 ;;
        --routine) only=$2 ;;
      esac
      shift 2 ;;
    -*) die_usage "unknown option '$1'" ;;
    *)
      [[ -z $mpi ]] || die_usage "one MPI only"
      mpi=$1
      shift ;;
  esac
done

# The problems of each MPI: routine and P (s = 1).
case $mpi in
  mpich)
    problems=("MPI_Scatter 3" "MPI_Gatherv 4")
    version=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')
    name="MPICH $version (mpicc.mpich, mpiexec.mpich)" ;;
  openmpi)
    problems=("MPI_Reduce_scatter 2" "MPI_Gatherv 4")
    version=$(ompi_info --parsable 2>/dev/null | sed -n 's/^ompi:version:full://p')
    name="Open MPI $version (mpicc.openmpi, mpiexec.openmpi)" ;;
  '') die_usage "which MPI: mpich or openmpi" ;;
  *) die_usage "unknown MPI '$mpi' (mpich or openmpi)" ;;
esac
[[ $full == 0 || -z $only ]] || die_usage "--full probes every routine: no --routine"
[[ $spread == 0 || $full == 1 ]] || die_usage "--spread goes with --full"
if [[ -n $only ]]; then
  selected=()
  for problem in "${problems[@]}"; do
    [[ ${problem%% *} != "$only" ]] || selected+=("$problem")
  done
  ((${#selected[@]})) || die_usage "$only is not one of $mpi's problems"
  problems=("${selected[@]}")
fi

# The layer, to time its own workaround beside W4's (workaround_seconds): an
# installed prefix's is found by the probe; the build tree keeps it apart.
layer_args=()
if [[ -z $bin && -f $root/build/$mpi/protect/libscaleguard.so ]]; then
  layer_args=(--layer "$root/build/$mpi/protect/libscaleguard.so")
fi
bin=${bin:-$root/build/$mpi/stage/bin}
[[ -x $bin/scaleguard-probe ]] ||
  { echo "probe-platform: $bin/scaleguard-probe is missing (scripts/build.sh)" >&2; exit 1; }
# shellcheck disable=SC1091 # the OS's own description
os=$(. /etc/os-release && echo "${ID:-linux}${VERSION_ID:-}")
os_name=$(. /etc/os-release && echo "${PRETTY_NAME:-$os}")
[[ -z $report || $full == 1 ]] || die_usage "--report goes with --full"
report=${report:-$root/results/probe-$mpi}
if ((full)); then
  output=${output:-$root/configs/$os-$mpi-${version:-unknown}.ini}
  state=${state:-$report/state}
else # the known problems alone: never over the shipped file
  output=${output:-$root/build/$mpi/known-$os-$mpi-${version:-unknown}.ini}
  state=${state:-$root/build/$mpi/platform-state}
fi
((fresh == 0)) || rm -rf "$state"
mkdir -p "$(dirname "$output")"
# The probes write a copy, which replaces FILE only when all went well:
# without --routine a new file, with it FILE with that routine merged in.
work=$output.new
rm -f "$work"
# ([platform] first: the probe replaces it where it is and appends routines.)
if [[ -n $only && -f $output ]]; then cp "$output" "$work"; else echo '[platform]' >"$work"; fi

# --spread without a cluster in the environment: one of four nodes of its
# own (its prefix and ports apart from the tests' clusters), stopped at exit.
spread_args=() spread_shown=''
if ((spread)); then
  # the int-count routines and their I-forms (a large-count or persistent
  # form's search on one node starts from one of these; spread, each would
  # add its jobs at the largest sizes through TCP, hours more)
  spread_args=(--nodes "1,2,4" --spread-procs 4 --spread-collective
    "$("$bin/scaleguard-ini" routines | awk '$1 !~ /(_c|_init)$/ { print $1 }' | paste -sd,)")
  spread_shown="--nodes 1,2,4 --spread-procs 4 --spread-collective (the int-count routines and their I-forms)"
  if [[ -z ${SCALEGUARD_CLUSTER_SSH:-} ]]; then
    cluster_prefix=/run/scaleguard-spread-$mpi
    local_slurm=$root/jobs/local-slurm.sh
    export SCALEGUARD_SLURM_PORT=${SCALEGUARD_SLURM_PORT:-$([[ $mpi == mpich ]] && echo 35000 || echo 35100)}
    cluster_env=$("$local_slurm" start --nodes 4 --prefix "$cluster_prefix") ||
      { echo "probe-platform: the cluster did not start (jobs/local-slurm.sh)" >&2; exit 1; }
    trap '"$local_slurm" stop --prefix "$cluster_prefix" >/dev/null || true' EXIT
    eval "$cluster_env"
  fi
fi

shapes=()
if ((full)); then
  readonly start_count=1 full_procs=2,3,4 full_forms=plain,inplace
  shapes+=("every routine, --forms $full_forms, --procs $full_procs${spread_shown:+, $spread_shown}")
  echo "probe-platform: $mpi: every routine, both forms, P=$full_procs${spread_shown:+ $spread_shown}, s=1 (state $state)"
  # the large-count forms past INT_MAX, up to the memory limit (the others
  # stop at INT_MAX), where the MPI has them
  count_args=()
  # (grep reads it all: grep -q would leave, and scaleguard-ini's next write
  # fail on SIGPIPE, which pipefail makes this test's answer: a resumed run
  # once went on without --max-count, the large-count forms capped at INT_MAX)
  if "$bin/scaleguard-ini" routines | grep '^MPI_[A-Za-z_]*_c ' >/dev/null; then
    count_args=(--max-count 1099511627776)
    shapes[-1]+=", --max-count 2^40 (the large-count forms)"
  fi
  if ! "$bin/scaleguard-probe" --collective all --procs "$full_procs" --forms "$full_forms" \
    "${spread_args[@]}" "${count_args[@]}" "${layer_args[@]}" "${wait_args[@]}" --type-size 1 --output "$work" \
    --state "$state"; then
    echo "probe-platform: the probe failed; $output left as it was" >&2
    exit 1
  fi
else
  readonly start_count=268435456
  for problem in "${problems[@]}"; do
    read -r routine procs <<<"$problem"
    shapes+=("$routine at P = $procs")
    echo "probe-platform: $mpi: $routine at P=$procs, s=1 (state $state)"
    if ! "$bin/scaleguard-probe" --collective "$routine" --procs "$procs" --type-size 1 \
      --start-count "$start_count" "${layer_args[@]}" "${wait_args[@]}" --output "$work" --state "$state"; then
      echo "probe-platform: the probe of $routine failed; $output left as it was" >&2
      exit 1
    fi
  done
fi

# The header replaces the leading comment block.
shown=$mpi merged=''
((full == 0)) || shown="--full $mpi"
((spread == 0)) || shown="--full --spread $mpi"
[[ -z $only ]] || shown="--routine $only $mpi" merged=' (merged: other sections are older)'
((${#wait_args[@]} == 0)) || shown="--busy-wait $shown"
# When: the newest job's end, as the probe wrote it (a resumed run, the same).
measured=$("$bin/scaleguard-ini" dump "$work" | awk -F '\t' '$1 == "platform" {
  for (i = 2; i <= NF; i++) if (sub(/^measured=/, "", $i)) print $i }')
{
  echo "; ScaleGuard bounds for $name on $os_name."
  echo ";"
  echo "; Written by the tester: scripts/probe-platform.sh $shown"
  echo "; on $(hostname -s), ${measured:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}: scaleguard-probe --type-size 1"
  joined=$(printf '%s, ' "${shapes[@]}")
  # (folded: scaleguard-ini takes no line of 200 characters or more)
  echo "--start-count $start_count, ${joined%, }$merged." | fold -s -w 96 | sed 's/^/; /; s/ *$//'
  if [[ ${shapes[*]} == *MPI_Reduce_scatter* || $full == 1 ]]; then
    echo "; Every job it ran is in its --state journal. Keys and units: see example.ini;"
    echo "; for MPI_Reduce_scatter n is the sum of the counts, as the layer computes it."
  else
    echo "; Every job it ran is in its --state journal. Keys and units: see example.ini."
  fi
  echo
  awk 'body || (!/^[;#]/ && !/^[[:space:]]*$/) { body = 1 } body' "$work"
} >"$output"
rm -f "$work"
"$bin/scaleguard-ini" check "$output"
if ((full)); then
  # The report names its files relative to the repository where they lie in it.
  in_repo() { if [[ $1 == "$root"/* ]]; then echo "${1#"$root"/}"; else readlink -m "$1"; fi; }
  report_args=(--output "$(in_repo "$report")" "$(in_repo "$output")" "$(in_repo "$state")")
  reporter=$(readlink -f "$bin/scaleguard-report")
  (cd "$root" && "$reporter" "${report_args[@]}")
  echo "probe-platform: report in $report/report.md"
fi
