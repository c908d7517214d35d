/* Generalized requests over a workaround's sub-calls: see pending.h. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "pending.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "layer.h"
#include "persistent.h"

struct pending {
    MPI_Request request;     /* the generalized request the caller holds */
    struct sg_runner runner; /* the sub-calls, and what they keep */
    int error;               /* the first error of a sub-call: the request's */
    int freed;               /* the caller let go of its handle (MPI_Request_free) */
    void (*done)(void *);    /* freed by sg_pending_release: called once complete */
    void *done_state;
    MPI_Request stands_for;  /* the caller's request that completes with it (a carrier) */
    atomic_flag busy;        /* a thread is moving it on */
    atomic_int completed;    /* left the list: MPI_Grequest_complete is called */
    struct pending *next;
};

/* The outstanding ones. A thread claims one (busy) while it moves it on,
 * so no lock is held inside MPI; only a completed one leaves the list,
 * and MPI frees it (free_state) when the caller's request is done. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pending *outstanding;
static atomic_int outstanding_count;

static int any_outstanding(void) { return atomic_load(&outstanding_count) > 0; }

/* ---- The generalized request's callbacks ---------------------------------- */

static int query(void *state, MPI_Status *status)
{
    struct pending *p = state;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = p->error;
    return p->error;
}

static int free_state(void *state)
{
    free(state); /* MPI frees the request after it completed: nothing is left */
    return MPI_SUCCESS;
}

static int cancel(void *state, int complete)
{
    (void)state; /* a collective cannot be cancelled: it completes as it would */
    (void)complete;
    return MPI_SUCCESS;
}

/* ---- Moving one on -------------------------------------------------------- */

static void unlink_completed(struct pending *p)
{
    pthread_mutex_lock(&lock);
    struct pending **link = &outstanding;
    while (*link != p)
        link = &(*link)->next;
    *link = p->next;
    atomic_fetch_sub(&outstanding_count, 1);
    pthread_mutex_unlock(&lock);
}

static void progress_all(int block);

/* Move on `p`, which this thread has claimed; wait for it if `block`. When
 * done it leaves the list and completes; else it is released. Waiting moves
 * every other outstanding one on too: a later stage of a workaround starts
 * only from the layer (runner.h), and another rank may be waiting for a
 * stage of one this rank is not waiting for (without it both MPIs hung:
 * tests/protect/crossed_waits.c). */
static void progress_claimed(struct pending *p, int block)
{
    int done = 1;
    int err = sg_runner_test(&p->runner, &done);
    while (block && err == MPI_SUCCESS && !done) {
        if (atomic_load(&outstanding_count) > 1)
            progress_all(0); /* the others: `p` is claimed by this thread */
        err = sg_runner_test(&p->runner, &done);
    }
    if (err != MPI_SUCCESS && p->error == MPI_SUCCESS)
        p->error = err;
    if (!done) {
        atomic_flag_clear(&p->busy);
        return;
    }
    unlink_completed(p);
    atomic_store(&p->completed, 1);
    MPI_Request request = p->request;
    pthread_mutex_lock(&lock);
    int freed = p->freed;
    void (*then)(void *) = p->done;
    void *then_state = p->done_state;
    pthread_mutex_unlock(&lock);
    PMPI_Grequest_complete(request); /* from here on MPI may free `p` */
    if (freed) /* the caller's MPI_Request_free, done now */
        PMPI_Wait(&request, MPI_STATUS_IGNORE);
    if (then != NULL)
        then(then_state);
}

/* MPICH's extended generalized requests are polled by its progress engine,
 * so they complete even where a completion call goes past the layer (its
 * mpi_f08 MPI_Wait calls PMPI_Wait). */
static int poll(void *state, MPI_Status *status)
{
    (void)status;
    struct pending *p = state;
    if (!atomic_flag_test_and_set(&p->busy)) /* else this thread or another is on it */
        progress_claimed(p, 0);
    return MPI_SUCCESS;
}

/* MPICH's wait function: block until each is complete. Called by the
 * thread that waits on them, so none is freed meanwhile. */
