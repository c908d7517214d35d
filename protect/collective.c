/* The description of the collectives: entry-point tables, replay, shape. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "collective.h"

#include <dlfcn.h>
#include <stddef.h>

const struct sg_entry_points sg_pmpi = {
#define SG_PMPI_ENTRY(Name, params, args, ...) .Name = PMPI_##Name,
    SG_COLLECTIVES(SG_PMPI_ENTRY)
#undef SG_PMPI_ENTRY
};

int sg_entry_points_next(struct sg_entry_points *table, const char **missing)
{
#define SG_NEXT_ENTRY(Name, params, args, ...)                               \
    {                                                                        \
        void *symbol = dlsym(RTLD_NEXT, "PMPI_" #Name);                      \
        if (symbol == NULL) {                                                \
            *missing = "PMPI_" #Name;                                        \
            return -1;                                                       \
        }                                                                    \
        /* POSIX guarantees data and function pointers convert (dlsym) */    \
        *(void **)&table->Name = symbol;                                     \
    }
    SG_COLLECTIVES(SG_NEXT_ENTRY)
#undef SG_NEXT_ENTRY
    return 0;
}

int sg_call_invoke(const struct sg_entry_points *table, const struct sg_call *c)
{
    switch (c->routine) {
#define SG_INVOKE_CASE(Name, params, args, ...) \
    case SG_MPI_##Name: return table->Name args;
        SG_COLLECTIVES(SG_INVOKE_CASE)
#undef SG_INVOKE_CASE
    case SG_ROUTINE_COUNT: break;
    }
    return MPI_ERR_INTERN;
}

static uint64_t max_count(const int *counts, int procs)
{
    int largest = 0;
    for (int i = 0; i < procs; i++)
        largest = counts[i] > largest ? counts[i] : largest;
    return (uint64_t)largest;
}

static uint64_t sum_counts(const int *counts, int procs)
{
    uint64_t sum = 0;
    for (int i = 0; i < procs; i++)
        sum += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return sum;
}

int sg_call_shape(const struct sg_call *c, struct sg_shape *shape)
{
    int procs, rank, err;
    if ((err = PMPI_Comm_size(c->comm, &procs)) != MPI_SUCCESS ||
        (err = PMPI_Comm_rank(c->comm, &rank)) != MPI_SUCCESS)
        return err;
    *shape = (struct sg_shape){.procs = (uint64_t)procs, .rank = rank, .complete = 1};
    shape->is_root = c->root < 0 || c->root == rank;

    /* Which side of the call describes the message on this rank. */
    int use_send = 0;
    uint64_t n = 0;
    switch (c->routine) {
    case SG_MPI_Scatter: case SG_MPI_Iscatter:
        use_send = shape->is_root;
        n = (uint64_t)(use_send ? c->sendcount : c->recvcount);
        break;
    case SG_MPI_Gather: case SG_MPI_Igather:
        use_send = !shape->is_root;
        n = (uint64_t)(use_send ? c->sendcount : c->recvcount);
        break;
    case SG_MPI_Scatterv: case SG_MPI_Iscatterv:
        use_send = shape->is_root;
        n = use_send ? max_count(c->sendcounts, procs) : (uint64_t)c->recvcount;
        shape->complete = shape->is_root;
        break;
    case SG_MPI_Gatherv: case SG_MPI_Igatherv:
        use_send = !shape->is_root;
        n = use_send ? (uint64_t)c->sendcount : max_count(c->recvcounts, procs);
        shape->complete = shape->is_root;
        break;
    case SG_MPI_Allgatherv: case SG_MPI_Iallgatherv:
        n = max_count(c->recvcounts, procs);
        break;
    case SG_MPI_Alltoallv: case SG_MPI_Ialltoallv: {
        /* both rows: the rank at a block's other end sees it too */
        uint64_t sent = c->sendbuf == MPI_IN_PLACE ? 0 : max_count(c->sendcounts, procs);
        n = max_count(c->recvcounts, procs);
        n = sent > n ? sent : n;
        shape->complete = 0;
        break;
    }
    case SG_MPI_Reduce_scatter: case SG_MPI_Ireduce_scatter:
        n = sum_counts(c->recvcounts, procs); /* the vector being reduced */
        break;
    case SG_MPI_Reduce_scatter_block: case SG_MPI_Ireduce_scatter_block:
        n = (uint64_t)(c->recvcount > 0 ? c->recvcount : 0) * (uint64_t)procs;
        break;
    default: /* Bcast, Allgather, Alltoall, Reduce, Allreduce and I-forms */
        n = (uint64_t)(c->recvcount > 0 ? c->recvcount : 0);
        break;
    }
    int size;
    if ((err = PMPI_Type_size(use_send ? c->sendtype : c->recvtype, &size)) != MPI_SUCCESS)
        return err;
    shape->n = n;
    shape->s = (uint64_t)size;
    return MPI_SUCCESS;
}

const int *sg_call_recv_displs(const struct sg_call *c, const int **counts)
{
    enum sg_displs sides = sg_routines[c->routine].displs;
    int has = sides == SG_DISPLS_RECV || sides == SG_DISPLS_BOTH;
    *counts = has ? c->recvcounts : NULL;
    return has ? c->rdispls : NULL;
}

const int *sg_call_send_displs(const struct sg_call *c, const int **counts)
{
    enum sg_displs sides = sg_routines[c->routine].displs;
    int has = sides == SG_DISPLS_SEND || sides == SG_DISPLS_BOTH;
    *counts = has ? c->sendcounts : NULL;
    return has ? c->sdispls : NULL;
}
