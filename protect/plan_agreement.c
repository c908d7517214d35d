/* The agreement of a call whose ranks cannot work out their part alone:
 * see plan.h. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

int sg_agree_on_plan(const struct sg_call *c, const struct sg_shape *sh,
                     const struct sg_w1b_fit *fit, struct sg_plan *plan, int *why,
                     struct sg_windows *told, const struct sg_windows **windows)
{
    int err = MPI_SUCCESS, procs = (int)sh->procs;
    /* Whether every rank's datatypes hold alike many basic elements
     * (sg_shape): each rank's largest and, negated, smallest count, whose
     * MAX over the ranks gives both extremes. Where they differ, no rank
     * cuts: each would cut in elements of its own type (protect.c). */
    int64_t elements[2] = {(int64_t)sh->elements_max, -(int64_t)sh->elements_min};
    if (sg_routines[c->routine].knows == SG_KNOWS_ROOT) {
        /* How the decision reaches the non-roots: the root alone can decide
         * (it alone sees counts and displs), and its plan (kind, chunk,
         * rounds, windows, together, why: 48 bytes, every field >= 0, zeros
         * elsewhere) reaches them in one Allreduce(MAX) on the call's own
         * communicator, with the ranks' element counts. The non-roots
         * cannot work the plan out, so some message must reach each of
         * them; an Allreduce rather than a Bcast, because the root must
         * learn theirs. Routines without a bound pay nothing: Class D is
         * fixed by the root alone (W2, or W1-B in one window), which needs
         * no agreement. With more than one window each rank gets its own in
         * a Scatter (protect.c, "Class D by windows"). */
        int64_t mine[SG_PLAN_FIELDS + 2] = {0}, all[SG_PLAN_FIELDS + 2];
        if (sh->is_root) {
            plan->why = plan->kind == SG_PLAN_LEFT_ALONE ? *why + 1 : 0;
            memcpy(mine, plan, sizeof *plan);
        }
        mine[SG_PLAN_FIELDS] = elements[0];
        mine[SG_PLAN_FIELDS + 1] = elements[1];
        err = PMPI_Allreduce(mine, all, SG_PLAN_FIELDS + 2, MPI_INT64_T, MPI_MAX, c->comm);
        if (err == MPI_SUCCESS) {
            memcpy(plan, all, sizeof *plan);
            if (plan->why > 0)
                *why = (int)plan->why - 1;
            if (all[SG_PLAN_FIELDS] != -all[SG_PLAN_FIELDS + 1] && plan->kind != SG_PLAN_PLAIN &&
                plan->kind != SG_PLAN_LEFT_ALONE) {
                *plan = (struct sg_plan){SG_PLAN_LEFT_ALONE, 0, 0, 1, 0, 0};
                *why = LEFT_MIXED_TYPES; /* every rank sees it */
            }
        }
        if (err == MPI_SUCCESS && plan->kind == SG_PLAN_W1B && plan->windows > 1)
            err = PMPI_Scatter(fit->win.of, 1, MPI_INT, &told->mine, 1, MPI_INT, c->root,
                               c->comm);
        if (err == MPI_SUCCESS && plan->kind == SG_PLAN_W1A && plan->rounds) {
            /* W1-A's groups follow the windows: every rank needs all of them */
            if (!sh->is_root && (told->of = malloc((size_t)procs * sizeof *told->of)) == NULL)
                err = MPI_ERR_NO_MEM; /* then the root waits in the Bcast: as MPI would */
            else
                err = PMPI_Bcast(sh->is_root ? fit->win.of : told->of, procs, MPI_INT, c->root,
                                 c->comm);
        }
        if (!sh->is_root) {
            told->count = (int)plan->windows;
            *windows = told;
        }
    } else {
        /* No rank sees every layout, so each contributes its own (wants
         * W1-B, rounds, cannot cut, its windows) and one small
         * Allreduce(MAX) gives every rank all of it: any rank's need for
         * W1-B makes every rank cut, unless some rank cannot cut its layout
         * (or has given up on it), or the ranks' windows differ (count and
         * digest, each also negated so that MAX yields the minimum too), or
         * their datatypes hold different numbers of basic elements; the
         * largest block anywhere sets the rounds. W1-A must be every rank's
         * choice or none's (whether it applies can depend on a rank's
         * receive type). */
        int mine_blocks = !fit->cuts || *why == LEFT_DISPLS;
        int64_t digest = sg_windows_fingerprint(&fit->win, procs);
        int64_t w1a = plan->kind == SG_PLAN_W1A;
        int64_t mine[11] = {plan->kind == SG_PLAN_W1B, fit->rounds, mine_blocks,
                            fit->win.count, -(int64_t)fit->win.count, digest, -digest,
                            elements[0], elements[1], w1a, -w1a};
        int64_t all[11];
        err = PMPI_Allreduce(mine, all, 11, MPI_INT64_T, MPI_MAX, c->comm);
        if (err == MPI_SUCCESS && !all[0] && all[9] != -all[10]) {
            /* W1-A on some ranks only (their receive types have no holes) */
            *plan = (struct sg_plan){SG_PLAN_LEFT_ALONE, 0, 0, 1, 0, 0};
            *why = LEFT_MIXED_TYPES; /* every rank sees it */
        } else if (err == MPI_SUCCESS && all[0]) {
            if (all[7] != -all[8]) {
                *plan = (struct sg_plan){SG_PLAN_LEFT_ALONE, 0, 0, 1, 0, 0};
                *why = LEFT_MIXED_TYPES;
            } else if (all[2]) {
                *plan = (struct sg_plan){SG_PLAN_LEFT_ALONE, 0, 0, 1, 0, 0};
                if (*why != LEFT_DISPLS) /* else reported already */
                    *why = !mine_blocks    ? -1 /* the blocking rank reports */
                           : fit->too_many ? LEFT_TOO_MANY_ROUNDS
                                           : LEFT_CANNOT_CUT;
            } else if (all[3] != -all[4] || all[5] != -all[6]) {
                *plan = (struct sg_plan){SG_PLAN_LEFT_ALONE, 0, 0, 1, 0, 0};
                *why = fit->win.count > 1 ? LEFT_WINDOWS_DIFFER : -1;
            } else {
                *plan = (struct sg_plan){SG_PLAN_W1B, fit->chunk, all[1], fit->win.count, 0, 0};
            }
        }
    }
    return err;
}
