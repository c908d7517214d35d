/* W1-A: see w1a.h. */
#include "w1a.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The blocking routine of the same family: families are listed in pairs. */
static enum sg_routine family(enum sg_routine r) { return (enum sg_routine)(r & ~1); }

/* ---- Which calls ---------------------------------------------------------- */

static int is_integer(MPI_Datatype type)
{
    const MPI_Datatype integers[] = {
        MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
        MPI_UINT32_T, MPI_UINT64_T, MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
        MPI_INTEGER8, MPI_AINT, MPI_OFFSET, MPI_COUNT};
    for (size_t i = 0; i < sizeof integers / sizeof *integers; i++)
        if (type == integers[i])
            return 1;
    return 0;
}

/* Reduce carries the root's partial result from group to group, so the
 * result is the unprotected call's, bit for bit, only where the grouping
 * cannot matter: bitwise and logical operations, and integer arithmetic
 * (modular, so exact in any order). Floating MIN/MAX are exact in value but
 * not in bits: which of -0.0 and +0.0 (or of two NaNs) survives depends on
 * the order of the operands. NULL when exact, else why not. */
static const char *grouping_risk(MPI_Op op, MPI_Datatype type)
{
    const char *rounding = "the reduction's grouping could change rounding";
    const char *zeros = "MIN/MAX of floating values depend on the grouping (signed zeros, NaNs)";
    int integers, addresses, types, combiner;
    if (PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS ||
        combiner != MPI_COMBINER_NAMED)
        return "the reduction's datatype is not predefined";
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR || op == MPI_BAND || op == MPI_BOR ||
        op == MPI_BXOR)
        return NULL;
    if (op == MPI_MINLOC || op == MPI_MAXLOC)
        return type == MPI_2INT || type == MPI_SHORT_INT || type == MPI_LONG_INT ||
                       type == MPI_2INTEGER
                   ? NULL
                   : zeros;
    if (op == MPI_MIN || op == MPI_MAX)
        return is_integer(type) ? NULL : zeros;
    if (op == MPI_SUM || op == MPI_PROD)
        return is_integer(type) ? NULL : rounding;
    return rounding; /* a user-defined operation */
}

int sg_w1a_applies(const struct sg_call *c, const struct sg_described *d, int members,
                   const char **why)
{
    (void)d; /* any layout can be grouped; a too wide group is sg_w1a's -1 */
    const char *reason = NULL;
    switch (family(c->routine)) {
    case SG_MPI_Bcast: case SG_MPI_Gather: case SG_MPI_Gatherv: case SG_MPI_Scatter:
    case SG_MPI_Scatterv:
        break;
    case SG_MPI_Reduce:
        reason = grouping_risk(c->op, c->sendtype);
        break;
    case SG_MPI_Alltoall: case SG_MPI_Alltoallv:
        reason = "Alltoall(v) is excluded from W1-A (paper Table X)";
        break;
    default:
        reason = "every rank gets the whole result: no grouping of the ranks shrinks it";
        break;
    }
    if (reason == NULL && members < 2)
        reason = "a group needs the root and one other process";
    if (reason != NULL && why != NULL)
        *why = reason;
    return reason == NULL;
}

/* ---- The groups ------------------------------------------------------------ */

/* The groups of one call, in the order they run. Group g is ranks[start[g]]
 * to ranks[start[g + 1] - 1], ascending, the root included. When `own` is
 * set, group 0 is the root's own group: the one that holds its own block
 * (its contribution to Reduce), and it runs first. */
struct partition {
    int count, own;
    int *start, *ranks;
};

/* Append a group: `list` (ascending) and, unless it is -1, the root, put in
 * its place. */
static void add_group(struct partition *p, const int *list, int n, int root)
{
    int *out = p->ranks + p->start[p->count], k = 0;
    for (int i = 0; i < n; i++) {
        if (root >= 0 && root < list[i]) {
            out[k++] = root;
            root = -1;
        }
        out[k++] = list[i];
    }
    if (root >= 0)
        out[k++] = root;
    p->start[p->count + 1] = p->start[p->count] + k;
    p->count++;
}

