/* The running MPI's library (library.h). */
#include "library.h"

#include <string.h>

void sg_mpi_library_line(char line[MPI_MAX_LIBRARY_VERSION_STRING])
{
    int length = 0;
    if (PMPI_Get_library_version(line, &length) != MPI_SUCCESS)
        length = 0;
    line[length] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
}
