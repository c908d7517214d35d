/* W3: see w3.h. */
#include "w3.h"

#include "workaround.h"

#include <stdio.h>
#include <stdlib.h>

/* The large-count form of a v-routine with int displacements, where this
 * MPI has it (detectors/routines.h, SG_FORM_LIST), else -1. */
int sg_w3_routine(enum sg_routine routine)
{
    if (!sg_routines[routine].irregular || sg_displs_are_aint(routine))
        return -1;
    return sg_in_count_form(routine, 1);
}

/* A V side's counts and displacements in the large-count types. */
struct wide {
    MPI_Count *counts;
    MPI_Aint *displs;
};

static int widen(const struct sg_side *side, struct wide *w)
{
    int procs = side->blocks;
    w->counts = NULL;
    w->displs = NULL;
    if (side->layout != SG_SIDE_V && side->layout != SG_SIDE_W) /* W: bytes */
        return MPI_SUCCESS;
    w->counts = malloc((size_t)(procs > 0 ? procs : 1) * sizeof *w->counts);
    w->displs = malloc((size_t)(procs > 0 ? procs : 1) * sizeof *w->displs);
    if (w->counts == NULL || w->displs == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < procs; i++) {
        w->counts[i] = sg_count_at(side->counts, i);
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
    int large = sg_w3_routine(c->routine);
    if (large < 0)
        return -1;
    struct wide *w = calloc(2, sizeof *w); /* [0] send, [1] receive */
    if (w == NULL)
        return MPI_ERR_NO_MEM;
    int err = widen(&d->send, &w[0]);
    if (err == MPI_SUCCESS)
        err = widen(&d->recv, &w[1]);
    MPI_Request result = MPI_REQUEST_NULL;
    if (err == MPI_SUCCESS) {
        /* the same call in the large-count form, its V sides widened */
        struct sg_call wide = *c;
        wide.routine = (enum sg_routine)large;
        if (w[0].counts != NULL) {
            wide.sendcounts = SG_COUNTS(w[0].counts);
            wide.sdispls = SG_DISPLS(w[0].displs);
        }
        if (w[1].counts != NULL) {
            wide.recvcounts = SG_COUNTS(w[1].counts);
            wide.rdispls = SG_DISPLS(w[1].displs);
        }
        if (sg_is_nonblocking(wide.routine))
            wide.request = &result;
        err = sg_call_invoke(runner->mpi, &wide);
    }
    if (err == MPI_SUCCESS && result != MPI_REQUEST_NULL)
        err = sg_runner_add(runner, result);
    int kept = sg_keep(runner, release_wide, w); /* the arrays live until it is done */
    return err != MPI_SUCCESS ? err : kept;
}

/* ---- W3's row (workaround.h) ---------------------------------------------- */

/* Class D alone (the call's own arrays wrapped), where this MPI has the
 * large-count function; not where the routine has a bound: its problem is
 * inside the MPI, and the large-count function runs the same code (MPICH
 * 4.0.2's MPI_Scatter_c crashes like MPI_Scatter); never for a call whose
 * displacements are MPI_Aint (a large-count form's, Neighbor_alltoallw's),
 * which cannot wrap. */
static int w3_allowed(const struct sg_choice *ch)
{
    return ch->v->cls >= 0 && sg_classes[ch->v->cls].from_displs && !ch->bounded &&
           !sg_displs_are_aint(ch->c->routine);
}

static int w3_applies(const struct sg_choice *ch)
{
    return w3_allowed(ch) && sg_w3_routine(ch->c->routine) >= 0;
}

static enum sg_unavailable w3_unavailable(const struct sg_choice *ch, char *why, size_t size)
{
    const char *routine = sg_routines[sg_called(ch->c)].name;
    if (sg_displs_are_aint(ch->c->routine)) {
        snprintf(why, size, "W3 does not apply to this call: its MPI_Aint displacements "
                            "cannot wrap, nothing is to widen");
        return SG_UNAVAILABLE_CANNOT_APPLY;
    }
    if (w3_allowed(ch)) {
        snprintf(why, size,
                 "W3 is unavailable: this MPI has no large-count %s_c; using the next valid "
                 "workaround", routine);
        return SG_UNAVAILABLE_HERE;
    }
    snprintf(why, size, "the routine has a bound: its problem is inside the MPI, whose "
                        "large-count function runs the same code");
    return SG_UNAVAILABLE_CANNOT_APPLY;
}

static int run_w3(struct sg_runner *runner, const struct sg_call *c, const struct sg_run_with *r)
{
    return sg_w3(runner, c, r->d);
}

static void how_w3(char *how, size_t size, const struct sg_call *c, const struct sg_run_with *r)
{
    (void)r;
    snprintf(how, size, "W3 (P%s)", sg_routines[sg_w3_routine(c->routine)].name);
}

const struct sg_workaround_op sg_w3_op = {
    .name = SG_WORKAROUND_W3, .kind = SG_PLAN_W3, .local = 1, .applies = w3_applies,
    .plan = sg_one_call_plan, .unavailable = w3_unavailable, .run = run_w3, .how = how_w3};