static void add_groups(struct partition *p, const int *list, int n, int others, int root)
{
    for (int i = 0; i < n; i += others)
        add_group(p, list + i, n - i < others ? n - i : others, root);
}

/* Each window's ranks (one window of all ranks without windows) in groups
 * of `members - 1` plus the root. In the root's window the root's own group
 * is the run of up to `members` ranks around it, placed so that the ranks
 * before it fill whole groups: ceil((P - 1) / (members - 1)) groups in all,
 * the fewest there can be. Ranks without a window (no block) are in none. */
static int partition(int procs, int root, int members, const struct sg_windows *w,
                     struct partition *p)
{
    int others = members - 1, own_window = w->of ? w->of[root] : 0;
    int *list = malloc((size_t)procs * sizeof *list);
    p->start = malloc(((size_t)procs + 2) * sizeof *p->start);
    p->ranks = malloc(2 * ((size_t)procs + 1) * sizeof *p->ranks);
    if (list == NULL || p->start == NULL || p->ranks == NULL) {
        free(list);
        free(p->start);
        free(p->ranks);
        return MPI_ERR_NO_MEM;
    }
    p->count = 0;
    p->own = own_window >= 0;
    p->start[0] = 0;
    /* the root's window first (t = -1), so that its own group runs first */
    for (int t = -1; t < (w->of ? w->count : 1); t++) {
        int window = t < 0 ? own_window : t;
        if (window < 0 || (t >= 0 && window == own_window))
            continue;
        int n = 0, at = -1;
        for (int i = 0; i < procs; i++)
            if ((w->of ? w->of[i] : 0) == window) {
                if (i == root)
                    at = n;
                list[n++] = i;
            }
        if (at < 0) {
            add_groups(p, list, n, others, root);
            continue;
        }
        int first = at - at % others;
        if (first > n - members)
            first = n - members > 0 ? n - members : 0;
        int end = members < n - first ? first + members : n;
        add_group(p, list + first, end - first, -1);
        add_groups(p, list, first, others, root);
        add_groups(p, list + end, n - end, others, root);
    }
    free(list);
    return MPI_SUCCESS;
}

static void free_partition(struct partition *p)
{
    free(p->start);
    free(p->ranks);
}

/* ---- The sub-communicators, cached on the parent ---------------------------- */

static atomic_long created, alive;

long sg_w1a_created(void) { return atomic_load(&created); }
long sg_w1a_alive(void) { return atomic_load(&alive); }

/* Tags keep concurrent creations apart: a group's members may start on it
 * while the root still creates an earlier group. Every rank numbers the
 * groups alike, so consecutive groups (of this and later calls) get distinct
 * tags, up to the smallest MPI_TAG_UB the standard allows. */
#define TAGS 32768
/* Partitions kept per parent, most recently used first: a program whose
 * layouts keep changing must not use up the MPI's communicators. Every rank
 * keeps the same ones (each call is collective), so all members of an
 * evicted group free it together. */
#define KEPT 8

struct entry {
    struct entry *next;
    int *key, key_length;
    int groups;
    MPI_Comm *subs; /* per group: this rank's sub-communicator, or MPI_COMM_NULL */
};

/* Touched only inside collective calls on the parent, which MPI requires
 * every thread to issue in one order: no lock. */
struct cache {
    MPI_Comm copy; /* the parent's group, for W1-A alone (cache_of) */
    int tag, entries;
    struct entry *first;
};

static void release(MPI_Comm *comm, int finalized)
{
    if (*comm == MPI_COMM_NULL)
        return;
    if (!finalized) {
        PMPI_Comm_free(comm);
        atomic_fetch_sub(&alive, 1);
    }
    *comm = MPI_COMM_NULL;
}

static void free_entry(struct entry *e, int finalized)
{
    for (int g = 0; g < e->groups; g++)
        release(&e->subs[g], finalized);
    free(e->subs);
    free(e->key);
    free(e);
}

