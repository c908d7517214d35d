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

int sg_w1a_applies(const struct sg_call *c, const struct sg_described *d, int members,
                   const char **why)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    const char *reason = NULL;
    if (info->pairwise)
        reason = "Alltoall(v) is excluded from W1-A (paper Table X)";
    else if (info->reduction)
        reason = sg_split_risk(c);
    else if (!info->rooted && sg_extent_of(c->recvtype) <= 0)
        reason = "Allgather(v)'s temporary needs a receive type of positive extent";
    if (reason == NULL && info->reduction && !info->rooted && members >= 2 &&
        w1a_grid_columns(d->procs, members) == 0)
        reason = "P is no product of two factors each at most the group size";
    if (reason == NULL && members < 2)
        reason = "a group needs at least two processes";
    if (reason != NULL && why != NULL)
        *why = reason;
    return reason == NULL;
}

int sg_w1a_made(const struct sg_runner *runner, const struct sg_call *c,
                const struct sg_described *d, int members, const struct sg_windows *w)
{
    struct sg_runner look = SG_RUNNER(runner->mpi, runner->nonblocking);
    look.allows = runner->allows;
    look.looks_only = 1;
    return sg_w1a(&look, c, d, members, w) == W1A_FOUND;
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
    const struct sg_routine_info *info = &sg_routines[c->routine];
    if (!info->reduction)
        return info->rooted ? w1a_rooted(runner, c, d, members, w, me)
                            : w1a_gather_to_all(runner, c, d, members, me);
    columns = w1a_grid_columns(d->procs, members);
    if (!info->rooted) { /* by parts where each rank's result is the whole vector */
        if (info->send == SG_SIDE_SINGLE && w1a_by_parts(runner, c, columns, per_part))
            return w1a_reduce_by_parts(runner, c, d, columns, per_part, me);
        return w1a_reduce_to_all(runner, c, d, columns, me);
    }
    if (columns > 0 && w->of == NULL && w1a_by_parts(runner, c, columns, per_part))
        return w1a_reduce_by_parts(runner, c, d, columns, per_part, me);
    return w1a_rooted(runner, c, d, members, w, me);
}
