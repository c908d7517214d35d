/* crossed_waits: waiting for one layer request moves the others on.
 *
 *   crossed_waits           (P >= 2, even; MPI_Iallreduce under W1-A)
 *
 * Two MPI_Iallreduce calls, A then B, each run by the layer in stages that
 * start from its request (W1-A's later steps take the earlier ones' results:
 * workarounds/runner.h). Even ranks wait for A and then B, odd ranks for B
 * and then A. A rank waiting for A alone would never start B's next stage,
 * which the odd ranks wait for while they hold A's back: the MPI's progress
 * rule asks that waiting for one request moves the others on (Open MPI does
 * not poll generalized requests; MPICH does). A blocking MPI_Allreduce of
 * the same vector comes first: W1-A's communicators are made in blocking
 * calls, and an I-call runs W1-A only over those (workarounds/w1a.h).
 * Checked: every element of both results. Exit 0, or 1 with a message; a
 * hang fails by the test's limit. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 1001

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int *in = malloc(2 * COUNT * sizeof *in), *out = malloc(2 * COUNT * sizeof *out);
    if (in == NULL || out == NULL || procs % 2 != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < 2 * COUNT; i++) {
        in[i] = rank * 7 + i;
        out[i] = -1;
    }
    MPI_Allreduce(in, out, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Request request[2];
    for (int k = 0; k < 2; k++)
        MPI_Iallreduce(in + k * COUNT, out + k * COUNT, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                       &request[k]);
    int first = rank % 2;
    MPI_Wait(&request[first], MPI_STATUS_IGNORE);
    MPI_Wait(&request[1 - first], MPI_STATUS_IGNORE);

    int wrong = 0;
    for (int i = 0; i < 2 * COUNT; i++) /* sum over r of r * 7 + i */
        wrong += out[i] != 7 * procs * (procs - 1) / 2 + procs * i;
    if (wrong)
        fprintf(stderr, "crossed_waits: rank %d: %d elements wrong\n", rank, wrong);
    else if (rank == 0)
        printf("crossed_waits: P=%d: both requests complete and right\n", procs);
    free(in);
    free(out);
    MPI_Finalize();
    return wrong != 0;
}
