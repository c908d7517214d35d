# Helpers for tests that start MPI jobs with this tree's launcher.

# sg_mpi_launch(<var> PROCS <n> [NODES <k>] [ENV NAME=VALUE...])
# Sets <var> to the launcher command for <n> ranks with each NAME=VALUE
# passed to every rank, the way this MPI's launcher takes it: Open MPI
# `-x NAME=VALUE`, MPICH `-genv NAME VALUE`.
# NODES <k>: the ranks on the first <k> hosts of the test cluster
# (tests/cluster/CMakeLists.txt: its cluster_hosts and cluster_prefix, in
# the caller's scope), ceil(n/k) per host in blocks (ranks 0, 1, ... on the
# first), started through the cluster's node-ssh, as
# tester/launchers/launch-local does: MPICH `-launcher ssh -launcher-exec
# SSH -hosts h1:c,h2:c`, Open MPI `--mca plm_rsh_agent SSH --host h1:c,...`.
function(sg_mpi_launch var)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "PROCS;NODES" "ENV")
  set(launch ${SCALEGUARD_MPIEXEC_COMMAND} -n ${L_PROCS})
  if(L_NODES)
    string(REPLACE "," ";" hosts "${cluster_hosts}")
    list(LENGTH hosts known)
    if(NOT cluster_prefix OR known LESS L_NODES)
      message(FATAL_ERROR "sg_mpi_launch NODES ${L_NODES}: only in tests/cluster, whose "
                          "cluster_hosts has ${known} hosts")
    endif()
    math(EXPR per_host "(${L_PROCS} + ${L_NODES} - 1) / ${L_NODES}")
    math(EXPR last "${L_NODES} - 1")
    set(host_slots)
    foreach(node RANGE ${last})
      list(GET hosts ${node} host)
      list(APPEND host_slots ${host}:${per_host})
    endforeach()
    list(JOIN host_slots , host_slots)
    if(SCALEGUARD_MPI_FLAVOR STREQUAL "openmpi")
      list(APPEND launch --mca plm_rsh_agent ${cluster_prefix}/bin/node-ssh --host ${host_slots})
    else()
      list(APPEND launch -launcher ssh -launcher-exec ${cluster_prefix}/bin/node-ssh
                  -hosts ${host_slots})
    endif()
  endif()
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
# SCALEGUARD_TEST_CHECKS=ON runs them with the collective checks on instead
# (every job the layer is in: no test may see a mismatch; README, Tests).
option(SCALEGUARD_TEST_CHECKS "Run the MPI tests with SCALEGUARD_CHECK=collectives" OFF)
set(SG_MPI_TEST_CLEAN_ENV
  "LD_PRELOAD=unset:;SCALEGUARD_CONFIG=unset:;SCALEGUARD_LOG=unset:;SCALEGUARD_FAULT_ROUTINES=unset:;SCALEGUARD_FAULT_TRIGGER=unset:;SCALEGUARD_FAULT_BOUND=unset:;SCALEGUARD_FAULT_KIND=unset:;SCALEGUARD_FAULT_X=unset:;SCALEGUARD_FAULT_LOG=unset:;SCALEGUARD_CHECK_ACTION=unset:")
if(SCALEGUARD_TEST_CHECKS)
  string(APPEND SG_MPI_TEST_CLEAN_ENV ";SCALEGUARD_CHECK=set:collectives")
else()
  string(APPEND SG_MPI_TEST_CLEAN_ENV ";SCALEGUARD_CHECK=unset:")
endif()
# SCALEGUARD_TEST_WATCHDOG=<seconds> runs them under the watchdog, which
# ends any job with a call longer than that (no test may hang, nor wait
# that long in one call; README, Tests).
set(SCALEGUARD_TEST_WATCHDOG "" CACHE STRING
    "Run the MPI tests with SCALEGUARD_WATCHDOG=<seconds>, action abort (empty: off)")
