#!/usr/bin/env bash
# user-commands.sh mpiexec|srun PREFIX LAUNCH_CHECK
#
# The README's user commands with the installed module (issue 47, item 9):
#   mpiexec  `mpiexec.MPI $SCALEGUARD_MPIRUN_FLAGS -n 3 ./app`, the launcher
#            the module's help names (this MPI's own, not the plain mpirun)
#   srun     `srun $SCALEGUARD_SRUN_FLAGS -n 3 ./app` on the local Slurm
#            (SLURM_CONF), whose default plugin is none: the flags must carry
#            the MPI's --mpi
# The app is launch_check: every rank must report a world of 3 ranks (once,
# srun started three one-rank jobs, each saying OK). PREFIX is the install
# of tests/install (fixture sg_install).
set -euo pipefail

case=$1 prefix=$2 app=$3
# shellcheck source=tests/install/load-module.sh
source "$(dirname "$0")/../../install/load-module.sh" "$prefix"
help=$(module help scaleguard 2>&1)

result=0
fail() {
  echo "FAIL: $*"
  result=1
}

launcher=${SCALEGUARD_MPIEXEC##*/}
value=world-$$
case $case in
  mpiexec)
    [[ $help == *"$launcher \$SCALEGUARD_MPIRUN_FLAGS -n 4 ./app"* ]] ||
      fail "module help does not name $launcher: $help"
    [[ $help != *"mpirun \$SCALEGUARD_MPIRUN_FLAGS"* ]] ||
      fail "module help advises the plain mpirun (Debian's is Open MPI's)"
    read -ra flags <<<"$SCALEGUARD_MPIRUN_FLAGS"
    # (SCALEGUARD_MPIEXEC_FLAGS: Open MPI's --allow-run-as-root, for the tests)
    read -ra root_flags <<<"$SCALEGUARD_MPIEXEC_FLAGS"
    command=("$SCALEGUARD_MPIEXEC" "${root_flags[@]}" "${flags[@]}" -n 3)
    ;;
  srun)
    : "${SLURM_CONF:?srun needs the test cluster (SLURM_CONF)}"
    [[ $help == *"srun \$SCALEGUARD_SRUN_FLAGS -n 4 ./app"* ]] ||
      fail "module help does not give srun \$SCALEGUARD_SRUN_FLAGS: $help"
    read -ra flags <<<"$SCALEGUARD_SRUN_FLAGS"
    command=(srun "${flags[@]}" -n 3)
    ;;
  *) echo "user-commands.sh: unknown case $case" >&2; exit 2 ;;
esac

echo "running: ${command[*]} $app 3 LAUNCH_WORLD ok"
status=0
output=$(LAUNCH_WORLD=$value timeout 60 "${command[@]}" "$app" 3 LAUNCH_WORLD ok 2>&1) ||
  status=$?
echo "$output"
((status == 0)) || fail "exit status $status, expected 0"
for rank in 0 1 2; do
  grep -qxF "launch_check: rank $rank of 3: LAUNCH_WORLD=$value preloaded=no" <<<"$output" ||
    fail "rank $rank did not report a world of 3 ranks"
done
((result)) || echo PASS
exit "$result"
