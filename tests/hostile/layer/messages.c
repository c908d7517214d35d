/* Calls that meet forced bounds (messages.ini), for the layer's messages
 * and their counts at P = 4: Reduce of doubles (which no workaround may
 * split) to every root on MPI_COMM_WORLD and on two halves of it, one
 * Allreduce of doubles, one Bcast on MPI_COMM_WORLD and one on
 * MPI_COMM_SELF. Rank 0 prints whether every rank's results were right. */
#include <mpi.h>
#include <stdio.h>

#define COUNT 8

/* Reduce to each root of comm; returns the wrong results on this rank. */
static int reduce_to_every_root(MPI_Comm comm)
{
    int rank, procs, wrong = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &procs);
    double mine[COUNT], sum[COUNT];
    for (int i = 0; i < COUNT; i++)
        mine[i] = rank + i;
    for (int root = 0; root < procs; root++) {
        MPI_Reduce(mine, sum, COUNT, MPI_DOUBLE, MPI_SUM, root, comm);
        for (int i = 0; rank == root && i < COUNT; i++)
            wrong += sum[i] != procs * (procs - 1) / 2.0 + procs * i;
    }
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, procs, wrong = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);

    wrong += reduce_to_every_root(MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    wrong += reduce_to_every_root(half);
    MPI_Comm_free(&half);

    double mine[COUNT], sum[COUNT];
    for (int i = 0; i < COUNT; i++)
        mine[i] = rank;
    MPI_Allreduce(mine, sum, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < COUNT; i++)
        wrong += sum[i] != procs * (procs - 1) / 2.0;

    int values[COUNT];
    for (int i = 0; i < COUNT; i++)
        values[i] = rank == 1 ? 10 * i : -1;
    MPI_Bcast(values, COUNT, MPI_INT, 1, MPI_COMM_WORLD);
    for (int i = 0; i < COUNT; i++)
        wrong += values[i] != 10 * i;
    MPI_Bcast(values, COUNT, MPI_INT, 0, MPI_COMM_SELF);

    int wrong_anywhere = 0;
    MPI_Reduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("messages: %d wrong results on %d ranks\n", wrong_anywhere, procs);
    MPI_Finalize();
    return 0;
}