if(SCALEGUARD_TEST_WATCHDOG)
  string(APPEND SG_MPI_TEST_CLEAN_ENV ";SCALEGUARD_WATCHDOG=set:${SCALEGUARD_TEST_WATCHDOG}"
         ";SCALEGUARD_WATCHDOG_ACTION=set:abort"
         ";SCALEGUARD_WATCHDOG_DIR=set:${CMAKE_BINARY_DIR}/watchdog-states")
else()
  string(APPEND SG_MPI_TEST_CLEAN_ENV
         ";SCALEGUARD_WATCHDOG=unset:;SCALEGUARD_WATCHDOG_ACTION=unset:;SCALEGUARD_WATCHDOG_DIR=unset:")
endif()

# sg_expect_test(<name> PROCS <n> [NODES <k>] [ENV NAME=VALUE...]
#                EXPECT <status> <pattern> [--also <pattern>]... [--not <pattern>]...
#                RUN <program> [<argument>...]
#                [STDOUT] [TIMEOUT <seconds>] [PROCESSORS <n>] [WRAP <command>...])
# One MPI test: <program> on <n> ranks, each NAME=VALUE in every rank's
# environment (sg_mpi_launch), under tests/fault/expect.sh, which checks
# the exit status and what standard error says (STDOUT: the job's standard
# output too, after it). Label mpi, 60 s unless TIMEOUT, from a clean environment.
# WRAP: a command the launcher runs under (timeout ...). NODES <k>: across
# the test cluster's first <k> hosts (sg_mpi_launch), label cluster, with
# its fixture.
# SG_STDOUT_AFTER COMMAND...: COMMAND's standard output after its standard
# error, both on standard error (tests/fault/stdout-after.sh), for
# expect.sh to check both: merged as they come, a line of one stream can
# land inside a line of the other.
set(SG_STDOUT_AFTER sh ${PROJECT_SOURCE_DIR}/tests/fault/stdout-after.sh)