static int wait_for(int count, void **states, double timeout, MPI_Status *status)
{
    (void)timeout; /* MPICH passes 0: no limit */
    (void)status;
    for (int i = 0; i < count; i++) {
        struct pending *p = states[i];
        while (!atomic_load(&p->completed)) {
            if (!atomic_flag_test_and_set(&p->busy))
                progress_claimed(p, 1);
            else
                sched_yield(); /* another thread is testing it */
        }
    }
    return MPI_SUCCESS;
}

typedef int grequest_start_polled(MPI_Grequest_query_function *, MPI_Grequest_free_function *,
                                  MPI_Grequest_cancel_function *,
                                  int (*)(void *, MPI_Status *),
                                  int (*)(int, void **, double, MPI_Status *), void *,
                                  MPI_Request *);
static grequest_start_polled *start_polled;
static pthread_once_t looked_up = PTHREAD_ONCE_INIT;

static void look_up(void)
{
    /* POSIX: dlsym's result converts to a function pointer */
    *(void **)&start_polled = dlsym(RTLD_DEFAULT, "PMPIX_Grequest_start");
}

/* Claim the one behind `request`: 1 claimed, 0 not one of ours (any more),
 * -1 claimed by another thread for now. */
static int claim(MPI_Request request, struct pending **claimed)
{
    int result = 0;
    pthread_mutex_lock(&lock);
    for (struct pending *p = outstanding; p != NULL; p = p->next)
        if (p->request == request ||
            (p->stands_for != MPI_REQUEST_NULL && p->stands_for == request)) {
            result = atomic_flag_test_and_set(&p->busy) ? -1 : 1;
            *claimed = p;
            break;
        }
    pthread_mutex_unlock(&lock);
    return result;
}

/* Finish every one among `requests` (the caller waits for them). */
static void finish_among(int count, const MPI_Request requests[])
{
    for (int i = 0; i < count; i++) {
        struct pending *p;
        int claimed;
        if (requests[i] == MPI_REQUEST_NULL)
            continue;
        while ((claimed = claim(requests[i], &p)) < 0)
            sched_yield(); /* another thread is testing it: let it finish testing */
        if (claimed)
            progress_claimed(p, 1);
    }
}

/* Move on every outstanding one that no other thread is on, or finish
 * them all if `block`. */
static void progress_all(int block)
{
    int n = atomic_load(&outstanding_count);
    struct pending **mine = malloc((size_t)(n > 0 ? n : 1) * sizeof *mine);
    if (mine == NULL)
        return;
    int count = 0;
    pthread_mutex_lock(&lock);
    for (struct pending *p = outstanding; p != NULL && count < n; p = p->next)
        if (!atomic_flag_test_and_set(&p->busy))
            mine[count++] = p;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < count; i++)
        progress_claimed(mine[i], block);
    free(mine);
}

/* ---- Starting ------------------------------------------------------------- */

int sg_pending_start(struct sg_runner *runner, MPI_Request *request)
{
    struct pending *p = calloc(1, sizeof *p);
    if (p == NULL) {
        sg_runner_finish(runner);
        return MPI_ERR_NO_MEM;
    }
    p->stands_for = MPI_REQUEST_NULL;
    atomic_flag_clear(&p->busy);
    atomic_flag_test_and_set(&p->busy); /* no one moves it on before it is listed */
    pthread_once(&looked_up, look_up);
    int err = start_polled ? start_polled(query, free_state, cancel, poll, wait_for, p, &p->request)
                           : PMPI_Grequest_start(query, free_state, cancel, p, &p->request);
    if (err != MPI_SUCCESS) {
        sg_runner_finish(runner);
        free(p);
        return err;
    }
    p->runner = *runner;
    *runner = SG_RUNNER(runner->mpi, runner->nonblocking);
    *request = p->request;
    pthread_mutex_lock(&lock);
    p->next = outstanding;
    outstanding = p;
    atomic_fetch_add(&outstanding_count, 1);
    pthread_mutex_unlock(&lock);
    progress_claimed(p, 0); /* completes at once when nothing was started */
    return MPI_SUCCESS;
}

