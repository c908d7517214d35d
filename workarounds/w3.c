/* W3: see w3.h. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "w3.h"

#include "workaround.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The MPI-4.0 functions (sections 6.6-6.8), from the routines' rows. */
static const char *const names[SG_ROUTINE_COUNT] = {
#define W3_NAME(Name, params_c, args_c) [SG_MPI_##Name] = "PMPI_" #Name "_c",
    SG_LARGE_COUNT_LIST(W3_NAME)
#undef W3_NAME
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
    int err = widen(&d->send, &w[0]);
    if (err == MPI_SUCCESS)
        err = widen(&d->recv, &w[1]);
    MPI_Request result = MPI_REQUEST_NULL, *request = &result;
    if (err == MPI_SUCCESS) {
        const MPI_Count *send_counts = w[0].counts, *recv_counts = w[1].counts;
        const MPI_Aint *send_displs = w[0].displs, *recv_displs = w[1].displs;
        /* POSIX: dlsym's result converts to a function pointer. */
        switch (c->routine) {
#define W3_CALL(Name, params_c, args_c)                                                        \
    case SG_MPI_##Name:                                                                        \
        err = ((int(*) params_c)f) args_c;                                                      \
        break;
            SG_LARGE_COUNT_LIST(W3_CALL)
#undef W3_CALL
        default:
            err = -1;
            break;
        }
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
 * 4.0.2's MPI_Scatter_c crashes like MPI_Scatter). */
static int w3_allowed(const struct sg_choice *ch)
{
    return ch->v->cls >= 0 && sg_classes[ch->v->cls].from_displs && !ch->bounded;
}

static int w3_applies(const struct sg_choice *ch)
{
    return w3_allowed(ch) && sg_w3_function(ch->c->routine) != NULL;
}

static enum sg_unavailable w3_unavailable(const struct sg_choice *ch, char *why, size_t size)
{
    const char *routine = sg_routines[ch->c->routine].name;
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
    snprintf(how, size, "W3 (%s)", sg_w3_function(c->routine));
}

const struct sg_workaround_op sg_w3_op = {
    .name = SG_WORKAROUND_W3, .kind = SG_PLAN_W3, .local = 1, .applies = w3_applies,
    .plan = sg_one_call_plan, .unavailable = w3_unavailable, .run = run_w3, .how = how_w3};
