/* Every intercepted collective, described once.
 *
 * A call is captured into a `struct sg_call` (one layout for all 26
 * routines), and can be replayed through any table of entry points: the real
 * PMPI functions, or the next library in the preload chain. Wrapper
 * libraries (libscaleguard.so, the fault-injecting test preload) instantiate
 * SG_COLLECTIVES with their own handler instead of copying 26 signatures. */
#ifndef SCALEGUARD_COLLECTIVE_H
#define SCALEGUARD_COLLECTIVE_H

#include <mpi.h>
#include <stdint.h>

#include "routines.h"

struct sg_call {
    enum sg_routine routine;
    const void *sendbuf;
    int sendcount;         /* Bcast: count; reductions: count (or recvcount) */
    const int *sendcounts; /* Scatterv, Alltoallv */
    const int *sdispls;    /* Scatterv, Alltoallv */
    MPI_Datatype sendtype; /* reductions and Bcast: the datatype */
    void *recvbuf;         /* Bcast: the buffer */
    int recvcount;
    const int *recvcounts; /* Gatherv, Allgatherv, Alltoallv, Reduce_scatter */
    const int *rdispls;    /* Gatherv, Allgatherv, Alltoallv */
    MPI_Datatype recvtype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
    MPI_Request *request; /* non-blocking forms only */
};

/* SG_COLLECTIVES(X) expands X(Name, (parameters), (arguments from a
 * struct sg_call *c), initialisers of struct sg_call) for every routine. */
#define SG_BLOCKING_AND_NONBLOCKING(X, B, I, params, iparams, args, iargs, ...) \
    X(B, params, args, __VA_ARGS__)                                             \
    X(I, iparams, iargs, __VA_ARGS__, .request = request)

#define SG_COLLECTIVES(X)                                                                        \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Bcast, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm), \
        (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,                \
         MPI_Request *request),                                                                  \
        (c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm),                               \
        (c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm, c->request), .sendbuf = buffer, \
        .recvbuf = buffer, .sendcount = count, .recvcount = count, .sendtype = datatype,          \
        .recvtype = datatype, .root = root, .comm = comm)                                        \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Scatter, Iscatter,                                                                    \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
         MPI_Datatype recvtype, int root, MPI_Comm comm),                                        \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request),                  \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,  \
         c->comm),                                                                               \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,  \
         c->comm, c->request),                                                                   \
        .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
        .recvcount = recvcount, .recvtype = recvtype, .root = root, .comm = comm)                \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Scatterv, Iscatterv,                                                                  \
        (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),          \
        (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,           \
         MPI_Request *request),                                                                  \
        (c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcount,           \
         c->recvtype, c->root, c->comm),                                                         \
        (c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcount,           \
         c->recvtype, c->root, c->comm, c->request),                                             \
        .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = displs, .sendtype = sendtype,   \
        .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype, .root = root,          \
        .comm = comm)                                                                            \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Gather, Igather,                                                                      \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
         MPI_Datatype recvtype, int root, MPI_Comm comm),                                        \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request),                  \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,  \
         c->comm),                                                                               \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,  \
         c->comm, c->request),                                                                   \
        .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
        .recvcount = recvcount, .recvtype = recvtype, .root = root, .comm = comm)                \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Gatherv, Igatherv,                                                                    \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
         const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,            \
         MPI_Comm comm),                                                                         \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
         const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,            \
         MPI_Comm comm, MPI_Request *request),                                                   \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts, c->rdispls,           \
         c->recvtype, c->root, c->comm),                                                         \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts, c->rdispls,           \
         c->recvtype, c->root, c->comm, c->request),                                             \
        .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
        .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype, .root = root,         \
        .comm = comm)                                                                            \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Allgather, Iallgather,                                                                \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
         MPI_Datatype recvtype, MPI_Comm comm),                                                  \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),                            \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm,  \
         c->request),                                                                            \
        .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
        .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                  \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Allgatherv, Iallgatherv,                                                              \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),      \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,       \
         MPI_Request *request),                                                                  \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts, c->rdispls,           \
         c->recvtype, c->comm),                                                                  \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts, c->rdispls,           \
         c->recvtype, c->comm, c->request),                                                      \
        .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
        .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype, .root = -1,           \
        .comm = comm)                                                                            \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Alltoall, Ialltoall,                                                                  \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
         MPI_Datatype recvtype, MPI_Comm comm),                                                  \
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),                            \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
        (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm,  \
         c->request),                                                                            \
        .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
        .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                  \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Alltoallv, Ialltoallv,                                                                \
        (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, \
         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,      \
         MPI_Comm comm),                                                                         \
        (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, \
         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,      \
         MPI_Comm comm, MPI_Request *request),                                                   \
        (c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcounts,          \
         c->rdispls, c->recvtype, c->comm),                                                      \
        (c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcounts,          \
         c->rdispls, c->recvtype, c->comm, c->request),                                          \
        .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = sdispls, .sendtype = sendtype,  \
        .recvbuf = recvbuf, .recvcounts = recvcounts, .rdispls = rdispls, .recvtype = recvtype,  \
        .root = -1, .comm = comm)                                                                \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Reduce, Ireduce,                                                                      \
        (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
         int root, MPI_Comm comm),                                                               \
        (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
         int root, MPI_Comm comm, MPI_Request *request),                                         \
        (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->root, c->comm),            \
        (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->root, c->comm, c->request), \
        .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,          \
        .sendtype = datatype, .recvtype = datatype, .op = op, .root = root, .comm = comm)        \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Allreduce, Iallreduce,                                                                \
        (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
         MPI_Comm comm),                                                                         \
        (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
         MPI_Comm comm, MPI_Request *request),                                                   \
        (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                     \
        (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm, c->request),         \
        .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,          \
        .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)          \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Reduce_scatter, Ireduce_scatter,                                                      \
        (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,      \
         MPI_Op op, MPI_Comm comm),                                                              \
        (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,      \
         MPI_Op op, MPI_Comm comm, MPI_Request *request),                                        \
        (c->sendbuf, c->recvbuf, c->recvcounts, c->sendtype, c->op, c->comm),                    \
        (c->sendbuf, c->recvbuf, c->recvcounts, c->sendtype, c->op, c->comm, c->request),        \
        .sendbuf = sendbuf, .recvbuf = recvbuf, .recvcounts = recvcounts, .sendtype = datatype,  \
        .recvtype = datatype, .op = op, .root = -1, .comm = comm)                                \
    SG_BLOCKING_AND_NONBLOCKING(                                                                 \
        X, Reduce_scatter_block, Ireduce_scatter_block,                                          \
        (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,    \
         MPI_Comm comm),                                                                         \
        (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,    \
         MPI_Comm comm, MPI_Request *request),                                                   \
        (c->sendbuf, c->recvbuf, c->recvcount, c->sendtype, c->op, c->comm),                     \
        (c->sendbuf, c->recvbuf, c->recvcount, c->sendtype, c->op, c->comm, c->request),         \
        .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = recvcount, .recvcount = recvcount,  \
        .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)

