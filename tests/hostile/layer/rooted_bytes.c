/* Each rooted routine once with root 1, then in place, and an Allreduce:
 * the trace's bytes sent and received of a root and a non-root. 8 ints (32
 * bytes) a block. */
#include <mpi.h>
#include <stdio.h>

#define BLOCK 8
#define MOST_PROCS 16

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    if (procs > MOST_PROCS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int one[BLOCK] = {0}, all[BLOCK * MOST_PROCS] = {0};
    int root = 1, is_root = rank == root;
    MPI_Bcast(one, BLOCK, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Reduce(one, all, BLOCK, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    MPI_Reduce(is_root ? MPI_IN_PLACE : one, all, BLOCK, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    MPI_Scatter(all, BLOCK, MPI_INT, one, BLOCK, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Scatter(all, BLOCK, MPI_INT, is_root ? MPI_IN_PLACE : one, BLOCK, MPI_INT, root,
                MPI_COMM_WORLD);
    MPI_Gather(one, BLOCK, MPI_INT, all, BLOCK, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Gather(is_root ? MPI_IN_PLACE : one, BLOCK, MPI_INT, all, BLOCK, MPI_INT, root,
               MPI_COMM_WORLD);
    MPI_Request request;
    MPI_Ibcast(one, BLOCK, MPI_INT, root, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Allreduce(one, all, BLOCK, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("rooted_bytes: done\n");
    return 0;
}
