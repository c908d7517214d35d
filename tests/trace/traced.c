/* A small application whose calls the trace must show (tests/trace): it
 * counts what it calls and prints the tally per rank ("traced: rank R
 * MPI_Xxx N"), which check-trace.sh compares with the rank's trace file.
 * A ring of MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv (one from
 * MPI_ANY_SOURCE) completed by MPI_Waitall, MPI_Sendrecv, collectives on
 * MPI_COMM_WORLD and on a duplicate of it (the prefixes Scan and Exscan
 * among them), and a Gatherv (which an INI may
 * have W1-B run). `kill` ends rank 0 before MPI_Finalize, once every other
 * rank's trace (SCALEGUARD_TRACE) has its end record: the launcher then ends
 * the others, which must have written theirs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    SEND, RECV, ISEND, IRECV, WAITALL, SENDRECV, BARRIER, ALLREDUCE, BCAST, SCAN, EXSCAN, GATHERV,
    COUNTED
};
static const char *const names[COUNTED] = {
    "MPI_Send",      "MPI_Recv",  "MPI_Isend", "MPI_Irecv",  "MPI_Waitall", "MPI_Sendrecv",
    "MPI_Barrier",   "MPI_Allreduce", "MPI_Bcast", "MPI_Scan", "MPI_Exscan", "MPI_Gatherv"};
static int tally[COUNTED];

/* Whether the trace file of `rank` in `dir` ends with its end record: the
 * text "end CALLS SECONDS.NANOSECONDS", padded with zero bytes, last in the
 * binary file (trace/recorder.c, sg_trace_stop). */
