/* W1-A: which calls it takes, and the algorithm for each (w1a.h). */
#include "tuning.h"
#include "w1a_parts.h"
#include "workaround.h"

#include <limits.h>
#include <stdio.h>
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
    if (info->neighbours)
        reason = "a neighbourhood is no group of ranks: groups of the communicator would "
                 "change each rank's neighbours";
    else if (sg_is_large_count(c->routine) && sg_call_narrow(c, d->procs, NULL, NULL) != 0)
        reason = "a count or displacement of this large-count call is past INT_MAX, and W1-A's "
                 "sub-calls over groups take int ones";
    else if (info->pairwise)
        reason = "Alltoall(v,w) is excluded from W1-A (paper Table X)";
    else if (info->prefix)
        reason = "a prefix over groups is not the prefix over the communicator";
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
    if (sg_is_large_count(c->routine)) {
        /* its int form's call, every count of which fits (sg_w1a_applies):
         * the sub-calls over groups take the same bytes in int counts */
        struct sg_call narrow;
        int *ints = malloc(4 * (size_t)d->procs * sizeof *ints);
        if (ints == NULL)
            return MPI_ERR_NO_MEM;
        if (sg_call_narrow(c, d->procs, ints, &narrow) != 0) {
            free(ints);
            return -1;
        }
        int err = sg_w1a(runner, &narrow, d, members, w);
        if (runner->looks_only) {
            free(ints);
            return err;
        }
        int kept = sg_keep(runner, free, ints);
        return err != MPI_SUCCESS ? err : kept;
    }
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

/* ---- W1-A's row (workaround.h) -------------------------------------------- */

/* Groups under a P-dependent (Type-3) bound, or following Class D's
 * windows; every rank must learn the plan, so only where they agree. */
static int w1a_may_group(const struct sg_choice *ch)
{
    return ch->agreed && ch->members >= 2 &&
           (ch->members < (int)ch->sh->procs ||
            (ch->v->cls >= 0 && sg_classes[ch->v->cls].from_displs));
}

/* An I-form's W1-A runs only over communicators made already (w1a.h):
 * whether they are is the same on every rank. A persistent call's plan
 * never: it outlives the call, and they may not (SG_W1A_KEPT_WORDS). */
static int w1a_ready(const struct sg_choice *ch)
{
    return !ch->c->persistent_plan &&
           (!ch->runner->nonblocking ||
            sg_w1a_made(ch->runner, ch->c, ch->d, ch->members, &ch->fit->win));
}

/* Whether W1-A's groups can run this call, its communicators aside; on 0
 * `*why` (when not NULL) gets sg_w1a_applies's reason where it has one. */
static int groups_fit(const struct sg_choice *ch, const char **why)
{
    return w1a_may_group(ch) && sg_w1a_applies(ch->c, ch->d, ch->members, why);
}

int sg_w1a_groups_fit(const struct sg_choice *ch) { return groups_fit(ch, NULL); }

static int w1a_applies(const struct sg_choice *ch) { return groups_fit(ch, NULL) && w1a_ready(ch); }

/* W1-A's groups of a blocking call in the I-form where that form allows
 * them (`together`): each sub-call is at most the call's n over at most
 * `members`. */
static struct sg_plan w1a_plan(const struct sg_choice *ch)
{
    struct sg_plan p = {SG_PLAN_W1A, ch->members, ch->fit->win.of != NULL, ch->fit->win.count,
                        0, 0};
    if (!sg_is_nonblocking(ch->c->routine))
        p.together = ch->runner->allows(sg_in_form_of(ch->c->routine, SG_MPI_Ibcast), ch->sh->s,
                                        ch->sh->n, (uint64_t)ch->members);
    return p;
}

static enum sg_unavailable w1a_unavailable(const struct sg_choice *ch, char *why, size_t size)
{
    const char *words = "the bound does not depend on P";
    if (groups_fit(ch, &words) && !w1a_ready(ch))
        words = ch->c->persistent_plan ? SG_W1A_KEPT_WORDS : SG_W1A_UNMADE_WORDS;
    if (ch->members < 2 &&
        !(ch->v->cls >= 0 && sg_classes[ch->v->cls].bounded && !sg_classes[ch->v->cls].scales))
        words = "no group of 2 is under the bound";
    else if (!ch->agreed)
        words = "the routine has no entry of its own";
    snprintf(why, size, "%s", words);
    return SG_UNAVAILABLE_CANNOT_APPLY;
}

static int run_w1a(struct sg_runner *runner, const struct sg_call *c, const struct sg_run_with *r)
{
    return sg_w1a(runner, c, r->d, (int)r->plan->chunk, r->windows);
}

static void how_w1a(char *how, size_t size, const struct sg_call *c, const struct sg_run_with *r)
{
    (void)c;
    snprintf(how, size, "W1-A (groups of %d)", (int)r->plan->chunk);
}

const struct sg_workaround_op sg_w1a_op = {
    .name = SG_WORKAROUND_W1A, .kind = SG_PLAN_W1A, .applies = w1a_applies, .plan = w1a_plan,
    .unavailable = w1a_unavailable, .run = run_w1a, .how = how_w1a};