/* A table of entry points with the collectives' own signatures. */
struct sg_entry_points {
#define SG_ENTRY_POINT(Name, params, args, ...) int(*Name) params;
    SG_COLLECTIVES(SG_ENTRY_POINT)
#undef SG_ENTRY_POINT
};

/* The library's own PMPI_* functions. */
extern const struct sg_entry_points sg_pmpi;

/* Fill `table` with the next definition of each PMPI_* after the caller's
 * library in symbol lookup order (dlsym RTLD_NEXT). Returns 0, or -1 with
 * the missing name in `missing`. */
int sg_entry_points_next(struct sg_entry_points *table, const char **missing);

/* Call `c` through `table`. */
int sg_call_invoke(const struct sg_entry_points *table, const struct sg_call *c);

/* The only symbols a wrapper library exports (it is built with hidden
 * visibility, so its internals never bind to another layer's copies). */
#define SG_EXPORT __attribute__((visibility("default")))

/* Define the 26 MPI_* functions of a wrapper library: each captures its call
 * and returns HANDLER(&call). */
#define SG_DEFINE_WRAPPER(Name, params, args, ...)                       \
    SG_EXPORT int MPI_##Name params                                                \
    {                                                                    \
        struct sg_call call = {.routine = SG_MPI_##Name, __VA_ARGS__};   \
        return SG_WRAPPER_HANDLER(&call);                                \
    }

/* The same for PMPI_* (a preload that sits below another PMPI layer). */
#define SG_DEFINE_PMPI_WRAPPER(Name, params, args, ...)                  \
    SG_EXPORT int PMPI_##Name params                                               \
    {                                                                    \
        struct sg_call call = {.routine = SG_MPI_##Name, __VA_ARGS__};   \
        return SG_WRAPPER_HANDLER(&call);                                \
    }

/* ---- What a call moves, as the detectors see it ------------------------- */

/* n, s and P of a call on this rank (DESIGN.md "Notation"): n is the count
 * of one message (for v-routines the largest per-rank count this rank can
 * see), s the size in bytes of its datatype, P the communicator's size.
 * `complete` is 0 on ranks that cannot see all counts (non-roots of
 * Gatherv/Scatterv and their I-forms, and Alltoallv, where each rank sees
 * only its own row). Returns an MPI error code. */
struct sg_shape {
    uint64_t n;
    uint64_t s;
    uint64_t procs;
    int rank;
    int is_root; /* rank == root, or 1 for routines without a root */
    int complete;
};

int sg_call_shape(const struct sg_call *c, struct sg_shape *shape);

/* The receive or send side's displacements of a call (and its counts), or
 * NULL where the routine has none there (the routine table's `displs`).
 * Whether this rank's are significant is the caller's question (the root's
 * alone for Gatherv/Scatterv; not a side given as MPI_IN_PLACE). */
const int *sg_call_recv_displs(const struct sg_call *c, const int **counts);
const int *sg_call_send_displs(const struct sg_call *c, const int **counts);

#endif
