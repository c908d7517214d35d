/* Proves the build picked the launcher of its own MPI: started with the
 * tree's launcher, every rank must see the expected world size and a library
 * of the expected flavour. A mismatched mpiexec starts N singletons instead. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s mpich|openmpi EXPECTED_SIZE\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int size, rank, length;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_library_version(version, &length);
    const char *marker = strcmp(argv[1], "openmpi") == 0 ? "Open MPI" : "MPICH";
    int ok = size == atoi(argv[2]) && strstr(version, marker) != NULL;
    if (!ok)
        fprintf(stderr, "rank %d: size %d, library \"%.60s\"; expected size %s and %s\n", rank,
                size, version, argv[2], marker);
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
