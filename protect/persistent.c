/* Carriers of persistent calls' plans: see persistent.h. Built only where
 * the MPI has persistent collectives (SCALEGUARD_PERSISTENT). */
#include "persistent.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "layer.h"

struct carried {
    MPI_Request carrier;       /* what the caller holds */
    struct sg_plan_kept *plan; /* its call and plan, until MPI_Request_free */
    MPI_Request internal;      /* while active: the request its Start made */
    int active;
    struct carried *next;
};

/* Every carrier not freed; `active` and `internal` change under the lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct carried *carriers;
static atomic_int carrier_count, active_count;

/* The carrier `request`, or NULL (under the lock). */
static struct carried *find(MPI_Request request)
{
    struct carried *c = carriers;
    while (c != NULL && c->carrier != request)
        c = c->next;
    return request == MPI_REQUEST_NULL ? NULL : c;
}

int sg_persistent_carry(struct sg_plan_kept *k, MPI_Request *request)
{
    struct carried *c = calloc(1, sizeof *c);
    if (c == NULL)
        return MPI_ERR_NO_MEM;
    int err = PMPI_Send_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &c->carrier);
    if (err != MPI_SUCCESS) {
        free(c);
        return err;
    }
    c->plan = k;
    c->internal = MPI_REQUEST_NULL;
    pthread_mutex_lock(&lock);
    c->next = carriers;
    carriers = c;
    atomic_fetch_add(&carrier_count, 1);
    pthread_mutex_unlock(&lock);
    *request = c->carrier;
    return MPI_SUCCESS;
}

int sg_persistent_any_active(void)
{
    return atomic_load_explicit(&active_count, memory_order_acquire) > 0;
}

int sg_persistent_swap_in(int count, const MPI_Request requests[], MPI_Request into[])
{
    int any = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < count; i++) {
        struct carried *c = find(requests[i]);
        into[i] = c != NULL && c->active ? c->internal : requests[i];
        any |= c != NULL && c->active;
    }
    pthread_mutex_unlock(&lock);
    return any;
}

void sg_persistent_swap_out(int count, MPI_Request requests[], const MPI_Request into[])
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < count; i++) {
        struct carried *c = find(requests[i]);
        if (c == NULL || !c->active) {
            requests[i] = into[i];
        } else if (into[i] == MPI_REQUEST_NULL) { /* done: inactive, startable again */
            c->active = 0;
            c->internal = MPI_REQUEST_NULL;
            atomic_fetch_sub(&active_count, 1);
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Start one request: a carrier's plan, anything else the MPI's. Starting
 * an active request is erroneous (MPI 4.0, 3.9): MPI_ERR_REQUEST. */
static int start(MPI_Request *request)
{
    pthread_mutex_lock(&lock);
    struct carried *c = find(*request);
    int active = c != NULL && c->active;
    pthread_mutex_unlock(&lock);
    if (c == NULL)
        return PMPI_Start(request);
    if (active)
        return MPI_ERR_REQUEST;
    MPI_Request internal = MPI_REQUEST_NULL;
    int err = sg_plan_start(c->plan, &internal);
    if (err != MPI_SUCCESS)
        return err;
    pthread_mutex_lock(&lock);
    c->internal = internal;
    c->active = 1;
    atomic_fetch_add(&active_count, 1);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

static int any_carrier(void)
{
    return atomic_load_explicit(&carrier_count, memory_order_acquire) > 0;
}

/* Neither is observed: the trace and the watchdog see the `_init` and the
 * completion calls (README, "Forms"). */
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

/* The layer's MPI_Wait (pending.c), which completes an active carrier. */
extern __typeof__(MPI_Wait) SG_ENTRY(MPI_Wait) SG_HIDDEN;

int sg_persistent_free(MPI_Request *request, int *err)
{
    if (!any_carrier())
        return 0;
    pthread_mutex_lock(&lock);
    struct carried *c = find(*request);
    int active = c != NULL && c->active;
    pthread_mutex_unlock(&lock);
    if (c == NULL)
        return 0;
    *err = active ? SG_ENTRY(MPI_Wait)(request, MPI_STATUS_IGNORE) : MPI_SUCCESS;
    pthread_mutex_lock(&lock);
    struct carried **link = &carriers;
    while (*link != c)
        link = &(*link)->next;
    *link = c->next;
    atomic_fetch_sub(&carrier_count, 1);
    pthread_mutex_unlock(&lock);
    int freed = PMPI_Request_free(&c->carrier);
    if (*err == MPI_SUCCESS)
        *err = freed;
    sg_plan_free(c->plan);
    free(c);
    *request = MPI_REQUEST_NULL;
    return 1;
}
