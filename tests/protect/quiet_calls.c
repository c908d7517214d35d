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
 * bound of 3,000 the second and the last trigger. Then MPI_Reduce_scatter
 * of 10 ints per rank (s n P = 640), twice from one counts array, and from
 * the same array rewritten to 100 per rank (6,400): only the total of the
 * counts is remembered, so the last triggers. Every received byte and sum
 * is checked. Exit 0, or 1 naming the first wrong one. */
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

/* Reduce_scatter of `each` ints per rank: rank r's element j of its
 * block is the sum over the ranks q of q * 1000 + r * each + j. */
static int reduce_scatter(int *counts, int each, const char *what)
{
    int procs, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < procs; i++)
        counts[i] = each;
    int *in = malloc(sizeof *in * (size_t)(each * procs)), *out = malloc(sizeof *out * (size_t)each);
    for (int i = 0; i < each * procs; i++)
        in[i] = rank * 1000 + i;
    MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int bad = 0;
    for (int j = 0; j < each && !bad; j++) {
        int expected = 1000 * procs * (procs - 1) / 2 + procs * (rank * each + j);
        if (out[j] != expected) {
            fprintf(stderr, "quiet_calls: %s: rank %d's int %d is %d, not %d\n", what, rank, j,
                    out[j], expected);
            bad = 1;
        }
    }
    free(in);
    free(out);
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
    int counts[4];
    bad |= reduce_scatter(counts, 10, "10 ints per rank");
    bad |= reduce_scatter(counts, 10, "10 ints per rank again");
    bad |= reduce_scatter(counts, 100, "100 ints per rank, the same counts array");
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        fprintf(stderr, "quiet_calls: every byte in place\n");
    MPI_Comm_free(&half);
    MPI_Finalize();
    return any;
}
