/* MPI_Init and MPI_Finalize alone: what the layer itself leaves behind. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    if (rank == 0)
        printf("init_finalize: done\n");
    return 0;
}
