/* This process's state record: written on entry and exit of every watched
 * call by the calling thread, read by the helper thread (helper.c). A
 * sequence lock: the writer makes the count odd while it writes, the
 * reader copies and retries where the count moved. One record per
 * process: where several threads call MPI at once, it shows the latest.
 *
 * What the record names a communicator by is cached on it (an attribute,
 * made on its first watched call): an id that its members compute alike
 * (a digest of its members' world ranks: communicators with the same
 * members share it), its members as ranges of world ranks, its ranks'
 * world ranks for the peers, and the count of its collective calls. */
#include "record.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

atomic_int sg_watching;

struct comm_info {
    uint64_t id;
    int size;       /* its ranks (an intercommunicator's: both groups') */
    int *local;     /* world rank of each rank of the local group */
    int *remote;    /* the remote group's, or NULL */
    int local_size, remote_size;
    uint64_t calls; /* collectives entered on it */
    char members[sizeof ((struct sg_watch_view *)0)->members];
};

/* Comm infos are freed by the attribute's delete callback under this
 * lock, which the helper holds while it copies one out of the record. */
static pthread_mutex_t infos_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    atomic_uint sequence;
    atomic_flag writing; /* one writer at a time */
    enum sg_watch_kind kind;
    const char *routine;
    struct comm_info *comm;
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

/* ---- Communicators ------------------------------------------------------ */

static int delete_info(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    struct comm_info *info = value;
    pthread_mutex_lock(&infos_lock);
    free(info->local);
    free(info->remote);
    free(info);
    pthread_mutex_unlock(&infos_lock);
    return MPI_SUCCESS;
}

static int info_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static void make_keyval(void)
{
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_info, &info_keyval, NULL);
}

/* The world ranks of `group`'s ranks, in its order (MPI_UNDEFINED for a
 * process outside MPI_COMM_WORLD). */
static int *world_ranks(MPI_Group group, int *size)
{
    MPI_Group world;
    PMPI_Group_size(group, size);
    int *ranks = malloc((size_t)*size * sizeof *ranks);
    int *in_world = malloc((size_t)*size * sizeof *in_world);
    if (ranks == NULL || in_world == NULL || PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
        free(ranks);
        free(in_world);
        return NULL;
    }
    for (int i = 0; i < *size; i++)
        ranks[i] = i;
    PMPI_Group_translate_ranks(group, *size, ranks, world, in_world);
    PMPI_Group_free(&world);
    free(ranks);
    return in_world;
}

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Its id and members, from its groups' world ranks. */
static void describe_members(struct comm_info *info, int local_size, int remote_size)
{
    int count = local_size + remote_size;
    int *sorted = malloc((size_t)count * sizeof *sorted);
    uint64_t h = 1469598103934665603u; /* FNV-1a over the ranks, in order */
    for (int i = 0; i < count; i++) {
        int rank = i < local_size ? info->local[i] : info->remote[i - local_size];
        h = (h ^ (uint64_t)(uint32_t)rank) * 1099511628211u;
        if (sorted != NULL)
            sorted[i] = rank;
    }
    /* an intercommunicator's two sides list their groups in opposite
     * orders: the id of the sorted union is the same on both */
    if (remote_size > 0 && sorted != NULL) {
        qsort(sorted, (size_t)count, sizeof *sorted, ascending);
        h = 1469598103934665603u ^ 1; /* apart from an intracommunicator of the same ranks */
        for (int i = 0; i < count; i++)
            h = (h ^ (uint64_t)(uint32_t)sorted[i]) * 1099511628211u;
    } else if (sorted != NULL)
        qsort(sorted, (size_t)count, sizeof *sorted, ascending);
    info->id = h ? h : 1;
    info->size = count;
    info->members[0] = '\0';
    if (sorted != NULL && (count == 0 || sorted[0] != MPI_UNDEFINED))
        sg_watch_ranges(sorted, count, info->members, sizeof info->members);
    free(sorted);
}

static struct comm_info *info_of(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return NULL;
    pthread_once(&keyval_once, make_keyval);
    void *value;
    int found = 0, inter = 0;
    if (info_keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, info_keyval, &value, &found) != MPI_SUCCESS)
        return NULL;
    if (found)
        return value;
    struct comm_info *info = calloc(1, sizeof *info);
    MPI_Group group;
    int local_size = 0, remote_size = 0;
    if (info == NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        PMPI_Comm_group(comm, &group) != MPI_SUCCESS) {
        free(info);
        return NULL;
    }
    info->local = world_ranks(group, &local_size);
    PMPI_Group_free(&group);
    if (inter && PMPI_Comm_remote_group(comm, &group) == MPI_SUCCESS) {
        info->remote = world_ranks(group, &remote_size);
        PMPI_Group_free(&group);
    }
    if (info->local == NULL || (inter && info->remote == NULL)) {
        delete_info(comm, info_keyval, info, NULL);
        return NULL;
    }
    info->local_size = local_size;
    info->remote_size = remote_size;
    describe_members(info, local_size, remote_size);
    PMPI_Comm_set_attr(comm, info_keyval, info);
    return info;
}

/* The world rank of a communicator's rank `rank` (its remote group's on
 * an intercommunicator), or SG_WATCH_ANY / SG_WATCH_NONE. */
static int world_of(const struct comm_info *info, int rank, int any)
{
    if (rank == any)
        return SG_WATCH_ANY;
    if (rank < 0 || rank == MPI_PROC_NULL)
        return SG_WATCH_NONE;
    if (info == NULL)
        return rank;
    const int *ranks = info->remote ? info->remote : info->local;
    int size = info->remote ? info->remote_size : info->local_size;
    return rank < size ? ranks[rank] : rank;
}

static int tag_of(int tag) { return tag == MPI_ANY_TAG ? SG_WATCH_ANY : tag; }

/* ---- Entry and exit ----------------------------------------------------- */

void sg_watch_enter(const struct sg_watch_call *call)
{
    if (!atomic_load_explicit(&sg_watching, memory_order_relaxed))
        return;
    struct comm_info *info = info_of(call->comm);
    double since = now_seconds();
    begin_write();
    record.kind = call->kind;
    record.routine = call->routine;
    record.comm = info;
    record.call = info && call->kind == SG_WATCH_COLLECTIVE ? ++info->calls : 0;
    record.root = call->root == SG_WATCH_NONE ? SG_WATCH_NONE : world_of(info, call->root, -1000);
    record.dest = call->dest == SG_WATCH_NONE ? SG_WATCH_NONE : world_of(info, call->dest, -1000);
    record.dest_tag = call->dest == SG_WATCH_NONE ? SG_WATCH_NONE : tag_of(call->dest_tag);
    record.source = call->source == SG_WATCH_NONE ? SG_WATCH_NONE
                                                  : world_of(info, call->source, MPI_ANY_SOURCE);
    record.source_tag = call->source == SG_WATCH_NONE ? SG_WATCH_NONE : tag_of(call->source_tag);
    record.held = 0;
    record.since = since;
    record.serial++;
    record.workaround = record.sub_routine = NULL;
    record.sub_calls = 0;
    end_write();
}

void sg_watch_leave(void)
{
    if (!atomic_load_explicit(&sg_watching, memory_order_relaxed))
        return;
    double since = now_seconds();
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
    pthread_mutex_lock(&infos_lock);
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
        const struct comm_info *info = record.comm;
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
    pthread_mutex_unlock(&infos_lock);
}