static int delete_cache(MPI_Comm parent, int keyval, void *value, void *extra)
{
    (void)parent;
    (void)keyval;
    (void)extra;
    /* Open MPI deletes MPI_COMM_WORLD's attributes when MPI_Finalized
     * already says 1: no MPI call then, MPI reclaims the communicators. */
    int finalized = 0;
    PMPI_Finalized(&finalized);
    struct cache *cache = value;
    while (cache->first != NULL) {
        struct entry *e = cache->first;
        cache->first = e->next;
        free_entry(e, finalized);
    }
    release(&cache->copy, finalized);
    free(cache);
    return MPI_SUCCESS;
}

static atomic_int cache_keyval = MPI_KEYVAL_INVALID;

static int get_keyval(int *out)
{
    int k = atomic_load(&cache_keyval);
    if (k == MPI_KEYVAL_INVALID) {
        int err = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cache, &k, NULL);
        if (err != MPI_SUCCESS)
            return err;
        int expected = MPI_KEYVAL_INVALID;
        if (!atomic_compare_exchange_strong(&cache_keyval, &expected, k)) {
            PMPI_Comm_free_keyval(&k); /* another thread was first */
            k = expected;
        }
    }
    *out = k;
    return MPI_SUCCESS;
}

/* The parent's cache, made (with the private copy: collective over the
 * parent) on its first W1-A call. */
static int cache_of(MPI_Comm parent, struct cache **out)
{
    int k, found, err = get_keyval(&k);
    if (err == MPI_SUCCESS)
        err = PMPI_Comm_get_attr(parent, k, out, &found);
    if (err != MPI_SUCCESS || found)
        return err;
    struct cache *cache = malloc(sizeof *cache);
    if (cache == NULL)
        return MPI_ERR_NO_MEM;
    *cache = (struct cache){.copy = MPI_COMM_NULL};
    /* The sub-communicators are made from this copy, not from the parent:
     * Open MPI 4.1 runs MPI_Comm_create_group's agreement as point-to-point
     * messages in the parent's own context with the given tag, where an
     * application's pending MPI_ANY_TAG receive could take them. And
     * MPI_Comm_create, not MPI_Comm_dup: no application attribute is copied. */
    MPI_Group group;
    err = PMPI_Comm_group(parent, &group);
    if (err == MPI_SUCCESS) {
        err = PMPI_Comm_create(parent, group, &cache->copy);
        PMPI_Group_free(&group);
    }
    if (err == MPI_SUCCESS) {
        atomic_fetch_add(&created, 1);
        atomic_fetch_add(&alive, 1);
        err = PMPI_Comm_set_attr(parent, k, cache);
    }
    if (err != MPI_SUCCESS) {
        release(&cache->copy, 0);
        free(cache);
        return err;
    }
    *out = cache;
    return MPI_SUCCESS;
}

static int member(const int *ranks, int n, int rank)
{
    for (int j = 0; j < n; j++)
        if (ranks[j] == rank)
            return j;
    return -1;
}

/* Create this rank's sub-communicators of partition `p` into `e`. */
static int create_subs(struct cache *cache, const struct partition *p, int me, struct entry *e)
{
    for (int g = 0; g < p->count; g++)
        e->subs[g] = MPI_COMM_NULL;
    MPI_Group all;
    int err = PMPI_Comm_group(cache->copy, &all);
    if (err != MPI_SUCCESS)
        return err;
    for (int g = 0; err == MPI_SUCCESS && g < p->count; g++) {
        const int *ranks = p->ranks + p->start[g];
        int n = p->start[g + 1] - p->start[g];
        if (member(ranks, n, me) < 0)
            continue;
        MPI_Group group;
        err = PMPI_Group_incl(all, n, ranks, &group);
        if (err != MPI_SUCCESS)
            break;
        err = PMPI_Comm_create_group(cache->copy, group, (cache->tag + g) % TAGS, &e->subs[g]);
        PMPI_Group_free(&group);
        if (err == MPI_SUCCESS) {
            atomic_fetch_add(&created, 1);
            atomic_fetch_add(&alive, 1);
        }
    }
    cache->tag = (cache->tag + p->count) % TAGS;
    PMPI_Group_free(&all);
    return err;
}

/* What the partition follows from: the root, members and windows. NULL when
 * out of memory. */
