/* W3: see w3.h. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "w3.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

/* The MPI-4.0 signatures (section 6.6-6.8), blocking and non-blocking. */
typedef int gatherv_c(const void *, MPI_Count, MPI_Datatype, void *, const MPI_Count[],
                      const MPI_Aint[], MPI_Datatype, int, MPI_Comm);
typedef int igatherv_c(const void *, MPI_Count, MPI_Datatype, void *, const MPI_Count[],
                       const MPI_Aint[], MPI_Datatype, int, MPI_Comm, MPI_Request *);
typedef int scatterv_c(const void *, const MPI_Count[], const MPI_Aint[], MPI_Datatype, void *,
                       MPI_Count, MPI_Datatype, int, MPI_Comm);
typedef int iscatterv_c(const void *, const MPI_Count[], const MPI_Aint[], MPI_Datatype, void *,
                        MPI_Count, MPI_Datatype, int, MPI_Comm, MPI_Request *);
typedef int allgatherv_c(const void *, MPI_Count, MPI_Datatype, void *, const MPI_Count[],
                         const MPI_Aint[], MPI_Datatype, MPI_Comm);
typedef int iallgatherv_c(const void *, MPI_Count, MPI_Datatype, void *, const MPI_Count[],
                          const MPI_Aint[], MPI_Datatype, MPI_Comm, MPI_Request *);
typedef int alltoallv_c(const void *, const MPI_Count[], const MPI_Aint[], MPI_Datatype, void *,
                        const MPI_Count[], const MPI_Aint[], MPI_Datatype, MPI_Comm);
typedef int ialltoallv_c(const void *, const MPI_Count[], const MPI_Aint[], MPI_Datatype, void *,
                         const MPI_Count[], const MPI_Aint[], MPI_Datatype, MPI_Comm,
                         MPI_Request *);

static const char *const names[SG_ROUTINE_COUNT] = {
    [SG_MPI_Gatherv] = "PMPI_Gatherv_c",       [SG_MPI_Igatherv] = "PMPI_Igatherv_c",
    [SG_MPI_Scatterv] = "PMPI_Scatterv_c",     [SG_MPI_Iscatterv] = "PMPI_Iscatterv_c",
    [SG_MPI_Allgatherv] = "PMPI_Allgatherv_c", [SG_MPI_Iallgatherv] = "PMPI_Iallgatherv_c",
    [SG_MPI_Alltoallv] = "PMPI_Alltoallv_c",   [SG_MPI_Ialltoallv] = "PMPI_Ialltoallv_c",
};
static void *functions[SG_ROUTINE_COUNT];
static pthread_once_t looked_up = PTHREAD_ONCE_INIT;

static void look_up(void)
{
    for (int r = 0; r < SG_ROUTINE_COUNT; r++)
        if (names[r] != NULL)
            functions[r] = dlsym(RTLD_DEFAULT, names[r]);
}

const char *sg_w3_function(enum sg_routine routine)
{
    pthread_once(&looked_up, look_up);
    return functions[routine] != NULL ? names[routine] : NULL;
}

/* A V side's counts and displacements in the large-count types. */
struct wide {
    MPI_Count *counts;
    MPI_Aint *displs;
};

static int widen(const struct sg_side *side, int procs, struct wide *w)
{
    w->counts = NULL;
    w->displs = NULL;
    if (side->layout != SG_SIDE_V)
        return MPI_SUCCESS;
    w->counts = malloc((size_t)procs * sizeof *w->counts);
    w->displs = malloc((size_t)procs * sizeof *w->displs);
    if (w->counts == NULL || w->displs == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < procs; i++) {
        w->counts[i] = side->counts[i];
        w->displs[i] = (MPI_Aint)side->displs[i];
    }
    return MPI_SUCCESS;
}

static void release_wide(void *memory)
{
    struct wide *w = memory;
    free(w[0].counts);
    free(w[0].displs);
    free(w[1].counts);
    free(w[1].displs);
    free(w);
}

int sg_w3(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d)
{
    void *f = sg_w3_function(c->routine) ? functions[c->routine] : NULL;
    if (f == NULL)
        return -1;
    struct wide *w = calloc(2, sizeof *w); /* [0] send, [1] receive */
    if (w == NULL)
        return MPI_ERR_NO_MEM;
    int err = widen(&d->send, d->procs, &w[0]);
    if (err == MPI_SUCCESS)
        err = widen(&d->recv, d->procs, &w[1]);
    MPI_Request request = MPI_REQUEST_NULL, *req = &request;
    if (err == MPI_SUCCESS) {
        /* POSIX: dlsym's result converts to a function pointer. */
        switch (c->routine) {
        case SG_MPI_Gatherv:
            err = ((gatherv_c *)f)(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                                   w[1].counts, w[1].displs, c->recvtype, c->root, c->comm);
            break;
        case SG_MPI_Igatherv:
            err = ((igatherv_c *)f)(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                                    w[1].counts, w[1].displs, c->recvtype, c->root, c->comm, req);
            break;
        case SG_MPI_Scatterv:
            err = ((scatterv_c *)f)(c->sendbuf, w[0].counts, w[0].displs, c->sendtype, c->recvbuf,
                                    c->recvcount, c->recvtype, c->root, c->comm);
            break;
        case SG_MPI_Iscatterv:
            err = ((iscatterv_c *)f)(c->sendbuf, w[0].counts, w[0].displs, c->sendtype,
                                     c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm, req);
            break;
        case SG_MPI_Allgatherv:
            err = ((allgatherv_c *)f)(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                                      w[1].counts, w[1].displs, c->recvtype, c->comm);
            break;
        case SG_MPI_Iallgatherv:
            err = ((iallgatherv_c *)f)(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                                       w[1].counts, w[1].displs, c->recvtype, c->comm, req);
            break;
        case SG_MPI_Alltoallv:
            err = ((alltoallv_c *)f)(c->sendbuf, w[0].counts, w[0].displs, c->sendtype, c->recvbuf,
                                     w[1].counts, w[1].displs, c->recvtype, c->comm);
            break;
        case SG_MPI_Ialltoallv:
            err = ((ialltoallv_c *)f)(c->sendbuf, w[0].counts, w[0].displs, c->sendtype,
                                      c->recvbuf, w[1].counts, w[1].displs, c->recvtype, c->comm,
                                      req);
            break;
        default:
            err = -1;
            break;
        }
    }
    if (err == MPI_SUCCESS && request != MPI_REQUEST_NULL)
        err = sg_runner_add(runner, request);
    int kept = sg_keep(runner, release_wide, w); /* the arrays live until it is done */
    return err != MPI_SUCCESS ? err : kept;
}
