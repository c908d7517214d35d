# shellcheck shell=bash
# shellcheck disable=SC2154 # the sg_* values come from launch-slurm
# The probe's part of every batch job launch-slurm submits; it follows
# slurm-header.sh and the values launch-slurm sets for the job:
#   sg_procs       ranks
#   sg_nodes       nodes
#   sg_mpi         srun's --mpi plugin for this tree's MPI (pmi2, pmix)
#   sg_time_limit  seconds (a fraction is fine)
#   sg_env         NAME=VALUE for every rank (array)
#   sg_preload     the ranks' LD_PRELOAD, colon-separated (may be empty)
#   sg_program     the program and its arguments (array)
# Not for site changes (those go in slurm-header.sh): launch-slurm reads the
# "scaleguard-job:" line this writes to the log.
#
# The program runs as one srun step under `timeout`, because Slurm's own
# limit is whole minutes checked every 30 s. --kill-on-bad-exit ends the
# other ranks as soon as one fails. Every rank starts through env, so its
# LD_PRELOAD is exactly sg_preload and srun itself is not preloaded.
set -uo pipefail

rank_env=("${sg_env[@]}")
if [[ -n $sg_preload ]]; then
  rank_env+=("LD_PRELOAD=$sg_preload")
fi

started=$EPOCHREALTIME
timeout --kill-after=2 "$sg_time_limit" \
  srun --ntasks="$sg_procs" --nodes="$sg_nodes" --kill-on-bad-exit=1 --mpi="$sg_mpi" \
  env -u LD_PRELOAD "${rank_env[@]}" "${sg_program[@]}"
status=$?
ended=$EPOCHREALTIME
microseconds=$((10#${ended/./} - 10#${started/./}))
# timeout's own 124 (137 after --kill-after) tells launch-slurm, with the
# time taken, that the limit was hit.
printf 'scaleguard-job: srun-exit=%d seconds=%d.%06d\n' \
  "$status" $((microseconds / 1000000)) $((microseconds % 1000000))
exit "$status"
