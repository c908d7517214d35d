# shellcheck shell=bash
# load-module.sh PREFIX, sourced: the installed tree's mpi.env and its
# modulefile loaded through Lmod, as the README's users do (tests/install's
# prefix, fixture sg_install). Exits 1 where Lmod is not installed.
# shellcheck source=/dev/null
source "$1/share/scaleguard/mpi.env"
init=/usr/share/lmod/lmod/init/bash
[[ -r $init ]] || { echo "Lmod is not installed ($init): scripts/install-deps.sh" >&2; exit 1; }
set +u # Lmod's shell code is not written for set -u
# shellcheck source=/dev/null
source "$init"
export MODULEPATH=
module use "$1/share/modulefiles"
module load scaleguard
set -u