function(sg_expect_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "STDOUT" "PROCS;NODES;TIMEOUT;PROCESSORS"
                        "ENV;EXPECT;RUN;WRAP")
  sg_mpi_launch(launch PROCS ${T_PROCS} NODES ${T_NODES} ENV ${T_ENV})
  set(to_stderr)
  if(T_STDOUT)
    set(to_stderr ${SG_STDOUT_AFTER})
  endif()
  add_test(NAME ${name}
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/fault/expect.sh ${T_EXPECT} ${to_stderr}
                   ${T_WRAP} ${launch} ${T_RUN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS mpi TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT_MODIFICATION "${SG_MPI_TEST_CLEAN_ENV}")
  if(T_NODES)
    set_tests_properties(${name} PROPERTIES LABELS cluster FIXTURES_REQUIRED cluster)
  endif()
  if(T_PROCESSORS)
    set_tests_properties(${name} PROPERTIES PROCESSORS ${T_PROCESSORS})
  endif()
endfunction()

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

# sg_every_routine_ini(<file> TRIGGER <form> BOUND <n> WORKAROUND <name>
#                      [REDUCE_SCATTER_BOUND <n>] [ENTRY_EXTRA <text>] [COMMENT <text>])
# Writes a bounds INI with a class G entry for each collective
# (the rows of detectors/routines.h: each family's blocking and I-form, and its
# large-count and persistent forms where the MPI has them), all
# with the same trigger, bound and workaround; Reduce_scatter(_block) with
# REDUCE_SCATTER_BOUND where given (their n is the whole vector). The tests
# that make a workaround fire on almost every call share it.
function(sg_every_routine_ini file)
  cmake_parse_arguments(PARSE_ARGV 1 I "" "TRIGGER;BOUND;WORKAROUND;REDUCE_SCATTER_BOUND;ENTRY_EXTRA;COMMENT" "")
  file(READ ${PROJECT_SOURCE_DIR}/detectors/routines.h rows)
  string(REGEX MATCHALL "F\\(X, [A-Za-z_]+, [A-Za-z_]+," families "${rows}")
  file(RELATIVE_PATH by ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_LIST_FILE})
  set(ini "; Generated by ${by}: ${I_COMMENT}.\n; Class G, trigger ${I_TRIGGER}, bound ${I_BOUND}")
  if(I_REDUCE_SCATTER_BOUND)
    string(APPEND ini " (Reduce_scatter(_block): ${I_REDUCE_SCATTER_BOUND}, their n is the whole vector)")
  endif()
  string(APPEND ini " for every collective; workaround ${I_WORKAROUND}.\n")
  foreach(family IN LISTS families)
    string(REGEX REPLACE "F\\(X, ([A-Za-z_]+), ([A-Za-z_]+)," "\\1;\\2" names "${family}")
    list(GET names 0 blocking)
    set(bound ${I_BOUND})
    if(I_REDUCE_SCATTER_BOUND AND blocking MATCHES "^Reduce_scatter")
      set(bound ${I_REDUCE_SCATTER_BOUND})
    endif()
    list(GET names 1 nonblocking)
    if(SCALEGUARD_HAVE_PERSISTENT)
      list(APPEND names ${blocking}_init)
    endif()
    if(SCALEGUARD_HAVE_LARGE_COUNT)
      list(APPEND names ${blocking}_c ${nonblocking}_c)
      if(SCALEGUARD_HAVE_PERSISTENT)
        list(APPEND names ${blocking}_init_c)
      endif()
    endif()
    foreach(name IN LISTS names)
      string(APPEND ini "\n[MPI_${name}]\nclass = G\ntrigger = ${I_TRIGGER}\nbound = ${bound}\n"
                        "${I_ENTRY_EXTRA}workaround = ${I_WORKAROUND}\n")
    endforeach()
  endforeach()
  file(WRITE ${file} "${ini}")
endfunction()

# sg_blocking_form(<var> <routine>): the routine of the same counts that
# does not return a request, of an I-form (MPI_Iscatter -> MPI_Scatter,
# MPI_Iscatter_c -> MPI_Scatter_c), from the rows of detectors/routines.h.
function(sg_blocking_form var routine)
  file(READ ${PROJECT_SOURCE_DIR}/detectors/routines.h rows)
  string(REGEX REPLACE "^MPI_" "" name ${routine})
  set(large "")
  if(name MATCHES "_c$")
    string(REGEX REPLACE "_c$" "" name ${name})
    set(large "_c")
  endif()
  string(REGEX MATCH "F\\(X, [A-Za-z_]+, ${name}," family "${rows}")
  if(NOT family)
    message(FATAL_ERROR "sg_blocking_form: ${routine} is no I-form of detectors/routines.h")
  endif()
  string(REGEX REPLACE "F\\(X, ([A-Za-z_]+), .*" "MPI_\\1${large}" blocking "${family}")
  set(${var} ${blocking} PARENT_SCOPE)
endfunction()

# sg_w1a_entries(<ini_var> <options_var> <routine> <keys>): the INI text of
# an entry with <keys> for <routine> and, for an I-form, the same for its
# blocking routine, with scaleguard-bench's --blocking-first in
# <options_var>: W1-A's communicators are made by a blocking call, which an
# I-form call then runs over (workarounds/w1a.h).
function(sg_w1a_entries ini_var options_var routine keys)
  set(ini "[${routine}]\n${keys}")
  set(options "")
  if(routine MATCHES "^MPI_I")
    sg_blocking_form(blocking ${routine})
    string(APPEND ini "\n[${blocking}]\n${keys}")
    set(options --blocking-first)
  endif()
  set(${ini_var} "${ini}" PARENT_SCOPE)
  set(${options_var} "${options}" PARENT_SCOPE)
endfunction()
