# Helpers for tests that start MPI jobs with this tree's launcher.

# sg_mpi_launch(<var> PROCS <n> [ENV NAME=VALUE...])
# Sets <var> to the launcher command for <n> ranks with each NAME=VALUE
# passed to every rank, the way this MPI's launcher takes it: Open MPI
# `-x NAME=VALUE`, MPICH `-genv NAME VALUE`.
function(sg_mpi_launch var)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "PROCS" "ENV")
  set(launch ${SCALEGUARD_MPIEXEC_COMMAND} -n ${L_PROCS})
  foreach(setting IN LISTS L_ENV)
    if(SCALEGUARD_MPI_FLAVOR STREQUAL "openmpi")
      list(APPEND launch ${SCALEGUARD_MPIEXEC_ENV_FLAG} "${setting}")
    else()
      string(FIND "${setting}" "=" equals)
      string(SUBSTRING "${setting}" 0 ${equals} variable)
      math(EXPR equals "${equals} + 1")
      string(SUBSTRING "${setting}" ${equals} -1 value)
      list(APPEND launch ${SCALEGUARD_MPIEXEC_ENV_FLAG} "${variable}" "${value}")
    endif()
  endforeach()
  set(${var} ${launch} PARENT_SCOPE)
endfunction()

# MPICH's launcher forwards the caller's whole environment: tests start from
# one without the project's own variables (ENVIRONMENT_MODIFICATION value).
set(SG_MPI_TEST_CLEAN_ENV
  "LD_PRELOAD=unset:;SCALEGUARD_CONFIG=unset:;SCALEGUARD_LOG=unset:;SCALEGUARD_FAULT_ROUTINES=unset:;SCALEGUARD_FAULT_TRIGGER=unset:;SCALEGUARD_FAULT_BOUND=unset:;SCALEGUARD_FAULT_KIND=unset:;SCALEGUARD_FAULT_X=unset:;SCALEGUARD_FAULT_LOG=unset:")

# What standard error says when a rank dies of SIGSEGV, for the negative
# controls that expect a crash: MPICH (over UCX) "Caught signal 11
# (Segmentation fault: ...", from UCX's handler (hydra's own report goes to
# standard output); Open MPI "... exited on signal 11 (Segmentation fault)".
# Exit statuses differ (MPICH 11, Open MPI 1 or 139).
set(SG_MPI_SEGV "signal 11 \\(Segmentation fault")

# A rank reached memory outside the buffers: SIGSEGV, or (MPICH over UCX,
# whose large messages between ranks are copied by the kernel) UCX's fatal
# error on process_vm_readv: "... returned -1: Bad address".
set(SG_MPI_WILD_ACCESS "${SG_MPI_SEGV}|process_vm_readv.* returned -1: Bad address")
