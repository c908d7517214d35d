/* Carriers of persistent calls' plans: see persistent.h. Built only where
 * the MPI has persistent collectives (SCALEGUARD_PERSISTENT). */
#include "persistent.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "layer.h"
#include "pending.h"

struct carried {
    MPI_Request carrier;       /* what the caller holds */
    int tag;                   /* its message's, on `self` */
    struct sg_plan_kept *plan; /* its call and plan, until MPI_Request_free */
    struct carried *next;
};

/* Every carrier not freed, and the layer's copy of MPI_COMM_SELF their
 * messages go on (made with the first), with the tags they take in turn
 * (below MPI_TAG_UB: no two live carriers share one). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct carried *carriers;
static atomic_int carrier_count;
static MPI_Comm self = MPI_COMM_NULL;
static int next_tag, tag_bound;

/* The carrier `request`, or NULL (under the lock). */
static struct carried *find(MPI_Request request)
{
    struct carried *c = carriers;
    while (c != NULL && c->carrier != request)
        c = c->next;
    return request == MPI_REQUEST_NULL ? NULL : c;
}

/* A tag no live carrier has (under the lock). */
static int free_tag(void)
{
    for (;;) {
        int tag = next_tag;
        next_tag = next_tag == tag_bound ? 0 : next_tag + 1;
        struct carried *c = carriers;
        while (c != NULL && c->tag != tag)
            c = c->next;
        if (c == NULL)
            return tag;
    }
}

int sg_persistent_carry(struct sg_plan_kept *k, MPI_Request *request)
{
    struct carried *c = calloc(1, sizeof *c);
    if (c == NULL)
        return MPI_ERR_NO_MEM;
    int err = MPI_SUCCESS;
    pthread_mutex_lock(&lock);
    if (self == MPI_COMM_NULL) {
        int *bound, found;
        err = PMPI_Comm_dup(MPI_COMM_SELF, &self);
        if (err == MPI_SUCCESS)
            err = PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &bound, &found);
        tag_bound = err == MPI_SUCCESS && found ? *bound : 32767;
    }
    c->tag = free_tag();
    if (err == MPI_SUCCESS)
        err = PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, c->tag, self, &c->carrier);
    if (err == MPI_SUCCESS) {
        c->plan = k;
        c->next = carriers;
        carriers = c;
        atomic_fetch_add(&carrier_count, 1);
        *request = c->carrier;
    }
    pthread_mutex_unlock(&lock);
    if (err != MPI_SUCCESS)
        free(c);
    return err;
}

/* A carrier's run is done: its message completes it (pending.h's done). */
static void completed(void *state)
{
    const struct carried *c = state;
    PMPI_Send(NULL, 0, MPI_BYTE, 0, c->tag, self);
}

/* Start one request: a carrier and its plan, anything else the MPI's. The
 * plan's request (a generalized one, or the MPI's own where the plan makes
 * the call as it is) goes behind one of pending.h's, which the carrier's
 * completion follows. */
static int start(MPI_Request *request)
{
    pthread_mutex_lock(&lock);
    struct carried *c = find(*request);
    pthread_mutex_unlock(&lock);
    if (c == NULL)
        return PMPI_Start(request);
    int err = PMPI_Start(request); /* an active one: the MPI's error */
    if (err != MPI_SUCCESS)
        return err;
    MPI_Request run = MPI_REQUEST_NULL, behind;
    struct sg_runner runner = SG_RUNNER(&sg_pmpi, 1);
    err = sg_plan_start(c->plan, &run);
    if (err == MPI_SUCCESS && run != MPI_REQUEST_NULL)
        err = sg_runner_add(&runner, run);
    if (err == MPI_SUCCESS)
        err = sg_pending_start(&runner, &behind);
    if (err != MPI_SUCCESS) {
        completed(c); /* what was started has ended: the carrier with it */
        return err;
    }
    sg_pending_release(behind, c->carrier, completed, c);
    return MPI_SUCCESS;
}