static int trace_ended(const char *dir, int rank)
{
    char path[4096], tail[128 + 1] = {0};
    snprintf(path, sizeof path, "%s/rank-%d.sgtrace", dir, rank);
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return 0;
    size_t got = 0;
    if (fseek(file, -(long)(sizeof tail - 1), SEEK_END) == 0 || fseek(file, 0, SEEK_SET) == 0)
        got = fread(tail, 1, sizeof tail - 1, file);
    fclose(file);
    size_t at = got;
    while (at > 0 && tail[at - 1] == '\0')
        at--;
    while (at > 0 && tail[at - 1] != '\0' && strchr("0123456789. ", tail[at - 1]) != NULL)
        at--;
    return at >= 3 && memcmp(tail + at - 3, "end", 3) == 0;
}

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "traced: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv)
{
    int rank, procs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    int kill = argc > 2 && strcmp(argv[2], "kill") == 0;
    int next = (rank + 1) % procs, previous = (rank + procs - 1) % procs;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    /* A message that waits at rank 1, unexpected, through a barrier: what
     * an MPI's queue-length performance variables show (Open MPI's ob1).
     * The trace reads them at most once a millisecond: rank 1 waits 2 ms
     * before the barrier, so that they are read at its end. */
    int early[4] = {rank, 0, 0, 0};
    if (rank == 0 && procs > 1) {
        check(MPI_Send(early, 4, MPI_INT, 1, 999, MPI_COMM_WORLD), "MPI_Send");
        tally[SEND]++;
    }
    if (rank == 1)
        nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    tally[BARRIER]++;
    if (rank == 1) {
        check(MPI_Recv(early, 4, MPI_INT, 0, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        tally[RECV]++;
    }

    for (int round = 0; round < rounds; round++) {
        int out[4] = {rank, round, 7, 9}, in[4] = {0};
        /* the ring: even ranks send first */
        if (rank % 2 == 0) {
            check(MPI_Send(out, 4, MPI_INT, next, round, MPI_COMM_WORLD), "MPI_Send");
            check(MPI_Recv(in, 4, MPI_INT, previous, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Recv");
        } else {
            check(MPI_Recv(in, 4, MPI_INT, previous, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Recv");
            check(MPI_Send(out, 4, MPI_INT, next, round, MPI_COMM_WORLD), "MPI_Send");
        }
        tally[SEND]++, tally[RECV]++;
        if (in[0] != previous || in[1] != round)
            check(MPI_ERR_OTHER, "the ring's data");

        /* a Test that completes nothing traced: no record, the next call's
         * index still its own */
        MPI_Request none = MPI_REQUEST_NULL;
        int flag = 0;
        check(MPI_Test(&none, &flag, MPI_STATUS_IGNORE), "MPI_Test");

        /* the other way round, non-blocking; the receive from any source */
        double sent = rank + 0.5, got = -1;
        MPI_Request requests[2];
        MPI_Status statuses[2];
        check(MPI_Irecv(&got, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 100 + round, MPI_COMM_WORLD,
                        &requests[0]), "MPI_Irecv");
        check(MPI_Isend(&sent, 1, MPI_DOUBLE, previous, 100 + round, MPI_COMM_WORLD,
                        &requests[1]), "MPI_Isend");
        check(MPI_Waitall(2, requests, statuses), "MPI_Waitall");
        tally[IRECV]++, tally[ISEND]++, tally[WAITALL]++;
        if (got != next + 0.5 || statuses[0].MPI_SOURCE != next)
            check(MPI_ERR_OTHER, "the non-blocking data");

        long long mine = rank, theirs = -1;
        check(MPI_Sendrecv(&mine, 1, MPI_LONG_LONG, next, 7, &theirs, 1, MPI_LONG_LONG, previous,
                           7, dup, MPI_STATUS_IGNORE), "MPI_Sendrecv");
        tally[SENDRECV]++;

        int sum = 0, one = 1;
        check(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
        check(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup), "MPI_Allreduce");
        tally[ALLREDUCE] += 2;
        int word = rank == 1 % procs ? 42 : 0;
        check(MPI_Bcast(&word, 1, MPI_INT, 1 % procs, dup), "MPI_Bcast");
        tally[BCAST]++;
        if (sum != procs || word != 42)
            check(MPI_ERR_OTHER, "the collectives' data");
        int upto = 0, before = 0; /* ranks 0..rank, 0..rank-1 (rank 0: undefined) */
        check(MPI_Scan(&one, &upto, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Scan");
        check(MPI_Exscan(&one, &before, 1, MPI_INT, MPI_SUM, dup), "MPI_Exscan");
        tally[SCAN]++, tally[EXSCAN]++;
        if (upto != rank + 1 || (rank > 0 && before != rank))
            check(MPI_ERR_OTHER, "the prefixes' data");

        int block[8], *gathered = rank == 0 ? malloc(8 * (size_t)procs * sizeof(int)) : NULL;
        int *counts = malloc((size_t)procs * sizeof(int)), *displs = malloc((size_t)procs * sizeof(int));
        for (int i = 0; i < 8; i++)
            block[i] = rank * 100 + i;
        for (int r = 0; r < procs; r++)
            counts[r] = 8, displs[r] = 8 * r;
        check(MPI_Gatherv(block, 8, MPI_INT, gathered, counts, displs, MPI_INT, 0, MPI_COMM_WORLD),
              "MPI_Gatherv");
        tally[GATHERV]++;
        for (int i = 0; rank == 0 && i < 8 * procs; i++)
            if (gathered[i] != i / 8 * 100 + i % 8)
                check(MPI_ERR_OTHER, "the Gatherv's data");
        free(gathered), free(counts), free(displs);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        tally[BARRIER]++;
    }
    for (int i = 0; i < COUNTED; i++)
        printf("traced: rank %d %s %d\n", rank, names[i], tally[i]);
    fflush(stdout);
    if (kill && rank == 0) {
        const char *dir = getenv("SCALEGUARD_TRACE");
        for (int r = 1, polls = 0; dir != NULL && r < procs && polls < 2000; polls++)
            if (trace_ended(dir, r))
                r++;
            else
                nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        _Exit(9); /* killed: no MPI_Finalize, the buffer's tail never written */
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
