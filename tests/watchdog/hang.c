/* Programs that hang on purpose, one way per case, for the watchdog
 * (watchdog/) to report:
 *
 *   hang CASE     (under libscaleguard.so with SCALEGUARD_WATCHDOG=SECONDS)
 *
 *   ssend_cycle      every rank MPI_Ssend to the next, then receives: a
 *                    cycle of synchronous sends (an actual deadlock)
 *   send_cycle       every rank MPI_Send of one int to the next, then
 *                    receives: a cycle that completes only where the MPI
 *                    buffers the sends (a potential deadlock)
 *   large_send_cycle the same with 4 MiB, which the MPIs do not buffer (an
 *                    actual deadlock)
 *   recv_cycle       ranks 0 and 1 each MPI_Recv from the other
 *   collectives      rank 1 in MPI_Allreduce, the others in MPI_Barrier
 *   ibarrier         rank 1 in MPI_Allreduce, the others, half a second
 *                    later, in MPI_Wait for an MPI_Ibarrier
 *   sleeping         the last rank computes (outside MPI) while the others
 *                    are in MPI_Allreduce
 *   finished         the last rank leaves out the MPI_Allreduce and ends
 *   recv_sleeping    rank 0 receives from rank 1, which computes
 *   gatherv_sleeping the last rank computes while the others are in an
 *                    MPI_Gatherv that a workaround runs (the INI's bound)
 *   alltoallw_sleeping  the last rank computes while the others are in an
 *                    MPI_Alltoallw (a datatype per block)
 *   neighbour_sleeping  the last rank computes while the others are in an
 *                    MPI_Neighbor_alltoall over a periodic ring (a rank
 *                    none of whose neighbours sleeps may finish its call)
 *   slow             a correct program: calls that wait, but less than the
 *                    limit, and a rank computing longer than the limit
 *                    while no rank is in MPI
 *
 * Rank 0 prints "hang: CASE done" before MPI_Finalize: only `slow`, and
 * `send_cycle` where the watchdog only reports, get there. `SECONDS` of the argument after CASE is how long a rank
 * computes (default 120). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, procs;

static void compute(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&t, &t) != 0)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    const char *name = argc > 1 ? argv[1] : "";
    double pause = argc > 2 ? atof(argv[2]) : 120;
    int x = rank, y = 0, last = procs - 1;
    MPI_Barrier(MPI_COMM_WORLD); /* call 1 on MPI_COMM_WORLD */
    if (strcmp(name, "ssend_cycle") == 0) {
        MPI_Ssend(&x, 1, MPI_INT, (rank + 1) % procs, 7, MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, (rank + procs - 1) % procs, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(name, "send_cycle") == 0 || strcmp(name, "large_send_cycle") == 0) {
        int n = name[0] == 'l' ? 1 << 20 : 1;
        int *out = calloc((size_t)n, sizeof *out), *in = calloc((size_t)n, sizeof *in);
        out[0] = rank;
        MPI_Send(out, n, MPI_INT, (rank + 1) % procs, 9, MPI_COMM_WORLD);
        MPI_Recv(in, n, MPI_INT, (rank + procs - 1) % procs, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in[0] != (rank + procs - 1) % procs) /* the data went as sent */
            MPI_Abort(MPI_COMM_WORLD, 3);
        free(out);
        free(in);
    } else if (strcmp(name, "recv_cycle") == 0) {
        if (rank < 2)
            MPI_Recv(&y, 1, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(name, "collectives") == 0) {
        if (rank == 1)
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(name, "ibarrier") == 0) {
        if (rank == 1)
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        else {
            MPI_Request request;
            compute(0.5); /* rank 1 reaches the limit first: the report is its */
            MPI_Ibarrier(MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    } else if (strcmp(name, "sleeping") == 0) {
        if (rank == last)
            compute(pause);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(name, "finished") == 0) {
        if (rank != last)
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(name, "recv_sleeping") == 0) {
        if (rank == 0)
            MPI_Recv(&y, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (rank == 1) {
            compute(pause);
            MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        }
    } else if (strcmp(name, "gatherv_sleeping") == 0) {
        int counts[64], displs[64], all[64];
        for (int i = 0; i < procs && i < 64; i++)
            counts[i] = 1, displs[i] = i;
        if (rank == last)
            compute(pause);
        MPI_Gatherv(&x, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (strcmp(name, "alltoallw_sleeping") == 0) {
        int counts[64], displs[64], out[64] = {0}, in[64];
        MPI_Datatype types[64];
        for (int i = 0; i < procs && i < 64; i++)
            counts[i] = 1, displs[i] = i * (int)sizeof(int), types[i] = MPI_INT;
        if (rank == last)
            compute(pause);
        MPI_Alltoallw(out, counts, displs, types, in, counts, displs, types, MPI_COMM_WORLD);
    } else if (strcmp(name, "neighbour_sleeping") == 0) {
        int periodic = 1, out[2] = {0, 0}, in[2];
        MPI_Comm ring;
        MPI_Cart_create(MPI_COMM_WORLD, 1, &procs, &periodic, 0, &ring);
        if (rank == last)
            compute(pause);
        MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring);
    } else if (strcmp(name, "slow") == 0) {
        /* a receive that waits half the limit, a rank computing past it
         * while the others compute too, then everyone meets */
        if (rank == 0)
            MPI_Recv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (rank == 1) {
            compute(pause / 2);
            MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        }
        compute(rank == last ? 1.5 * pause : 1.4 * pause);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        if (rank == 0)
            fprintf(stderr, "hang: unknown case '%s'\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        printf("hang: %s done\n", name);
    MPI_Finalize();
    return 0;
}
