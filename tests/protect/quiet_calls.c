/* quiet_calls: a call whose scalar facts repeat those of a call that could
 * not trigger is known quiet without a look (protect.c: quiet_calls); one
 * that differs in its number of processes or its datatype only is not.
 *
 *   quiet_calls   (P = 4; root 0)
 *
 * MPI_Scatter of 1,000 bytes per rank over half of the ranks (s n P =
 * 2,000), then over all four (4,000); of 500 bytes over all four (2,000),
 * twice (the second repeats a quiet call: where no summary counts, the
 * wrapper passes it before the handler), then of 500 ints (8,000). Under a
 * bound of 3,000 the second and the last trigger. Every received byte is
 * checked. Exit 0, or 1 naming the first wrong one. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 1000

static int scatter(int count, MPI_Datatype type, MPI_Comm comm, const char *what)
{
    int procs, rank, size;
    MPI_Comm_size(comm, &procs);
    MPI_Comm_rank(comm, &rank);
    MPI_Type_size(type, &size);
    size_t block = (size_t)count * (size_t)size;
    unsigned char *all = malloc(block * (size_t)procs), *mine = malloc(block);
    for (size_t i = 0; i < block * (size_t)procs; i++)
        all[i] = (unsigned char)(i * 7 + 1);
    MPI_Scatter(all, count, type, mine, count, type, 0, comm);
    int bad = 0;
    for (size_t i = 0; i < block && !bad; i++)
        if (mine[i] != all[(size_t)rank * block + i]) {
            fprintf(stderr, "quiet_calls: %s: rank %d's byte %zu is %d, not %d\n", what, rank, i,
                    mine[i], all[(size_t)rank * block + i]);
            bad = 1;
        }
    free(all);
    free(mine);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    bad |= scatter(COUNT, MPI_BYTE, half, "1000 bytes over 2 ranks");
    bad |= scatter(COUNT, MPI_BYTE, MPI_COMM_WORLD, "1000 bytes over 4 ranks");
    bad |= scatter(COUNT / 2, MPI_BYTE, MPI_COMM_WORLD, "500 bytes over 4 ranks");
    bad |= scatter(COUNT / 2, MPI_BYTE, MPI_COMM_WORLD, "500 bytes over 4 ranks again");
    bad |= scatter(COUNT / 2, MPI_INT, MPI_COMM_WORLD, "500 ints over 4 ranks");
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        fprintf(stderr, "quiet_calls: every byte in place\n");
    MPI_Comm_free(&half);
    MPI_Finalize();
    return any;
}
