# Which MPI-4 forms this MPI has, read from mpi.h and the library (after
# find_package(MPI)): the large-count forms (MPI_Scatter_c, ...) and the
# persistent collectives (MPI_Bcast_init, ...). MPICH 4 has both; Open MPI
# 4.1 neither (its persistent ones are MPIX_, in mpi-ext.h, which no list
# names). Every list of routines has them only where they exist
# (detectors/routines.h, SG_FORM_LIST), so whatever compiles the lists,
# the build (MpiFlavor.cmake) and the site INI's check (CheckBoundsIni.cmake)
# alike, gets SCALEGUARD_FORM_DEFINITIONS.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
set(CMAKE_REQUIRED_LIBRARIES ${MPI_C_LIBRARIES})
check_symbol_exists(MPI_Scatter_c mpi.h SCALEGUARD_HAVE_LARGE_COUNT)
check_symbol_exists(MPI_Bcast_init mpi.h SCALEGUARD_HAVE_PERSISTENT)
unset(CMAKE_REQUIRED_LIBRARIES)
unset(CMAKE_REQUIRED_INCLUDES)
set(SCALEGUARD_FORM_DEFINITIONS)
foreach(form IN ITEMS LARGE_COUNT PERSISTENT)
  if(SCALEGUARD_HAVE_${form})
    list(APPEND SCALEGUARD_FORM_DEFINITIONS SCALEGUARD_${form}=1)
  else()
    list(APPEND SCALEGUARD_FORM_DEFINITIONS SCALEGUARD_${form}=0)
  endif()
endforeach()
