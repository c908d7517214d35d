/* w2_factors: W2's Allgatherv where the ranks' receive layouts differ, so
 * each rank's W2 factor (the gcd of its counts and displacements) differs.
 *
 *   w2_factors allgatherv|iallgatherv   (P = 4)
 *
 * Every rank sends COUNT MPI_CHAR; rank r places block i at i * stride[r]:
 * 3000, 4000, 3500 and 3300 apart, factors 3000, 1000, 500 and 300. W2
 * receives in elements of that many chars and sends this rank's message in
 * elements of the same size (its sgfault line: "sends COUNT/k x k B"), so
 * the message sizes MPI sees are the bare call's on every rank. Exit 0 when
 * every block arrived and no byte between blocks changed, or 1 naming the
 * first wrong byte. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 3000

static const int stride[] = {3000, 4000, 3500, 3300};

static unsigned char value(int rank, int j) { return (unsigned char)(rank * 31 + j * 7); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int procs, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int nonblocking = argc > 1 && strcmp(argv[1], "iallgatherv") == 0;
    if (procs != 4 || argc != 2 || (!nonblocking && strcmp(argv[1], "allgatherv") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: w2_factors allgatherv|iallgatherv  (P = 4)\n");
        MPI_Finalize();
        return 2;
    }
    int counts[4], displs[4];
    for (int i = 0; i < 4; i++) {
        counts[i] = COUNT;
        displs[i] = i * stride[rank];
    }
    unsigned char send[COUNT], *recv = calloc((size_t)(3 * stride[rank] + COUNT), 1);
    if (recv == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int j = 0; j < COUNT; j++)
        send[j] = value(rank, j);
    if (nonblocking) {
        MPI_Request request;
        MPI_Iallgatherv(send, COUNT, MPI_CHAR, recv, counts, displs, MPI_CHAR, MPI_COMM_WORLD,
                        &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else {
        MPI_Allgatherv(send, COUNT, MPI_CHAR, recv, counts, displs, MPI_CHAR, MPI_COMM_WORLD);
    }
    int wrong = 0; /* every block's bytes, and the gaps between them untouched */
    for (int at = 0; at < 3 * stride[rank] + COUNT && !wrong; at++) {
        int i = at / stride[rank], j = at % stride[rank];
        int expected = j < COUNT ? value(i, j) : 0;
        if (recv[at] != expected) {
            fprintf(stderr, "w2_factors: rank %d: byte %d (block %d, %d) is %d, expected %d\n",
                    rank, at, i, j, recv[at], expected);
            wrong = 1;
        }
    }
    free(recv);
    int any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        fprintf(stderr, "w2_factors: %s, P=4: every byte right\n", argv[1]);
    MPI_Finalize();
    return any;
}
