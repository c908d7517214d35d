# Which MPI this tree is built for, and the launcher that goes with it.
#
# FindMPI honours MPI_C_COMPILER but still reports the unversioned
# /usr/bin/mpiexec, which on Debian belongs to whichever MPI the alternatives
# point at. So the flavour is read from mpi.h itself and the launcher is looked
# up by the flavour's own name next to the compiler wrapper.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
check_symbol_exists(OPEN_MPI mpi.h SCALEGUARD_HAVE_OPEN_MPI)
check_symbol_exists(MPICH_VERSION mpi.h SCALEGUARD_HAVE_MPICH)
unset(CMAKE_REQUIRED_INCLUDES)
include(${CMAKE_CURRENT_LIST_DIR}/MpiForms.cmake)
add_compile_definitions(${SCALEGUARD_FORM_DEFINITIONS})

get_filename_component(_sg_mpicc_dir "${MPI_C_COMPILER}" DIRECTORY)
if(SCALEGUARD_HAVE_OPEN_MPI)
  set(SCALEGUARD_MPI_FLAVOR openmpi)
  # Run as root in containers and CI; more ranks than cores when probing.
  set(SCALEGUARD_MPIEXEC_FLAGS "--allow-run-as-root --oversubscribe")
  set(SCALEGUARD_MPIEXEC_ENV_FLAG "-x")
elseif(SCALEGUARD_HAVE_MPICH)
  set(SCALEGUARD_MPI_FLAVOR mpich)
  set(SCALEGUARD_MPIEXEC_FLAGS "")
  set(SCALEGUARD_MPIEXEC_ENV_FLAG "-genv")
else()
  message(FATAL_ERROR "ScaleGuard supports MPICH and Open MPI; ${MPI_C_COMPILER} is neither")
endif()

find_program(SCALEGUARD_MPIEXEC
  NAMES mpiexec.${SCALEGUARD_MPI_FLAVOR} mpirun.${SCALEGUARD_MPI_FLAVOR}
  HINTS "${_sg_mpicc_dir}" NO_CACHE REQUIRED)
message(STATUS "ScaleGuard: ${SCALEGUARD_MPI_FLAVOR} (${MPI_C_COMPILER}), launcher ${SCALEGUARD_MPIEXEC}")

# The launcher as a list, ready for add_test(): mpiexec FLAGS -n
separate_arguments(_sg_flags UNIX_COMMAND "${SCALEGUARD_MPIEXEC_FLAGS}")
set(SCALEGUARD_MPIEXEC_COMMAND ${SCALEGUARD_MPIEXEC} ${_sg_flags})

# Shell fragment for the installed drivers: what this tree was built for.
# The build tree mirrors the install layout (bin/, libexec/scaleguard/,
# share/scaleguard/) so the drivers run from it unchanged in the tests.
configure_file(${CMAKE_CURRENT_LIST_DIR}/mpi.env.in
               ${SCALEGUARD_STAGE_DIR}/${CMAKE_INSTALL_DATADIR}/scaleguard/mpi.env @ONLY)
install(FILES ${SCALEGUARD_STAGE_DIR}/${CMAKE_INSTALL_DATADIR}/scaleguard/mpi.env
        DESTINATION ${CMAKE_INSTALL_DATADIR}/scaleguard)