void sg_pending_release(MPI_Request request, MPI_Request stands_for, void (*done)(void *),
                        void *state)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (struct pending *p = outstanding; p != NULL && !found; p = p->next)
        if (p->request == request) {
            found = p->freed = 1;
            p->done = done;
            p->done_state = state;
            p->stands_for = stands_for;
        }
    pthread_mutex_unlock(&lock);
    if (!found) { /* it left the list, complete or about to be */
        PMPI_Wait(&request, MPI_STATUS_IGNORE);
        done(state);
    }
}

void sg_pending_finish(MPI_Request stands_for)
{
    if (any_outstanding())
        finish_among(1, &stands_for);
}

void sg_pending_finish_all(void)
{
    while (any_outstanding())
        progress_all(1);
}

/* ---- Completion calls ----------------------------------------------------- */

/* Every outstanding one is moved on by any completion call that could see
 * it complete (or that runs while the caller's freed ones still run). */
static void progress_everything(void) { progress_all(0); }

/* Observed (observe.h): the blocking ones are watched, without a peer;
 * the trace sees which requests they complete. */
static void entering(const char *routine, enum sg_watch_kind kind, int count,
                     const MPI_Request requests[])
{
    sg_observe_enter(&(struct sg_observed_call){
        .kind = kind, .routine = routine, .comm = MPI_COMM_NULL, .root = SG_WATCH_NONE,
        .dest = SG_WATCH_NONE, .source = SG_WATCH_NONE, .count = -1,
        .type = MPI_DATATYPE_NULL});
    sg_observe_completing(count, requests);
}

/* `done` of the requests completed: those at `indices` (NULL: the first
 * `done`), with `statuses` (NULL: ignored). */
static int left(int err, int done, const int *indices, const MPI_Status *statuses)
{
    if (err == MPI_SUCCESS && done > 0 && done != MPI_UNDEFINED)
        sg_observe_completed(done, indices, statuses);
    return sg_observe_leave(err);
}

/* The statuses a completion call kept, or NULL where the caller ignores
 * them. Not inlined: seeing a call's statuses compared with
 * MPI_STATUSES_IGNORE, gcc 12 at -O3 splits the path and warns that
 * MPICH's PMPI_Waitall would write to that constant. */
static __attribute__((noinline)) const MPI_Status *kept(const MPI_Status *statuses,
                                                        const MPI_Status *ignore)
{
    return statuses == ignore ? NULL : statuses;
}
#define KEPT(statuses) kept(statuses, MPI_STATUSES_IGNORE)
#define KEPT_ONE(status) kept(status, MPI_STATUS_IGNORE)

SG_FORWARDED_ENTRY(MPI_Wait)
int SG_ENTRY(MPI_Wait)(MPI_Request *request, MPI_Status *status)
{
    entering("MPI_Wait", SG_WATCH_WAIT, 1, request);
    if (any_outstanding())
        finish_among(1, request);
    return left(PMPI_Wait(request, status), 1, NULL, KEPT_ONE(status));
}

SG_FORWARDED_ENTRY(MPI_Test)
int SG_ENTRY(MPI_Test)(MPI_Request *request, int *flag, MPI_Status *status)
{
    entering("MPI_Test", SG_WATCH_OUTSIDE, 1, request);
    if (any_outstanding())
        progress_everything();
    int err = PMPI_Test(request, flag, status);
    return left(err, err == MPI_SUCCESS && *flag, NULL, KEPT_ONE(status));
}

SG_FORWARDED_ENTRY(MPI_Waitall)
int SG_ENTRY(MPI_Waitall)(int count, MPI_Request requests[], MPI_Status statuses[])
{
    entering("MPI_Waitall", SG_WATCH_WAIT, count, requests);
    if (any_outstanding())
        finish_among(count, requests);
    return left(PMPI_Waitall(count, requests, statuses), count, NULL, KEPT(statuses));
}

SG_FORWARDED_ENTRY(MPI_Testall)
int SG_ENTRY(MPI_Testall)(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    entering("MPI_Testall", SG_WATCH_OUTSIDE, count, requests);
    if (any_outstanding())
        progress_everything();
    int err = PMPI_Testall(count, requests, flag, statuses);
    return left(err, err == MPI_SUCCESS && *flag ? count : 0, NULL, KEPT(statuses));
}

