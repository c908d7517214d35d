/* W1-A: which calls it takes, and the algorithm for each (w1a.h). */
#include "tuning.h"
#include "w1a_parts.h"

#include <limits.h>
#include <stdlib.h>

/* ---- Which calls ---------------------------------------------------------- */

/* Reductions to every rank, and Reduce where P allows, run over a grid of
 * `columns` consecutive ranks times procs / columns rows (see grid_subs):
 * the largest column count that leaves both dimensions at most `members`,
 * or 0 when none does. */
int w1a_grid_columns(int procs, int members)
{
    for (int columns = members < procs ? members : procs; columns >= 2; columns--)
        if (procs % columns == 0 && procs / columns <= members && procs / columns >= 2)
            return columns;
    return 0;
}

/* Allgather(v) gathers each pair of groups into a temporary and copies the
 * blocks out: byte for byte the received elements only where the receive
 * type has no holes. */
int w1a_contiguous(MPI_Datatype type)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
    return PMPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS &&
           PMPI_Type_get_true_extent(type, &true_lb, &true_extent) == MPI_SUCCESS &&
           PMPI_Type_size(type, &size) == MPI_SUCCESS && lb == 0 && true_lb == 0 &&
           extent == size && true_extent == size;
}

int sg_w1a_applies(const struct sg_call *c, const struct sg_described *d, int members,
                   const char **why)
{
    const char *reason = NULL;
    switch (sg_blocking_form(c->routine)) {
    case SG_MPI_Bcast: case SG_MPI_Gather: case SG_MPI_Gatherv: case SG_MPI_Scatter:
    case SG_MPI_Scatterv:
        break;
    case SG_MPI_Reduce:
        reason = sg_split_risk(c);
        break;
    case SG_MPI_Allgather: case SG_MPI_Allgatherv:
        if (!w1a_contiguous(c->recvtype))
            reason = "Allgather(v)'s temporary needs a receive type without holes (lb 0, "
                     "extent = size)";
        break;
    case SG_MPI_Allreduce: case SG_MPI_Reduce_scatter: case SG_MPI_Reduce_scatter_block:
        reason = sg_split_risk(c);
        if (reason == NULL && members >= 2 && w1a_grid_columns(d->procs, members) == 0)
            reason = "P is no product of two factors each at most the group size";
        break;
    default:
        reason = "Alltoall(v) is excluded from W1-A (paper Table X)";
        break;
    }
    if (reason == NULL && members < 2)
        reason = "a group needs at least two processes";
    if (reason != NULL && why != NULL)
        *why = reason;
    return reason == NULL;
}

int sg_w1a(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
           int members, const struct sg_windows *w)
{
    if (!sg_w1a_applies(c, d, members, NULL))
        return -1;
    int me, columns, err = PMPI_Comm_rank(c->comm, &me);
    if (err != MPI_SUCCESS)
        return err;
    if (members > d->procs)
        members = d->procs;
    int per_part = sg_tuning()->reduce_by_reduces;
    switch (sg_blocking_form(c->routine)) {
    case SG_MPI_Allgather: case SG_MPI_Allgatherv:
        return w1a_gather_to_all(runner, c, d, members, me);
    case SG_MPI_Allreduce: case SG_MPI_Reduce_scatter: case SG_MPI_Reduce_scatter_block:
        columns = w1a_grid_columns(d->procs, members);
        if (sg_blocking_form(c->routine) == SG_MPI_Allreduce &&
            w1a_by_parts(runner, c, columns, per_part))
            return w1a_reduce_by_parts(runner, c, d, columns, per_part, me);
        return w1a_reduce_to_all(runner, c, d, columns, me);
    case SG_MPI_Reduce:
        columns = w1a_grid_columns(d->procs, members);
        if (columns > 0 && w->of == NULL && w1a_by_parts(runner, c, columns, per_part))
            return w1a_reduce_by_parts(runner, c, d, columns, per_part, me);
        return w1a_rooted(runner, c, d, members, w, me);
    default:
        return w1a_rooted(runner, c, d, members, w, me);
    }
}
