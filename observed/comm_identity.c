#include "comm_identity.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"

#define FNV_OFFSET UINT64_C(1469598103934665603)
#define FNV_PRIME UINT64_C(1099511628211)

static uint64_t fnv(uint64_t h, uint64_t word) { return (h ^ word) * FNV_PRIME; }

static pthread_mutex_t identities_lock = PTHREAD_MUTEX_INITIALIZER;

void sg_comm_identity_lock(void) { pthread_mutex_lock(&identities_lock); }
void sg_comm_identity_unlock(void) { pthread_mutex_unlock(&identities_lock); }

static void free_identity(struct sg_comm_identity *identity)
{
    if (identity == NULL)
        return;
    free(identity->local);
    free(identity->remote);
    free(identity);
}

/* Every identity freed counts here: a thread's last answer (below) holds
 * while the count has not moved, as a communicator's handle is reused only
 * once it was freed. */
static atomic_uint_fast64_t identities_freed;

/* initial-exec, as SG_THREAD_LOCAL (call/collective.h): one load */
static _Thread_local __attribute__((tls_model("initial-exec"))) struct {
    MPI_Comm comm;
    struct sg_comm_identity *identity;
    uint_fast64_t freed;
} last_answer;

static int delete_identity(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    atomic_fetch_add(&identities_freed, 1);
    sg_comm_identity_lock();
    free_identity(value);
    sg_comm_identity_unlock();
    return MPI_SUCCESS;
}

static int *copy_ranks(const int *ranks, int count)
{
    int *copy = malloc((size_t)(count > 0 ? count : 1) * sizeof *copy);
    if (copy != NULL && count > 0)
        memcpy(copy, ranks, (size_t)count * sizeof *copy);
    return copy;
}

/* A duplicate's identity: its parent's members, an id of its own. */
static int copy_identity(MPI_Comm old, int keyval, void *extra, void *value, void *copied,
                         int *flag)
{
    (void)old, (void)keyval, (void)extra;
    struct sg_comm_identity *parent = value, *child = malloc(sizeof *child);
    *flag = 0;
    if (child == NULL)
        return MPI_SUCCESS; /* made afresh from its members on first use */
    *child = *parent;
    child->local = copy_ranks(parent->local, parent->local_size);
    child->remote = parent->remote ? copy_ranks(parent->remote, parent->remote_size) : NULL;
    if (child->local == NULL || (parent->remote && child->remote == NULL)) {
        free_identity(child);
        return MPI_SUCCESS;
    }
    uint64_t id = fnv(fnv(FNV_OFFSET ^ 2, parent->id), ++parent->dups);
    child->id = id ? id : 1;
    child->parent = parent->id;
    child->collectives = child->dups = 0;
    child->traced = 0;
    *(void **)copied = child;
    *flag = 1;
    return MPI_SUCCESS;
}

static int identity_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static void make_keyval(void)
{
    PMPI_Comm_create_keyval(copy_identity, delete_identity, &identity_keyval, NULL);
}

/* The world ranks of `group`'s ranks, in its order. */
static int *world_ranks(MPI_Group group, int *size)
{
    MPI_Group world;
    if (PMPI_Group_size(group, size) != MPI_SUCCESS)
        return NULL;
    int *ranks = malloc((size_t)(*size > 0 ? *size : 1) * sizeof *ranks);
    int *in_world = malloc((size_t)(*size > 0 ? *size : 1) * sizeof *in_world);
    if (ranks == NULL || in_world == NULL ||
        PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
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

/* Its id and members, from its groups' world ranks: a digest of the
 * members in the ranks' order; of an intercommunicator, whose two sides
 * list their groups in opposite orders, of the sorted union (seeded apart
 * from an intracommunicator of the same ranks). */
static int describe_members(struct sg_comm_identity *identity)
{
    int count = identity->local_size + identity->remote_size;
    int *sorted = malloc((size_t)(count > 0 ? count : 1) * sizeof *sorted);
    if (sorted == NULL)
        return -1;
    memcpy(sorted, identity->local, (size_t)identity->local_size * sizeof *sorted);
    if (identity->remote_size > 0)
        memcpy(sorted + identity->local_size, identity->remote,
               (size_t)identity->remote_size * sizeof *sorted);
    uint64_t h = FNV_OFFSET;
    for (int i = 0; i < count && identity->remote == NULL; i++)
        h = fnv(h, (uint32_t)sorted[i]);
    qsort(sorted, (size_t)count, sizeof *sorted, ascending);
    if (identity->remote != NULL) {
        h = FNV_OFFSET ^ 1;
        for (int i = 0; i < count; i++)
            h = fnv(h, (uint32_t)sorted[i]);
    }
    identity->id = h ? h : 1;
    identity->size = count;
    if (count > 0 && sorted[0] == MPI_UNDEFINED) /* a process of another world */
        identity->members[0] = '\0';
    else if (sg_ranges_format(sorted, count, identity->members, sizeof identity->members) < count)
        identity->members[0] = '\0';
    free(sorted);
    return 0;
}

static struct sg_comm_identity *made(MPI_Comm comm)
{
    struct sg_comm_identity *identity = calloc(1, sizeof *identity);
    MPI_Group group;
    int inter = 0;
    if (identity == NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        PMPI_Comm_rank(comm, &identity->rank) != MPI_SUCCESS ||
        PMPI_Comm_group(comm, &group) != MPI_SUCCESS) {
        free(identity);
        return NULL;
    }
    identity->local = world_ranks(group, &identity->local_size);
    PMPI_Group_free(&group);
    if (inter && PMPI_Comm_remote_group(comm, &group) == MPI_SUCCESS) {
        identity->remote = world_ranks(group, &identity->remote_size);
        PMPI_Group_free(&group);
    }
    if (identity->local == NULL || (inter && identity->remote == NULL) ||
        describe_members(identity) != 0) {
        free_identity(identity);
        return NULL;
    }
    return identity;
}

struct sg_comm_identity *sg_comm_identity(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return NULL;
    uint_fast64_t freed = atomic_load_explicit(&identities_freed, memory_order_acquire);
    if (last_answer.identity != NULL && last_answer.comm == comm && last_answer.freed == freed)
        return last_answer.identity;
    pthread_once(&keyval_once, make_keyval);
    void *value;
    int found = 0;
    if (identity_keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, identity_keyval, &value, &found) != MPI_SUCCESS)
        return NULL;
    struct sg_comm_identity *identity = value;
    if (!found) {
        identity = made(comm);
        if (identity != NULL &&
            PMPI_Comm_set_attr(comm, identity_keyval, identity) != MPI_SUCCESS) {
            free_identity(identity);
            return NULL;
        }
    }
    if (identity != NULL)
        last_answer.comm = comm, last_answer.identity = identity, last_answer.freed = freed;
    return identity;
}

int sg_comm_world_rank(const struct sg_comm_identity *identity, int rank)
{
    if (identity == NULL || rank < 0)
        return rank;
    const int *ranks = identity->remote ? identity->remote : identity->local;
    int size = identity->remote ? identity->remote_size : identity->local_size;
    return rank < size ? ranks[rank] : rank;
}