static int any_carrier(void)
{
    return atomic_load_explicit(&carrier_count, memory_order_acquire) > 0;
}

/* Neither is observed: the trace and the watchdog see the `_init` and the
 * completion calls (protect/README.md, "Forms"). */
SG_FORWARDED_ENTRY(MPI_Start)
int SG_ENTRY(MPI_Start)(MPI_Request *request)
{
    return any_carrier() ? start(request) : PMPI_Start(request);
}

/* Each in turn, as MPI_Startall starts them (in order). */
SG_FORWARDED_ENTRY(MPI_Startall)
int SG_ENTRY(MPI_Startall)(int count, MPI_Request requests[])
{
    if (!any_carrier())
        return PMPI_Startall(count, requests);
    for (int i = 0; i < count; i++) {
        int err = start(&requests[i]);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* mpi_f08's MPI_Start and MPI_Startall call PMPI_Start and PMPI_Startall
 * (libmpichfort.so), past the C ones, and so do its completion calls,
 * where nothing moves a carrier's run on (MPICH polls a generalized
 * request only where it is waited for): a carrier started from mpi_f08
 * runs to its end inside the Start, as an I-form of a Fortran caller on
 * Open MPI does (protect/README.md, "Forms"). MPICH's Fortran handles are
 * its C ones. */
static int start_to_end(MPI_Fint *request)
{
    MPI_Request r = PMPI_Request_f2c(*request);
    int err = SG_ENTRY(MPI_Start)(&r);
    if (err == MPI_SUCCESS)
        sg_pending_finish(r);
    *request = PMPI_Request_c2f(r);
    return err;
}

void sg_entry_mpi_start_f08_(MPI_Fint *request, MPI_Fint *ierr);
void sg_entry_mpi_start_f08_(MPI_Fint *request, MPI_Fint *ierr)
{
    int err = start_to_end(request);
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}
SG_FORWARDED_STUB(mpi_start_f08_, sg_entry_mpi_start_f08_)
void sg_entry_mpi_startall_f08_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr);
void sg_entry_mpi_startall_f08_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr)
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < *count && err == MPI_SUCCESS; i++)
        err = start_to_end(&requests[i]);
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}
SG_FORWARDED_STUB(mpi_startall_f08_, sg_entry_mpi_startall_f08_)
/* Its MPI_Request_free calls PMPI_Request_free: a carrier's plan with it
 * (the layer's MPI_Request_free, pending.c). */
extern __typeof__(MPI_Request_free) SG_ENTRY(MPI_Request_free) SG_HIDDEN;
void sg_entry_mpi_request_free_f08_(MPI_Fint *request, MPI_Fint *ierr);
void sg_entry_mpi_request_free_f08_(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*request);
    int err = SG_ENTRY(MPI_Request_free)(&r);
    *request = PMPI_Request_c2f(r);
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}
SG_FORWARDED_STUB(mpi_request_free_f08_, sg_entry_mpi_request_free_f08_)

/* The layer's MPI_Wait (pending.c). */
extern __typeof__(MPI_Wait) SG_ENTRY(MPI_Wait) SG_HIDDEN;

int sg_persistent_free(MPI_Request *request, int *err)
{
    if (!any_carrier())
        return 0;
    pthread_mutex_lock(&lock);
    struct carried *c = find(*request);
    pthread_mutex_unlock(&lock);
    if (c == NULL)
        return 0;
    /* an active carrier's sub-calls read the plan: done first, by the
     * layer's MPI_Wait, which moves them on (inactive: at once) */
    *err = SG_ENTRY(MPI_Wait)(request, MPI_STATUS_IGNORE);
    pthread_mutex_lock(&lock);
    struct carried **link = &carriers;
    while (*link != c)
        link = &(*link)->next;
    *link = c->next;
    atomic_fetch_sub(&carrier_count, 1);
    pthread_mutex_unlock(&lock);
    int freed = PMPI_Request_free(request);
    if (*err == MPI_SUCCESS)
        *err = freed;
    sg_plan_free(c->plan);
    free(c);
    return 1;
}
