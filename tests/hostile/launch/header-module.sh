#!/usr/bin/env bash
# header-module.sh SLURM_HEADER PREFIX: the site set-up example at the end of
# jobs/slurm-header.sh (issue 47, item 21), uncommented, works in the shell a
# batch job gets, which is not a login shell (bash --noprofile --norc, with
# a bare environment): `module load` there failed, `module` being defined
# only by a login shell's profile. The example's module is swapped for the
# installed scaleguard module (PREFIX: tests/install's, fixture sg_install).
set -euo pipefail

header=$1 prefix=$2
example=$(sed -n '/^# Site set-up/,$p' "$header" | sed -nE 's/^# +((source|module) .*)/\1/p' |
  sed 's|module load mpi/openmpi|module load scaleguard|')
if [[ $example != *"module load scaleguard"* ]]; then
  echo "FAIL: no 'module load' example at the end of $header"
  exit 1
fi
echo "$example"
status=0
root=$(env -i PATH=/usr/bin:/bin HOME="$HOME" MODULEPATH="$prefix/share/modulefiles" \
  bash --noprofile --norc -c "set -e"$'\n'"$example"$'\necho "$SCALEGUARD_ROOT"') || status=$?
if ((status != 0)) || [[ $root != "$prefix" ]]; then
  echo "FAIL: the example exits $status in a batch job's shell, SCALEGUARD_ROOT '$root'"
  exit 1
fi
echo PASS
