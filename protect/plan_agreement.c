/* The agreement of a call whose ranks cannot work out their part alone:
 * see plan.h. */
#include "plan.h"

#include <stdlib.h>

int sg_agree_on_plan(const struct sg_call *c, const struct sg_shape *sh,
                     const struct w1b_fit *fit, struct plan *plan, int *why,
                     struct sg_windows *told, const struct sg_windows **windows)
{
    int err = MPI_SUCCESS, procs = (int)sh->procs;
    if (sg_routines[c->routine].knows == SG_KNOWS_ROOT) {
        /* How the decision reaches the non-roots: the root alone can decide
         * (it alone sees counts and displs), and its plan (kind, chunk,
         * rounds, windows: 32 bytes) goes out in one Bcast on the call's own
         * communicator. The cheapest there is: the non-roots cannot work
         * the plan out, so some message must reach each of them, and one
         * small Bcast is exactly that, along the MPI's own tree. Routines
         * without a bound pay nothing: Class D is fixed by the root alone
         * (W2, or W1-B in one window), which needs no agreement. With more
         * than one window each rank gets its own in a Scatter (protect.c,
         * "Class D by windows"). */
        err = PMPI_Bcast(plan, PLAN_FIELDS, MPI_INT64_T, c->root, c->comm);
        if (err == MPI_SUCCESS && plan->kind == PLAN_W1B && plan->windows > 1)
            err = PMPI_Scatter(fit->win.of, 1, MPI_INT, &told->mine, 1, MPI_INT, c->root,
                               c->comm);
        if (err == MPI_SUCCESS && plan->kind == PLAN_W1A && plan->rounds) {
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
         * digest, each also negated so that MAX yields the minimum too); the
         * largest block anywhere sets the rounds. */
        int mine_blocks = !fit->cuts || *why == LEFT_DISPLS;
        int64_t digest = sg_windows_fingerprint(&fit->win, procs);
        int64_t mine[7] = {plan->kind == PLAN_W1B, fit->rounds, mine_blocks,
                           fit->win.count, -(int64_t)fit->win.count, digest, -digest};
        int64_t all[7];
        err = PMPI_Allreduce(mine, all, 7, MPI_INT64_T, MPI_MAX, c->comm);
        if (err == MPI_SUCCESS && all[0]) {
            if (all[2]) {
                *plan = (struct plan){PLAN_LEFT_ALONE, 0, 0, 1, 0};
                if (*why != LEFT_DISPLS) /* else reported already */
                    *why = mine_blocks ? LEFT_CANNOT_CUT : -1; /* -1: the blocking rank reports */
            } else if (all[3] != -all[4] || all[5] != -all[6]) {
                *plan = (struct plan){PLAN_LEFT_ALONE, 0, 0, 1, 0};
                *why = fit->win.count > 1 ? LEFT_WINDOWS_DIFFER : -1;
            } else {
                *plan = (struct plan){PLAN_W1B, fit->chunk, all[1], fit->win.count, 0};
            }
        }
    }
    return err;
}