static int *partition_key(int root, int members, const struct sg_windows *w, int procs,
                          int *length)
{
    *length = 3 + (w->of ? procs : 0);
    int *key = malloc((size_t)*length * sizeof *key);
    if (key == NULL)
        return NULL;
    key[0] = root;
    key[1] = members;
    key[2] = w->of ? w->count : 0;
    if (w->of)
        memcpy(key + 3, w->of, (size_t)procs * sizeof *key);
    return key;
}

/* This rank's sub-communicators for partition `p` (known by `key`), from the
 * cache or made now. `key` is kept by the cache or freed. */
static int subs_of(MPI_Comm parent, const struct partition *p, int me, int *key, int key_length,
                   MPI_Comm **subs)
{
    if (key == NULL)
        return MPI_ERR_NO_MEM;
    struct cache *cache;
    int err = cache_of(parent, &cache);
    if (err != MPI_SUCCESS) {
        free(key);
        return err;
    }
    for (struct entry **link = &cache->first; *link != NULL; link = &(*link)->next) {
        struct entry *e = *link;
        if (e->key_length == key_length &&
            memcmp(e->key, key, (size_t)key_length * sizeof *key) == 0) {
            *link = e->next;
            e->next = cache->first;
            cache->first = e;
            *subs = e->subs;
            free(key);
            return MPI_SUCCESS;
        }
    }
    struct entry *e = malloc(sizeof *e);
    MPI_Comm *made = malloc((size_t)p->count * sizeof *made);
    if (e == NULL || made == NULL) {
        free(e);
        free(made);
        free(key);
        return MPI_ERR_NO_MEM;
    }
    *e = (struct entry){.key = key, .key_length = key_length, .groups = p->count, .subs = made};
    err = create_subs(cache, p, me, e);
    if (err != MPI_SUCCESS) {
        free_entry(e, 0);
        return err;
    }
    if (cache->entries == KEPT) {
        struct entry **last = &cache->first;
        while ((*last)->next != NULL)
            last = &(*last)->next;
        free_entry(*last, 0);
        *last = NULL;
        cache->entries--;
    }
    e->next = cache->first;
    cache->first = e;
    cache->entries++;
    *subs = e->subs;
    return MPI_SUCCESS;
}

/* ---- The sub-calls ----------------------------------------------------------- */

static MPI_Aint extent_of(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(type, &lb, &extent);
    return extent;
}

/* Regular layouts (Gather, Scatter): the root's buffer moved to the group's
 * first member's block, in blocks. A group's members are consecutive ranks
 * and the root sits at one end (or among them in its own group); outside
 * its own group its slot is MPI_IN_PLACE, so nothing lands there. */
static int64_t first_block(const int *ranks, int n, int root, int own)
{
    int j = !own && ranks[0] == root && n > 1;
    return (int64_t)ranks[j] - j;
}

/* V layouts (Gatherv, Scatterv), on the root: the base each group's
 * displacements are rebased to (paper eq. 14), its lowest block, or lower
 * when its blocks span more than INT_MAX extents (negative displacements).
 * 0 when a group spans 2^32 extents or more. */
static int group_bases(const struct sg_side *v, const struct partition *p, int root,
                       int64_t *base)
{
    for (int g = 0; g < p->count; g++) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int j = p->start[g]; j < p->start[g + 1]; j++) {
            int i = p->ranks[j];
            if (v->counts[i] <= 0 || (i == root && !(p->own && g == 0)))
                continue;
            lo = v->displs[i] < lo ? v->displs[i] : lo;
            hi = v->displs[i] + v->counts[i] > hi ? v->displs[i] + v->counts[i] : hi;
        }
        if (lo > hi)
            base[g] = 0; /* no data */
        else if (hi - lo > (int64_t)INT_MAX - INT_MIN)
            return 0;
        else
            base[g] = hi - lo <= INT_MAX ? lo : hi - INT_MAX;
    }
    return 1;
}

