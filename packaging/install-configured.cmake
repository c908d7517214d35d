# Included by cmake_install.cmake (packaging/CMakeLists.txt): writes the
# pkg-config file and the Lmod modulefile for the prefix being installed to
# (CMAKE_INSTALL_PREFIX, which `cmake --install --prefix` sets) and installs
# them like any other file (DESTDIR and the install manifest included).
# Set by the caller: SG_VERSION SG_MPI_FLAVOR SG_MPI_DESCRIPTION SG_MPIEXEC_NAME
# SG_SRUN_MPI SG_TEMPLATE_DIR SG_WORK_DIR SG_BINDIR SG_LIBDIR SG_DATADIR (the last three as
# GNUInstallDirs has them: relative to the prefix, or absolute).
cmake_path(ABSOLUTE_PATH CMAKE_INSTALL_PREFIX NORMALIZE OUTPUT_VARIABLE SG_PREFIX)
string(REGEX REPLACE "(.)/$" "\\1" SG_PREFIX "${SG_PREFIX}")
foreach(dir BINDIR LIBDIR DATADIR)
  cmake_path(ABSOLUTE_PATH SG_${dir} BASE_DIRECTORY "${SG_PREFIX}" NORMALIZE
             OUTPUT_VARIABLE SG_${dir}_ABSOLUTE)
endforeach()
# pkg-config: libdir under ${prefix} when it is, so --define-prefix works.
if(IS_ABSOLUTE "${SG_LIBDIR}")
  set(SG_PC_LIBDIR "${SG_LIBDIR_ABSOLUTE}")
else()
  set(SG_PC_LIBDIR "\${prefix}/${SG_LIBDIR}")
endif()

configure_file("${SG_TEMPLATE_DIR}/scaleguard.pc.in" "${SG_WORK_DIR}/scaleguard.pc" @ONLY)
configure_file("${SG_TEMPLATE_DIR}/scaleguard.lua.in"
               "${SG_WORK_DIR}/${SG_VERSION}-${SG_MPI_FLAVOR}.lua" @ONLY)
file(INSTALL "${SG_WORK_DIR}/scaleguard.pc" DESTINATION "${SG_LIBDIR_ABSOLUTE}/pkgconfig")
file(INSTALL "${SG_WORK_DIR}/${SG_VERSION}-${SG_MPI_FLAVOR}.lua"
     DESTINATION "${SG_DATADIR_ABSOLUTE}/modulefiles/scaleguard")
