/* This process's state record: written on entry and exit of every watched
 * call by the calling thread, read by the helper thread (helper.c). A
 * sequence lock: the writer makes the count odd while it writes, the
 * reader copies and retries where the count moved. One record per
 * process: where several threads call MPI at once, it shows the latest.
 *
 * A communicator is named by its identity (observed/comm_identity.h): its
 * id, members and the call's number on it, the same on every member. */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

atomic_int sg_watching;

static struct {
    atomic_uint sequence;
    atomic_flag writing; /* one writer at a time */
    enum sg_watch_kind kind;
    const char *routine;
    struct sg_comm_identity *comm;
    uint64_t call;
    int root, dest, dest_tag, source, source_tag, held;
    double since;
    uint64_t serial;
    const char *workaround, *sub_routine;
    int sub_calls;
    uint64_t last_comm, last_call; /* the collective left last */
    const char *last_routine;
} record = {.writing = ATOMIC_FLAG_INIT};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double sg_watch_now(void) { return now_seconds(); }

static void begin_write(void)
{
    while (atomic_flag_test_and_set_explicit(&record.writing, memory_order_acquire))
        ;
    atomic_fetch_add_explicit(&record.sequence, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void end_write(void)
{
    atomic_fetch_add_explicit(&record.sequence, 1, memory_order_release);
    atomic_flag_clear_explicit(&record.writing, memory_order_release);
}

/* The world rank of a communicator's rank, or SG_WATCH_ANY / SG_WATCH_NONE. */
static int world_of(const struct sg_comm_identity *identity, int rank)
{
    if (rank == MPI_ANY_SOURCE)
        return SG_WATCH_ANY;
    if (rank < 0) /* MPI_PROC_NULL, MPI_ROOT */
        return SG_WATCH_NONE;
    return sg_comm_world_rank(identity, rank);
}

static int tag_of(int tag) { return tag == MPI_ANY_TAG ? SG_WATCH_ANY : tag; }

/* ---- Entry and exit ----------------------------------------------------- */

void sg_watch_enter(const struct sg_observed_call *call, struct sg_comm_identity *identity,
                    uint64_t number, double since)
{
    if (!atomic_load_explicit(&sg_watching, memory_order_relaxed))
        return;
    begin_write();
    record.kind = call->kind;
    record.routine = call->routine;
    record.comm = identity;
    record.call = number;
    record.root = call->root == SG_WATCH_NONE ? SG_WATCH_NONE : world_of(identity, call->root);
    record.dest = call->dest == SG_WATCH_NONE ? SG_WATCH_NONE : world_of(identity, call->dest);
    record.dest_tag = call->dest == SG_WATCH_NONE ? SG_WATCH_NONE : tag_of(call->dest_tag);
    record.source =
        call->source == SG_WATCH_NONE ? SG_WATCH_NONE : world_of(identity, call->source);
    record.source_tag = call->source == SG_WATCH_NONE ? SG_WATCH_NONE : tag_of(call->source_tag);
    record.held = 0;
    record.since = since;
    record.serial++;
    record.workaround = record.sub_routine = NULL;
    record.sub_calls = 0;
    end_write();
}

void sg_watch_leave(double since)
{
    if (!atomic_load_explicit(&sg_watching, memory_order_relaxed))
        return;
    begin_write();
    if (record.kind == SG_WATCH_COLLECTIVE && record.comm) {
        record.last_comm = record.comm->id;
        record.last_call = record.call;
        record.last_routine = record.routine;
    }
    record.kind = SG_WATCH_OUTSIDE;
    record.comm = NULL;
    record.since = since;
    record.serial++;
    record.workaround = record.sub_routine = NULL;
    end_write();
}

void sg_watch_workaround(const char *name)
{
    if (!atomic_load_explicit(&sg_watching, memory_order_relaxed))
        return;
    begin_write();
    record.workaround = name;
    record.sub_calls = 0;
    end_write();
}

void sg_watch_sub_call(const char *routine)
{
    if (!atomic_load_explicit(&sg_watching, memory_order_relaxed))
        return;
    begin_write();
    record.sub_routine = routine;
    record.sub_calls++;
    end_write();
}

void sg_watch_held(void)
{
    begin_write();
    record.held = 1;
    end_write();
}

void sg_watch_mark(enum sg_watch_kind kind, const char *routine)
{
    double since = now_seconds();
    begin_write();
    record.kind = kind;
    record.routine = routine;
    record.comm = NULL;
    record.held = 0;
    record.since = since;
    record.serial++;
    end_write();
}

/* ---- The helper's copy -------------------------------------------------- */

void sg_watch_snapshot(struct sg_watch_view *v)
{
    sg_comm_identity_lock(); /* no identity is freed while it is copied */
    for (;;) {
        unsigned before = atomic_load_explicit(&record.sequence, memory_order_acquire);
        if (before & 1)
            continue;
        v->kind = record.kind;
        snprintf(v->routine, sizeof v->routine, "%s", record.routine ? record.routine : "");
        v->sub[0] = '\0';
        if (record.workaround && record.sub_routine)
            snprintf(v->sub, sizeof v->sub, "%s, sub-call %d: %s", record.workaround,
                     record.sub_calls, record.sub_routine);
        else if (record.workaround)
            snprintf(v->sub, sizeof v->sub, "%s", record.workaround);
        const struct sg_comm_identity *info = record.comm;
        v->comm = info ? info->id : 0;
        v->comm_size = info ? info->size : 0;
        snprintf(v->members, sizeof v->members, "%s", info ? info->members : "");
        v->call = record.call;
        v->root = record.root;
        v->dest = record.dest;
        v->dest_tag = record.dest_tag;
        v->source = record.source;
        v->source_tag = record.source_tag;
        v->held = record.held;
        v->last_comm = record.last_comm;
        v->last_call = record.last_call;
        snprintf(v->last_routine, sizeof v->last_routine, "%s",
                 record.last_routine ? record.last_routine : "");
        v->since = record.since;
        v->serial = record.serial;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&record.sequence, memory_order_relaxed) == before)
            break;
    }
    sg_comm_identity_unlock();
}
