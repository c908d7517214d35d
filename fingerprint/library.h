/* The running MPI's library, as a bounds INI's [platform] mpi_library names
 * it: the tester writes it (scaleguard-cvars), the layer compares it
 * (compare.c), W4's check names it (algorithms.c). */
#ifndef SCALEGUARD_FINGERPRINT_LIBRARY_H
#define SCALEGUARD_FINGERPRINT_LIBRARY_H

#include <mpi.h>

/* MPI_Get_library_version's first line (the tester cuts it at 150
 * characters for the INI); "" where the MPI does not say. Any time, even
 * before MPI_Init. */
void sg_mpi_library_line(char line[MPI_MAX_LIBRARY_VERSION_STRING]);

#endif
