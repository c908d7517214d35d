#!/usr/bin/env bash
# The main job, on a fresh Debian 12 machine as root:
#   1. install what is missing, build both MPI trees, install each under
#      PREFIX/<mpi> (default ./install);
#   2. for each MPI, run the tester on this platform's known scaling problem
#      (DESIGN.md; MPICH 4.0.2 MPI_Scatter, Open MPI 4.1.4 MPI_Reduce_scatter)
#      and write configs/<host>-<mpi>.ini; with --full, on all 40 collectives,
#      plain and in place, at P = 4, 3 and 2 (scripts/probe-platform.sh --full:
#      hours, not minutes);
#   3. run an application that hits the problem (scaleguard-bench, which
#      checks every byte) without and with libscaleguard.so and that INI.
# The tester's state stays in build/<mpi>/main-state: run again, it redoes no
# finished job. Needs up to 16 GiB of memory (the tester on Reduce_scatter).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${SCALEGUARD_PREFIX:-$PWD/install}
full=0
usage() {
  cat <<'EOF'
usage: scripts/run-main.sh [--full]
       scripts/run-main.sh --help
The main job, as root on Debian 12: installs what is missing, builds and
installs both MPI trees under $SCALEGUARD_PREFIX/<mpi> (default ./install),
runs the tester on each MPI's known scaling problem into
configs/<host>-<mpi>.ini, then an application just past each bound without
and with libscaleguard.so, and prints a summary.
  --full   the tester on all 40 collectives, both forms, P = 4, 3, 2 (hours)
EOF
}
case ${1:-} in
  '') ;;
  --full) full=1 ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac

scripts/install-deps.sh
scripts/build.sh
for mpi in mpich openmpi; do
  cmake --install "build/$mpi" --prefix "$prefix/$mpi" >/dev/null
done
echo "run-main: installed $prefix/mpich and $prefix/openmpi"

# The known problem of each MPI here: the tester's shape, and the
# application's (ranks, bench arguments) just past the bound.
declare -A probe_shape=([mpich]="MPI_Scatter 3" [openmpi]="MPI_Reduce_scatter 2")
declare -A application=([mpich]="3 -c MPI_Scatter -n 750000000"
  [openmpi]="2 -c MPI_Reduce_scatter -n 1100000000")
host=$(hostname -s)
summary=()

# run_application PREFIX INI|- PROCS ARGS...: prints how the run ended
run_application() {
  local install=$1 ini=$2 procs=$3 log
  shift 3
  log=$(mktemp)
  local launch=("$install/libexec/scaleguard/launch-local" --procs "$procs" --time-limit 600
    --log "$log")
  if [[ $ini != - ]]; then
    launch+=(--preload "$install/lib/libscaleguard.so" --env SCALEGUARD_CONFIG="$ini"
      --env SCALEGUARD_LOG=info)
  fi
  local line status code outcome
  line=$("${launch[@]}" -- "$install/bin/scaleguard-bench" "$@")
  read -r status code _ <<<"$line"
  status=${status#status=} code=${code#exit=}
  case $status:$code in
    completed:*) outcome="passed, every byte checked" ;;
    failed:3) outcome="WRONG DATA" ;;
    failed:4) outcome="MPI error" ;;
    signal:*) outcome="crashed (signal $((code - 128)))" ;;
    timeout:*) outcome="hung" ;;
    *) outcome="$status (exit $code)" ;;
  esac
  local how
  how=$(sed -n 's/^scaleguard: .*: class \([A-Z]\), .*: \(W[0-9A-Z-]*\).*$/class \1, \2/p' "$log" |
    head -1)
  echo "$outcome${how:+ (avoided $how)}"
  rm -f "$log"
}

for mpi in mpich openmpi; do
  install=$prefix/$mpi
  ini=configs/$host-$mpi.ini
  read -r routine procs <<<"${probe_shape[$mpi]}"
  if ((full)); then
    echo "run-main: $mpi: tester on all 40 collectives, both forms, P=4,3,2, s=1" \
      "(log: build/$mpi/main-probe.log, report: build/$mpi/main-report)"
    scripts/probe-platform.sh --full --bin "$install/bin" --output "$ini" \
      --state "build/$mpi/main-state" --report "build/$mpi/main-report" "$mpi" \
      >"build/$mpi/main-probe.log"
    summary+=("$mpi: tester wrote $ini (report: build/$mpi/main-report/report.md)")
    while read -r name found; do
      summary+=("  $name: $found")
    done < <(sed -n 's/^probe: \(MPI_[A-Za-z_]*\): \(class=.*\)/\1 \2/p' "build/$mpi/main-probe.log")
  else
    echo "run-main: $mpi: tester on $routine, P=$procs, s=1 (log: build/$mpi/main-probe.log)"
    "$install/bin/scaleguard-probe" --collective "$routine" --procs "$procs" --type-size 1 \
      --output "$ini" --state "build/$mpi/main-state" >"build/$mpi/main-probe.log"
    found=$(sed -n "s/^probe: $routine: \(class=.*\)/\1/p" "build/$mpi/main-probe.log" | tail -1)
    summary+=("$mpi: tester wrote $ini")
    summary+=("  $routine: ${found:-no failure found}")
  fi

  read -r app_procs app_args <<<"${application[$mpi]}"
  read -ra app_args <<<"$app_args"
  echo "run-main: $mpi: application ${app_args[*]} at P=$app_procs, without and with ScaleGuard"
  bare=$(run_application "$install" - "$app_procs" "${app_args[@]}")
  protected=$(run_application "$install" "$PWD/$ini" "$app_procs" "${app_args[@]}")
  summary+=("  application ${app_args[1]} n=${app_args[3]} P=$app_procs: without ScaleGuard $bare;")
  summary+=("    with libscaleguard.so and $ini: $protected")
done

echo
echo "ScaleGuard on $host"
printf '  %s\n' "${summary[@]}"
