/* A program that checks its own results, for a run under the
 * libscaleguard.so built for the other MPI (foreign.h): collectives with
 * predefined and derived datatypes, an I-form, point to point, a split
 * communicator. Rank 0 prints whether every rank's results were right. */
#include <mpi.h>
#include <stdio.h>

#define BLOCK 4
#define MOST_PROCS 16

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    int rank, procs, wrong = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    if (procs > MOST_PROCS)
        MPI_Abort(MPI_COMM_WORLD, 2);

    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    wrong += sum != procs * (procs - 1) / 2;

    MPI_Datatype four; /* a derived datatype: 4 ints */
    MPI_Type_contiguous(BLOCK, MPI_INT, &four);
    MPI_Type_commit(&four);
    int block[BLOCK], all[BLOCK * MOST_PROCS];
    for (int i = 0; i < BLOCK; i++)
        block[i] = rank == procs - 1 ? 100 + i : -1;
    MPI_Bcast(block, 1, four, procs - 1, MPI_COMM_WORLD);
    for (int i = 0; i < BLOCK; i++)
        wrong += block[i] != 100 + i;

    for (int i = 0; i < BLOCK; i++)
        block[i] = rank * BLOCK + i;
    int counts[MOST_PROCS], displs[MOST_PROCS];
    for (int r = 0; r < procs; r++) {
        counts[r] = BLOCK;
        displs[r] = r * BLOCK;
    }
    MPI_Allgatherv(block, BLOCK, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < BLOCK * procs; i++)
        wrong += all[i] != i;

    MPI_Request request;
    int most = -1;
    MPI_Iallreduce(&rank, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    wrong += most != procs - 1;

    int token = rank, from = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % procs, 7, &from, 1, MPI_INT,
                 (rank + procs - 1) % procs, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    wrong += from != (rank + procs - 1) % procs;

    MPI_Comm halves;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves);
    int half_sum = 0;
    MPI_Reduce(&rank, &half_sum, 1, MPI_INT, MPI_SUM, 0, halves);
    MPI_Barrier(halves);
    MPI_Comm_free(&halves);
    MPI_Type_free(&four);

    int wrong_anywhere = 0;
    MPI_Reduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("cross_mpi: %d wrong results on %d ranks\n", wrong_anywhere, procs);
    return 0;
}
