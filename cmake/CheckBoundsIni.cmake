# sg_check_bounds_ini(<file>)
# At configure time, before a site INI is installed (-DSCALEGUARD_BOUNDS_INI):
# builds scaleguard-ini from this source tree against this MPI (nothing is
# built yet) and runs `scaleguard-ini check --strict <file>`. A file it
# rejects stops the configuration with its message (file:line), since every
# job would otherwise run on that file with Class D protection only. Needs
# MPI::MPI_C and PkgConfig::INIH (the project's find_package and
# pkg_check_modules).
set(SG_CHECK_BOUNDS_INI_SOURCE ${CMAKE_CURRENT_LIST_DIR}/..)
# the routines of this MPI's forms, as the build's scaleguard-ini knows them
include(${CMAKE_CURRENT_LIST_DIR}/MpiForms.cmake)

function(sg_check_bounds_ini file)
  set(source ${SG_CHECK_BOUNDS_INI_SOURCE})
  list(TRANSFORM SCALEGUARD_FORM_DEFINITIONS PREPEND -D OUTPUT_VARIABLE forms)
  set(sources configs/scaleguard-ini.c configs/bounds.c configs/bounds_replace.c configs/cvars.c
              fingerprint/algorithms.c fingerprint/library.c detectors/displs.c detectors/trigger.c
              detectors/classify.c detectors/routines.c files/safe_file.c)
  list(TRANSFORM sources PREPEND ${source}/)
  set(includes ${source}/configs ${source}/fingerprint ${source}/detectors ${source}/files)
  try_run(run_status compiled SOURCES ${sources} NO_CACHE
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${includes}"
    COMPILE_DEFINITIONS -D_POSIX_C_SOURCE=200809L "-DSCALEGUARD_VERSION=\"(check)\""
                        ${forms}
    LINK_LIBRARIES PkgConfig::INIH MPI::MPI_C
    C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
    COMPILE_OUTPUT_VARIABLE compile_output
    RUN_OUTPUT_STDOUT_VARIABLE checked
    RUN_OUTPUT_STDERR_VARIABLE complaints
    ARGS check --strict ${file})
  if(NOT compiled)
    message(FATAL_ERROR "SCALEGUARD_BOUNDS_INI: could not build scaleguard-ini to check "
                        "${file}:\n${compile_output}")
  endif()
  # indented, so that CMake prints the lines unwrapped
  string(STRIP "${complaints}" complaints)
  string(REPLACE "\n" "\n  " complaints "${complaints}")
  if(NOT run_status EQUAL 0)
    message(FATAL_ERROR "SCALEGUARD_BOUNDS_INI is not a valid bounds INI (scaleguard-ini "
                        "check --strict):\n  ${complaints}")
  endif()
  if(complaints)
    message(WARNING "SCALEGUARD_BOUNDS_INI:\n  ${complaints}")
  endif()
  string(STRIP "${checked}" checked)
  message(STATUS "SCALEGUARD_BOUNDS_INI: ${checked}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
endfunction()
