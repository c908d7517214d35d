#!/bin/bash
# The site's part of every batch job ScaleGuard's launch-slurm submits: a site
# admin edits this file (installed as PREFIX/share/scaleguard/jobs/; or copy
# the folder and point SCALEGUARD_JOBS_DIR at the copy). What runs the
# program is slurm-body.sh, which is not meant to be edited.
#
# launch-slurm replaces, for each job, these placeholders (each written
# between two @ signs, as in the lines below):
#   JOB_NAME            its --job-name (default scaleguard)
#   PROCS               ranks: one task each, one CPU per task
#   NODES               nodes (the launcher's --nodes, 1 by default)
#   TASKS_PER_NODE      ranks per node: in blocks, the last node may have
#                       fewer
#   TIME_MINUTES        the time limit in whole minutes, rounded up, plus one:
#                       the job enforces the launcher's second-level limit
#                       itself, Slurm's limit is only the backstop
#   MEMORY_MB           --memory-limit in MiB (rounded up) per node: the
#                       whole job's on one node, else its ranks' share on
#                       the fullest node
#   MEMORY_PER_TASK_MB  --memory-limit divided among the ranks
#   LOG                 the launcher's --log file (opened for appending)
# A line with a memory placeholder is left out of a job without
# --memory-limit. Lines starting "##SBATCH" are inactive: remove one "#" to
# use one. Keep every #SBATCH line above the first command; the commands at
# the end run before the program.
#
#SBATCH --job-name=@JOB_NAME@
#SBATCH --ntasks=@PROCS@
#SBATCH --cpus-per-task=1
#SBATCH --time=@TIME_MINUTES@
#SBATCH --output="@LOG@"
#SBATCH --nodes=@NODES@
#SBATCH --ntasks-per-node=@TASKS_PER_NODE@
# --mem is per node (the launcher divides for jobs that span nodes); a site
# that accounts per CPU can swap it for the --mem-per-cpu line.
#SBATCH --mem=@MEMORY_MB@
##SBATCH --mem-per-cpu=@MEMORY_PER_TASK_MB@
##SBATCH --partition=NAME
##SBATCH --account=NAME
##SBATCH --qos=NAME
##SBATCH --reservation=NAME
##SBATCH --constraint=FEATURE
##SBATCH --exclusive
##SBATCH --switches=1

# Site set-up before the run. The job's shell is not a login shell, so
# `module` exists only once the script reads Lmod's set-up, e.g.:
#   source /usr/share/lmod/lmod/init/bash   # Debian's lmod; elsewhere $LMOD_PKG/init/bash
#   module load mpi/openmpi