int sg_w1a(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
           int members, const struct sg_windows *w)
{
    enum sg_routine f = family(c->routine);
    int irregular = f == SG_MPI_Gatherv || f == SG_MPI_Scatterv;
    if (!sg_w1a_applies(c, d, members, NULL) || (w->of != NULL && !irregular))
        return -1;
    int me, err = PMPI_Comm_rank(c->comm, &me);
    if (err != MPI_SUCCESS)
        return err;
    int root = c->root, procs = d->procs;
    if (members > procs)
        members = procs; /* the same partition: one key for it */
    struct partition p;
    if ((err = partition(procs, root, members, w, &p)) != MPI_SUCCESS)
        return err;

    /* The root of Gatherv/Scatterv: each group's counts and rebased
     * displacements, in int, at start[g] of `counts` and `displs`. */
    const struct sg_side *v = f == SG_MPI_Gatherv ? &d->recv : &d->send;
    int total = p.start[p.count], *counts = NULL, *displs = NULL;
    int64_t *base = NULL;
    if (irregular && me == root) {
        counts = malloc(2 * (size_t)total * sizeof *counts);
        base = malloc((size_t)p.count * sizeof *base);
        if (counts == NULL || base == NULL)
            err = MPI_ERR_NO_MEM;
        else if (!group_bases(v, &p, root, base))
            err = -1;
        else
            displs = counts + total;
    }
    MPI_Comm *subs = NULL;
    if (err == MPI_SUCCESS) {
        int key_length;
        int *key = partition_key(root, members, w, procs, &key_length);
        err = subs_of(c->comm, &p, me, key, key_length, &subs);
    }

    for (int g = 0; err == MPI_SUCCESS && g < p.count; g++) {
        if (subs[g] == MPI_COMM_NULL)
            continue; /* not a member */
        const int *ranks = p.ranks + p.start[g];
        int n = p.start[g + 1] - p.start[g], own = p.own && g == 0;
        struct sg_call sub = *c;
        sub.comm = subs[g];
        sub.root = member(ranks, n, root);
        /* the root's own block or contribution moves in its own group only */
        if (me == root && !own && f != SG_MPI_Bcast) {
            if (f == SG_MPI_Scatter || f == SG_MPI_Scatterv)
                sub.recvbuf = MPI_IN_PLACE;
            else
                sub.sendbuf = MPI_IN_PLACE;
        }
        if (me == root && (f == SG_MPI_Gather || f == SG_MPI_Scatter)) {
            int is_send = f == SG_MPI_Scatter;
            MPI_Datatype type = is_send ? c->sendtype : c->recvtype;
            MPI_Aint offset = (MPI_Aint)first_block(ranks, n, root, own) *
                              (is_send ? c->sendcount : c->recvcount) * extent_of(type);
            if (is_send)
                sub.sendbuf = (const char *)c->sendbuf + offset;
            else
                sub.recvbuf = (char *)c->recvbuf + offset;
        } else if (me == root && irregular) {
            int *group_counts = counts + p.start[g], *group_displs = displs + p.start[g];
            for (int j = 0; j < n; j++) {
                int i = ranks[j];
                group_counts[j] = i == root && !own ? 0 : v->counts[i];
                group_displs[j] = group_counts[j] ? (int)(v->displs[i] - base[g]) : 0;
            }
            MPI_Aint offset = (MPI_Aint)base[g] * extent_of(v->type);
            if (f == SG_MPI_Scatterv) {
                sub.sendbuf = (const char *)c->sendbuf + offset;
                sub.sendcounts = group_counts;
                sub.sdispls = group_displs;
            } else {
                sub.recvbuf = (char *)c->recvbuf + offset;
                sub.recvcounts = group_counts;
                sub.rdispls = group_displs;
            }
        }
        /* Reduce: the root's partial result is the next group's input, so it
         * completes every group but the last before starting the next. */
        struct sg_runner now = SG_RUNNER(runner->mpi, 0);
        int carry = f == SG_MPI_Reduce && me == root && g < p.count - 1;
        err = sg_run(carry ? &now : runner, &sub);
    }

    free_partition(&p);
    free(base);
    int kept = counts != NULL ? sg_keep(runner, free, counts) : MPI_SUCCESS;
    return err != MPI_SUCCESS ? err : kept;
}
