/* threads: two threads issue triggered collectives at once, each on its own
 * communicator, under MPI_THREAD_MULTIPLE: the layer's configuration, its
 * W1-A communicator cache and its table of non-blocking requests are shared
 * by both. Per iteration each thread runs a blocking MPI_Allgather (W1-B),
 * an MPI_Gather (W1-A), and an MPI_Igather completed by MPI_Wait and one
 * by MPI_Test polling (W1-B behind a generalized request), and with an MPI 4
 * library starts its one MPI_Allgather_init (W1-B behind the layer's
 * carrier), completed by MPI_Wait and by MPI_Test polling in turn, all
 * checked element by element. Exit 0, 1 on wrong data or an error, 77 when the MPI
 * does not provide MPI_THREAD_MULTIPLE. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 1500
#define ITERATIONS 20

struct worker {
    MPI_Comm comm;
    int id, failures;
};

static int value(int thread, int rank, int iteration, int i)
{
    return ((thread * 131 + rank) * 1009 + iteration) * 7919 + i;
}

static int check(struct worker *w, const int *all, int procs, int iteration, const char *what)
{
    for (int r = 0; r < procs; r++)
        for (int i = 0; i < COUNT; i++)
            if (all[r * COUNT + i] != value(w->id, r, iteration, i)) {
                fprintf(stderr,
                        "threads: thread %d: %s iteration %d: element %d of rank %d wrong\n",
                        w->id, what, iteration, i, r);
                return 1;
            }
    return 0;
}

static void *work(void *argument)
{
    struct worker *w = argument;
    int rank, procs;
    MPI_Comm_rank(w->comm, &rank);
    MPI_Comm_size(w->comm, &procs);
    int *mine = malloc(COUNT * sizeof *mine), *all = malloc((size_t)procs * COUNT * sizeof *all);
#if MPI_VERSION >= 4
    /* the persistent call's arguments are fixed at its _init: `mine` and
     * `all` hold each Start's data */
    MPI_Request persistent = MPI_REQUEST_NULL;
    if (MPI_Allgather_init(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, w->comm, MPI_INFO_NULL,
                           &persistent) != MPI_SUCCESS)
        w->failures++;
#endif
    for (int k = 0; k < ITERATIONS && !w->failures; k++) {
        for (int i = 0; i < COUNT; i++)
            mine[i] = value(w->id, rank, k, i);
        int root = k % procs, flag = 0;
        MPI_Request request;
        if (MPI_Allgather(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, w->comm) != MPI_SUCCESS)
            w->failures++;
        w->failures += check(w, all, procs, k, "MPI_Allgather");
        if (MPI_Gather(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, root, w->comm) != MPI_SUCCESS)
            w->failures++;
        if (rank == root)
            w->failures += check(w, all, procs, k, "MPI_Gather");
        if (MPI_Igather(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, root, w->comm, &request) !=
                MPI_SUCCESS ||
            MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            w->failures++;
        if (rank == root)
            w->failures += check(w, all, procs, k, "MPI_Igather + MPI_Wait");
        if (MPI_Igather(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, root, w->comm, &request) !=
            MPI_SUCCESS)
            w->failures++;
        while (!flag)
            if (MPI_Test(&request, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                w->failures++;
                break;
            }
        if (rank == root)
            w->failures += check(w, all, procs, k, "MPI_Igather + MPI_Test");
#if MPI_VERSION >= 4
        for (int i = 0; i < COUNT; i++)
            mine[i] = value(w->id, rank, k, i);
        if (MPI_Start(&persistent) != MPI_SUCCESS)
            w->failures++;
        for (flag = k % 2 == 0; !flag;)
            if (MPI_Test(&persistent, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                w->failures++;
                break;
            }
        if (k % 2 == 0 && MPI_Wait(&persistent, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            w->failures++;
        w->failures += check(w, all, procs, k, "MPI_Allgather_init + MPI_Start");
#endif
    }
#if MPI_VERSION >= 4
    if (MPI_Request_free(&persistent) != MPI_SUCCESS)
        w->failures++;
#endif
    free(mine);
    free(all);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "threads: the MPI provides thread level %d only: skipped\n", provided);
        MPI_Finalize();
        return 77;
    }
    struct worker workers[2];
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) {
        workers[t] = (struct worker){.id = t};
        MPI_Comm_dup(MPI_COMM_WORLD, &workers[t].comm);
        MPI_Comm_set_errhandler(workers[t].comm, MPI_ERRORS_RETURN);
    }
    for (int t = 0; t < 2; t++)
        pthread_create(&threads[t], NULL, work, &workers[t]);
    int failures = 0;
    for (int t = 0; t < 2; t++) {
        pthread_join(threads[t], NULL);
        failures += workers[t].failures;
        MPI_Comm_free(&workers[t].comm);
    }
    int worst = failures;
    MPI_Allreduce(&failures, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        fprintf(stderr, "threads: 2 threads x %d iterations: %s\n", ITERATIONS,
                worst ? "FAILED" : "every element right");
    MPI_Finalize();
    return worst ? 1 : 0;
}
