#!/bin/sh
# rank-config.sh PRELOAD CONFIG0,CONFIG1,... COMMAND [ARG...]
# One process of an MPI job: run COMMAND under LD_PRELOAD=PRELOAD with
# SCALEGUARD_CONFIG set to the entry of this process's rank in the list
# ("-": unset), as a node without the file or a typo in one copy would make
# it. The rank comes from the launcher (MPICH: PMI_RANK, Open MPI:
# OMPI_COMM_WORLD_RANK); the preload is set here, not for this shell.
preload=$1 configs=$2
shift 2
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-}}
if [ -z "$rank" ]; then
    echo "rank-config.sh: no PMI_RANK or OMPI_COMM_WORLD_RANK: not started by mpiexec?" >&2
    exit 2
fi
config=$(printf '%s\n' "$configs" | cut -d, -f"$((rank + 1))")
if [ "$config" = - ] || [ -z "$config" ]; then
    unset SCALEGUARD_CONFIG
else
    SCALEGUARD_CONFIG=$config
    export SCALEGUARD_CONFIG
fi
LD_PRELOAD=$preload
export LD_PRELOAD
exec "$@"