SG_FORWARDED_ENTRY(MPI_Testany)
int SG_ENTRY(MPI_Testany)(int count, MPI_Request requests[], int *index, int *flag,
                          MPI_Status *status)
{
    entering("MPI_Testany", SG_WATCH_OUTSIDE, count, requests);
    if (any_outstanding())
        progress_everything();
    int err = PMPI_Testany(count, requests, index, flag, status);
    return left(err, err == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED, index,
                KEPT_ONE(status));
}

SG_FORWARDED_ENTRY(MPI_Testsome)
int SG_ENTRY(MPI_Testsome)(int incount, MPI_Request requests[], int *outcount, int indices[],
                           MPI_Status statuses[])
{
    entering("MPI_Testsome", SG_WATCH_OUTSIDE, incount, requests);
    if (any_outstanding())
        progress_everything();
    int err = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return left(err, err == MPI_SUCCESS ? *outcount : 0, indices, KEPT(statuses));
}

/* Whether one of ours is among `requests`. */
static int holds_one(int count, const MPI_Request requests[])
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (struct pending *p = outstanding; p != NULL && !found; p = p->next)
        for (int i = 0; i < count && !found; i++)
            found = requests[i] == p->request ||
                    (p->stands_for != MPI_REQUEST_NULL && requests[i] == p->stands_for);
    pthread_mutex_unlock(&lock);
    return found;
}

/* Waitany and Waitsome over one of ours: test until something completes
 * (ours can complete only when moved on, which a blocking PMPI call would
 * never do). */
static int wait_any(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (!any_outstanding() || !holds_one(count, requests))
        return PMPI_Waitany(count, requests, index, status);
    int flag = 0, err;
    do {
        progress_everything();
        err = PMPI_Testany(count, requests, index, &flag, status);
    } while (err == MPI_SUCCESS && !flag);
    return err;
}

static int wait_some(int incount, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[])
{
    if (!any_outstanding() || !holds_one(incount, requests))
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    int err;
    do {
        progress_everything();
        err = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    } while (err == MPI_SUCCESS && *outcount == 0);
    return err;
}

SG_FORWARDED_ENTRY(MPI_Waitany)
int SG_ENTRY(MPI_Waitany)(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    entering("MPI_Waitany", SG_WATCH_WAIT, count, requests);
    int err = wait_any(count, requests, index, status);
    return left(err, *index != MPI_UNDEFINED, index, KEPT_ONE(status));
}

SG_FORWARDED_ENTRY(MPI_Waitsome)
int SG_ENTRY(MPI_Waitsome)(int incount, MPI_Request requests[], int *outcount, int indices[],
                           MPI_Status statuses[])
{
    entering("MPI_Waitsome", SG_WATCH_WAIT, incount, requests);
    int err = wait_some(incount, requests, outcount, indices, statuses);
    return left(err, *outcount, indices, KEPT(statuses));
}

SG_FORWARDED_ENTRY(MPI_Request_get_status)
int SG_ENTRY(MPI_Request_get_status)(MPI_Request request, int *flag, MPI_Status *status)
{
    if (any_outstanding())
        progress_everything();
    return PMPI_Request_get_status(request, flag, status);
}

/* The caller lets go of its handle; the sub-calls still run to their end
 * (moved on by later completion calls, finished at MPI_Finalize). The
 * generalized request is freed when they are done: MPICH 4.0.2 refuses
 * MPI_Grequest_complete on one freed before. */
SG_FORWARDED_ENTRY(MPI_Request_free)
int SG_ENTRY(MPI_Request_free)(MPI_Request *request)
{
    int err;
    if (sg_persistent_free(request, &err)) /* a carrier: its plan with it */
        return err;
    if (!any_outstanding())
        return PMPI_Request_free(request);
    int found = 0;
    pthread_mutex_lock(&lock);
    for (struct pending *p = outstanding; p != NULL && !found; p = p->next)
        if (p->request == *request)
            found = p->freed = 1;
    pthread_mutex_unlock(&lock);
    if (!found)
        return PMPI_Request_free(request);
    *request = MPI_REQUEST_NULL;
    progress_everything();
    return MPI_SUCCESS;
}
