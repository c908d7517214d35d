/* overlap: a triggered MPI_Igather stays non-blocking under the layer.
 *
 *   overlap COMPLETION [gather-first]   (P >= 2; root 0; MPI_INT, COUNT per rank)
 *
 * The non-roots start their MPI_Igather only after the root's has returned
 * and sent them a token, so a layer that finished the workaround inside
 * the root's call would deadlock here (the test's time limit fails it).
 * Checked: right after the root's call no block of another rank has
 * arrived; computation runs while the sub-calls proceed; the request
 * completes through COMPLETION, one of wait test waitall testall waitany
 * testany waitsome testsome get_status free (the non-roots free theirs;
 * MPI_Finalize finishes it) -- the array forms with an ordinary receive
 * request beside it; and every element is right on the root. With
 * `gather-first` a blocking MPI_Gather of the same blocks runs before (and
 * is checked too): what the layer makes for it, the I-form may use. Exit 0,
 * or 1 with a message naming what failed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 4096
#define SENTINEL (-1)

static int value(int rank, int i) { return rank * 1000003 + i; }

static int failed(int rank, const char *what)
{
    fprintf(stderr, "overlap: rank %d: %s\n", rank, what);
    return 1;
}

/* Some work between start and completion. */
static double compute(void)
{
    volatile double x = 0;
    for (int i = 1; i < 2000000; i++)
        x += 1.0 / i;
    return x;
}

/* Complete `request` the way `how` says; `other` is an ordinary receive
 * request that the array forms complete along with it. */
static int complete(const char *how, MPI_Request *request, MPI_Request *other)
{
    MPI_Request both[2] = {*request, *other};
    int flag = 0, index, outcount, indices[2], err = MPI_SUCCESS;
    MPI_Status statuses[2];
    if (strcmp(how, "wait") == 0) {
        err = MPI_Wait(request, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "test") == 0) {
        while (err == MPI_SUCCESS && !flag)
            err = MPI_Test(request, &flag, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "get_status") == 0) {
        while (err == MPI_SUCCESS && !flag)
            err = MPI_Request_get_status(*request, &flag, MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(request, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "waitall") == 0) {
        err = MPI_Waitall(2, both, statuses);
    } else if (strcmp(how, "testall") == 0) {
        while (err == MPI_SUCCESS && !flag)
            err = MPI_Testall(2, both, &flag, statuses);
    } else if (strcmp(how, "waitany") == 0 || strcmp(how, "testany") == 0) {
        for (int done = 0; err == MPI_SUCCESS && done < 2;) {
            if (how[0] == 'w')
                err = MPI_Waitany(2, both, &index, MPI_STATUS_IGNORE);
            else if ((err = MPI_Testany(2, both, &index, &flag, MPI_STATUS_IGNORE)) ==
                         MPI_SUCCESS &&
                     !flag)
                continue;
            done++;
        }
    } else if (strcmp(how, "waitsome") == 0 || strcmp(how, "testsome") == 0) {
        for (int done = 0; err == MPI_SUCCESS && done < 2; done += outcount)
            err = how[0] == 'w' ? MPI_Waitsome(2, both, &outcount, indices, statuses)
                                : MPI_Testsome(2, both, &outcount, indices, statuses);
    } else {
        return MPI_ERR_ARG;
    }
    if (strcmp(how, "wait") != 0 && strcmp(how, "test") != 0 && strcmp(how, "get_status") != 0) {
        *request = both[0];
        *other = both[1];
    } else if (err == MPI_SUCCESS) {
        err = MPI_Wait(other, MPI_STATUS_IGNORE);
    }
    return err;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, procs, status = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    const char *how = argc > 1 ? argv[1] : "wait";
    int gather_first = argc > 2 && strcmp(argv[2], "gather-first") == 0;
    MPI_Comm side; /* the token and the neighbour's message: apart from the collective */
    MPI_Comm_dup(MPI_COMM_WORLD, &side);

    int *mine = malloc(COUNT * sizeof *mine);
    int *all = rank == 0 ? malloc((size_t)procs * COUNT * sizeof *all) : NULL;
    for (int i = 0; i < COUNT; i++)
        mine[i] = value(rank, i);
    if (rank == 0)
        for (int i = 0; i < procs * COUNT; i++)
            all[i] = SENTINEL;

    if (gather_first) {
        MPI_Gather(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, 0, MPI_COMM_WORLD);
        for (int r = 0; rank == 0 && r < procs && !status; r++)
            for (int i = 0; i < COUNT; i++)
                if (all[r * COUNT + i] != value(r, i)) {
                    status |= failed(rank, "MPI_Gather's data is wrong");
                    break;
                }
        for (int i = 0; rank == 0 && i < procs * COUNT; i++)
            all[i] = SENTINEL;
    }

    /* an ordinary request beside the layer's: a word from the left neighbour */
    int word = -1, sent = rank;
    MPI_Request other;
    MPI_Irecv(&word, 1, MPI_INT, (rank + procs - 1) % procs, 1, side, &other);

    MPI_Request request;
    int token = 0;
    if (rank == 0) {
        if (MPI_Igather(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, 0, MPI_COMM_WORLD, &request) !=
            MPI_SUCCESS)
            status |= failed(rank, "MPI_Igather returned an error");
        for (int i = COUNT; i < procs * COUNT; i++)
            if (all[i] != SENTINEL) {
                status |= failed(rank, "data of another rank arrived before its call");
                break;
            }
        for (int r = 1; r < procs; r++)
            MPI_Send(&token, 1, MPI_INT, r, 0, side);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, side, MPI_STATUS_IGNORE);
        if (MPI_Igather(mine, COUNT, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &request) !=
            MPI_SUCCESS)
            status |= failed(rank, "MPI_Igather returned an error");
    }
    MPI_Send(&sent, 1, MPI_INT, (rank + 1) % procs, 1, side);
    double work = compute();

    if (rank != 0 && strcmp(how, "free") == 0) {
        if (MPI_Request_free(&request) != MPI_SUCCESS || MPI_Wait(&other, MPI_STATUS_IGNORE))
            status |= failed(rank, "MPI_Request_free or the neighbour's message failed");
    } else if (complete(strcmp(how, "free") == 0 ? "wait" : how, &request, &other) !=
               MPI_SUCCESS) {
        status |= failed(rank, "completing the requests failed");
    }
    if (request != MPI_REQUEST_NULL || other != MPI_REQUEST_NULL)
        status |= failed(rank, "a request is not MPI_REQUEST_NULL after completion");
    if (word != (rank + procs - 1) % procs)
        status |= failed(rank, "the neighbour's word is wrong");
    if (rank == 0)
        for (int r = 0; r < procs && !status; r++)
            for (int i = 0; i < COUNT; i++)
                if (all[r * COUNT + i] != value(r, i)) {
                    fprintf(stderr, "overlap: rank 0: element %d of rank %d is %d, not %d\n", i,
                            r, all[r * COUNT + i], value(r, i));
                    status = 1;
                    break;
                }
    int worst = status;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        fprintf(stderr, "overlap: %s, P=%d: %s (work %.3f)\n", how, procs,
                worst ? "FAILED" : "returned at once, every element right", work);
    free(mine);
    free(all);
    MPI_Comm_free(&side);
    MPI_Finalize();
    return worst;
}
