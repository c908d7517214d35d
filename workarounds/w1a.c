/* W1-A: see w1a.h. */
#include "w1a.h"

#include "private_comm.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The blocking routine of the same family: families are listed in pairs. */
static enum sg_routine family(enum sg_routine r) { return (enum sg_routine)(r & ~1); }

/* ---- Which calls ---------------------------------------------------------- */

/* Reductions to every rank, and Reduce where P allows, run over a grid of
 * `columns` consecutive ranks times procs / columns rows (see grid_subs):
 * the largest column count that leaves both dimensions at most `members`,
 * or 0 when none does. */
static int grid_columns(int procs, int members)
{
    for (int columns = members < procs ? members : procs; columns >= 2; columns--)
        if (procs % columns == 0 && procs / columns <= members && procs / columns >= 2)
            return columns;
    return 0;
}

/* Allgather(v) gathers each pair of groups into a temporary and copies the
 * blocks out: byte for byte the received elements only where the receive
 * type has no holes. */
static int contiguous(MPI_Datatype type)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
    return PMPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS &&
           PMPI_Type_get_true_extent(type, &true_lb, &true_extent) == MPI_SUCCESS &&
           PMPI_Type_size(type, &size) == MPI_SUCCESS && lb == 0 && true_lb == 0 &&
           extent == size && true_extent == size;
}

int sg_w1a_applies(const struct sg_call *c, const struct sg_described *d, int members,
                   const char **why)
{
    const char *reason = NULL;
    switch (family(c->routine)) {
    case SG_MPI_Bcast: case SG_MPI_Gather: case SG_MPI_Gatherv: case SG_MPI_Scatter:
    case SG_MPI_Scatterv:
        break;
    case SG_MPI_Reduce:
        reason = sg_split_risk(c);
        break;
    case SG_MPI_Allgather: case SG_MPI_Allgatherv:
        if (!contiguous(c->recvtype))
            reason = "Allgather(v)'s temporary needs a receive type without holes (lb 0, "
                     "extent = size)";
        break;
    case SG_MPI_Allreduce: case SG_MPI_Reduce_scatter: case SG_MPI_Reduce_scatter_block:
        reason = sg_split_risk(c);
        if (reason == NULL && members >= 2 && grid_columns(d->procs, members) == 0)
            reason = "P is no product of two factors each at most the group size";
        break;
    default:
        reason = "Alltoall(v) is excluded from W1-A (paper Table X)";
        break;
    }
    if (reason == NULL && members < 2)
        reason = "a group needs at least two processes";
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

/* The parent's cache, made (with the private copy: collective over the
 * parent) on its first W1-A call. */
static int cache_of(MPI_Comm parent, struct cache **out)
{
    int k, found, err = sg_cache_keyval(&cache_keyval, delete_cache, &k);
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

/* The cache key of a partition: its lists of ranks. NULL when out of
 * memory. */
static int *partition_key(const struct partition *p, int *length)
{
    int total = p->start[p->count];
    *length = 1 + p->count + total;
    int *key = malloc((size_t)*length * sizeof *key);
    if (key == NULL)
        return NULL;
    key[0] = p->count;
    memcpy(key + 1, p->start + 1, (size_t)p->count * sizeof *key);
    memcpy(key + 1 + p->count, p->ranks, (size_t)total * sizeof *key);
    return key;
}

/* This rank's sub-communicators for partition `p`, from the cache or made
 * now. */
static int subs_of(MPI_Comm parent, const struct partition *p, int me, MPI_Comm **subs)
{
    int key_length, *key = partition_key(p, &key_length);
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

/* Whether `routine` (in the blocking or non-blocking form of `like`) may
 * take a sub-call of n elements of `type` over `procs` processes: the
 * configuration may know it broken too (runner->allows). The same on every
 * rank when its arguments are. */
static int may_run(const struct sg_runner *runner, enum sg_routine routine, enum sg_routine like,
                   MPI_Datatype type, int64_t n, int procs)
{
    int size;
    if (runner->allows == NULL)
        return 1;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return 0;
    return runner->allows((enum sg_routine)(routine | (like & 1)), (uint64_t)size, (uint64_t)n,
                          (uint64_t)procs);
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

/* ---- Routines without a root -------------------------------------------------
 *
 * Every rank gets the whole result, so W1-A shrinks each sub-call's global
 * buffer, not what a rank receives: every sub-call has at most `members`
 * processes, and every rank takes part in several. */

/* Append a list: `n` ranks from `first` on, `step` apart, then `n2`
 * consecutive ranks from `first2` on. */
static void add_runs(struct partition *p, int first, int n, int step, int first2, int n2)
{
    int *out = p->ranks + p->start[p->count], k = 0;
    for (int i = 0; i < n; i++)
        out[k++] = first + i * step;
    for (int i = 0; i < n2; i++)
        out[k++] = first2 + i;
    p->start[p->count + 1] = p->start[p->count] + k;
    p->count++;
}

/* An empty partition with room for `lists` lists of `total` ranks. */
static int new_partition(struct partition *p, int lists, int total)
{
    *p = (struct partition){0};
    p->start = malloc(((size_t)lists + 1) * sizeof *p->start);
    p->ranks = malloc(((size_t)total + 1) * sizeof *p->ranks);
    if (p->start == NULL || p->ranks == NULL) {
        free_partition(p);
        return MPI_ERR_NO_MEM;
    }
    p->start[0] = 0;
    return MPI_SUCCESS;
}

/* The pairs of `groups` groups in the rounds of a round-robin tournament
 * (the circle method): each pair once, and the pairs of a round disjoint.
 * Returns the number of pairs, written as (lower, higher) to `pairs`. */
static int tournament(int groups, int *pairs)
{
    int players = groups + groups % 2, n = 0; /* with a bye when odd */
    for (int round = 0; round < players - 1; round++)
        for (int k = 0; k < players / 2; k++) {
            int a = k == 0 ? players - 1 : (round + k) % (players - 1);
            int b = (round - k + players - 1) % (players - 1);
            if (a >= groups || b >= groups)
                continue;
            pairs[2 * n] = a < b ? a : b;
            pairs[2 * n + 1] = a < b ? b : a;
            n++;
        }
    return n;
}

/* One pair's temporary, and where its blocks go: released (the blocks
 * copied out, then freed) once the pair's sub-call is done. */
struct move {
    MPI_Aint to, from, bytes;
};

struct copy_out {
    char *recvbuf, *temp;
    int moves;
    struct move *move;
    int *counts, *displs; /* Allgatherv: the pair's counts and packed displacements */
};

static void copy_moves(struct copy_out *o)
{
    for (int i = 0; i < o->moves; i++)
        memcpy(o->recvbuf + o->move[i].to, o->temp + o->move[i].from, (size_t)o->move[i].bytes);
}

static void copy_out(void *memory)
{
    copy_moves(memory);
    free(memory);
}

/* One allocation for the copy-out of `blocks` blocks and a temporary of
 * `bytes`, aligned as malloc aligns. */
static struct copy_out *new_copy_out(int blocks, size_t bytes, void *recvbuf)
{
    size_t header = sizeof(struct copy_out) + (size_t)blocks * sizeof(struct move) +
                    2 * (size_t)blocks * sizeof(int);
    header = (header + 63) / 64 * 64;
    struct copy_out *o = malloc(header + bytes);
    if (o == NULL)
        return NULL;
    o->recvbuf = recvbuf;
    o->temp = (char *)o + header;
    o->moves = 0;
    o->move = (struct move *)(o + 1);
    o->counts = (int *)(o->move + blocks);
    o->displs = o->counts + blocks;
    return o;
}

/* A sub-call straight into the receive buffer, where the routine can
 * describe the pair's blocks there: Allgatherv when they span at most
 * INT_MAX extents (rebased displacements in `counts`, `displs`), Allgather
 * when the pair's ranks are consecutive, or two ranks a < b: Allgatherv of
 * the two blocks (b - a) * count extents apart when that is an int and the
 * configuration lets Allgatherv take it, else Allgather of a resized type
 * (left in *stride to free). Contiguous blocks rather than a type whose
 * extent is not its size: MPICH 4.0.2 moves such a type through its
 * packing path, 8 to 17 times slower at 64 MiB. The
 * own group's blocks are then written again by each of its pairs, with the
 * same bytes, one sub-call after the other. Returns 1 and sets `sub` when
 * so, 0 when only a temporary will do, or an MPI error code (negated). */
static int direct(const struct sg_runner *runner, const struct sg_side *r, const int *ranks,
                  int n, int *counts, int *displs, struct sg_call *sub, MPI_Datatype *stride)
{
    MPI_Aint extent = extent_of(r->type);
    if (r->layout == SG_SIDE_V) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int j = 0; j < n; j++)
            if (r->counts[ranks[j]] > 0) {
                int64_t at = r->displs[ranks[j]];
                lo = at < lo ? at : lo;
                hi = at + r->counts[ranks[j]] > hi ? at + r->counts[ranks[j]] : hi;
            }
        if (lo > hi)
            lo = hi = 0;
        if (hi - lo > INT_MAX)
            return 0;
        for (int j = 0; j < n; j++) {
            counts[j] = r->counts[ranks[j]];
            displs[j] = counts[j] > 0 ? (int)(r->displs[ranks[j]] - lo) : 0;
        }
        sub->recvbuf = (char *)sub->recvbuf + (MPI_Aint)lo * extent;
        sub->recvcounts = counts;
        sub->rdispls = displs;
        return 1;
    }
    MPI_Aint block = (MPI_Aint)r->count * extent;
    sub->recvbuf = (char *)sub->recvbuf + (MPI_Aint)ranks[0] * block;
    if (ranks[n - 1] - ranks[0] == n - 1)
        return 1;
    if (n != 2)
        return 0;
    int64_t gap = (int64_t)(ranks[1] - ranks[0]) * r->count;
    if (gap <= INT_MAX && may_run(runner, SG_MPI_Allgatherv, sub->routine, r->type, r->count, 2)) {
        counts[0] = counts[1] = r->count;
        displs[0] = 0;
        displs[1] = (int)gap;
        sub->routine = (enum sg_routine)(SG_MPI_Allgatherv | (sub->routine & 1));
        sub->recvcounts = counts;
        sub->rdispls = displs;
        return 1;
    }
    MPI_Datatype contiguous;
    int err = PMPI_Type_contiguous(r->count, r->type, &contiguous);
    if (err == MPI_SUCCESS) {
        err = PMPI_Type_create_resized(contiguous, 0, (MPI_Aint)(ranks[1] - ranks[0]) * block,
                                       stride);
        PMPI_Type_free(&contiguous);
    }
    if (err == MPI_SUCCESS && (err = PMPI_Type_commit(stride)) != MPI_SUCCESS)
        PMPI_Type_free(stride);
    if (err != MPI_SUCCESS)
        return -err;
    sub->recvtype = *stride;
    sub->recvcount = 1;
    return 1;
}

/* Where rank i's block starts in the receive buffer, in extents. */
static int64_t block_at(const struct sg_side *r, int i)
{
    return r->layout == SG_SIDE_V ? r->displs[i] : (int64_t)i * r->count;
}

/* Copy this rank's input to its block of the receive buffer: a memcpy for
 * a send type without holes, else a message to itself on one of W1-A's own
 * sub-communicators, where no application message can match it. */
static int place_own_block(const struct sg_call *c, const struct sg_side *r, int me,
                           MPI_Aint extent, const MPI_Comm *subs)
{
    int count = r->layout == SG_SIDE_V ? r->counts[me] : r->count, size, err;
    char *to = (char *)c->recvbuf + (MPI_Aint)block_at(r, me) * extent;
    if (contiguous(c->sendtype)) {
        if ((err = PMPI_Type_size(c->sendtype, &size)) == MPI_SUCCESS)
            memcpy(to, c->sendbuf, (size_t)c->sendcount * (size_t)size);
        return err;
    }
    int l = 0, self;
    while (subs[l] == MPI_COMM_NULL) /* every rank is in a pair */
        l++;
    if ((err = PMPI_Comm_rank(subs[l], &self)) != MPI_SUCCESS)
        return err;
    return PMPI_Sendrecv(c->sendbuf, c->sendcount, c->sendtype, self, 0, to, count, r->type, self,
                         0, subs[l], MPI_STATUS_IGNORE);
}

/* Allgather(v): groups of at most members / 2 consecutive ranks (for
 * Allgatherv also of at most INT_MAX / 2 elements, so that a pair's blocks
 * have int displacements in a temporary), and per pair of groups one
 * sub-call of the routine over the pair's ranks: straight into the receive
 * buffer where it can be (see below), else into a temporary of the pair's
 * blocks, packed, from which each rank copies out the other group's blocks,
 * and in its first pair its own group's (its own block not when in place:
 * it is the sub-calls' input then). Blocks land by their 64-bit
 * displacements, so a Class D layout needs no windows. The pairs run in the
 * rounds of a tournament: one global order, so blocking sub-calls cannot
 * wait on each other in a cycle, and the disjoint pairs of a round run at
 * once. */
/* A rank takes part in one sub-call, and holds one sub-communicator, per
 * other group: more would use up the MPI's communicators (MPICH has a few
 * thousand context ids) and serialise as many sub-calls. */
#define PAIRS_PER_RANK 64

static int gather_to_all(struct sg_runner *runner, const struct sg_call *c,
                         const struct sg_described *d, int members, int me)
{
    const struct sg_side *r = &d->recv;
    int procs = d->procs, half = members / 2, v = r->layout == SG_SIDE_V;
    int *group = malloc(((size_t)procs + 1) * sizeof *group), groups = 0;
    if (group == NULL)
        return MPI_ERR_NO_MEM;
    int64_t elements = 0;
    group[0] = 0;
    for (int i = 0; i < procs; i++) {
        int64_t count = v ? r->counts[i] : r->count;
        if (count > INT_MAX / 2) {
            free(group);
            return -1; /* the same on every rank: every rank holds the counts */
        }
        if (i - group[groups] == half || elements + count > INT_MAX / 2) {
            group[++groups] = i;
            elements = 0;
        }
        elements += count;
    }
    group[++groups] = procs;
    if (groups - 1 > PAIRS_PER_RANK) {
        free(group);
        return -1;
    }
    int *pairs = malloc(((size_t)groups * (size_t)groups + 2) * sizeof *pairs);
    if (pairs == NULL) {
        free(group);
        return MPI_ERR_NO_MEM;
    }
    int lists = groups == 1 ? 1 : tournament(groups, pairs);
    if (groups == 1)
        pairs[0] = pairs[1] = 0;

    struct partition p;
    int err = new_partition(&p, lists, lists * 2 * half);
    for (int l = 0; err == MPI_SUCCESS && l < lists; l++) {
        int a = pairs[2 * l], b = pairs[2 * l + 1];
        add_runs(&p, group[a], group[a + 1] - group[a], 1, group[b],
                 b != a ? group[b + 1] - group[b] : 0);
    }
    MPI_Comm *subs = NULL;
    if (err == MPI_SUCCESS)
        err = subs_of(c->comm, &p, me, &subs);

    /* How the pairs' blocks reach the receive buffer: straight (direct())
     * where the routine can describe them there and no two sub-calls in
     * flight write the same bytes: a blocking runner runs them one after
     * the other; a non-blocking one only with groups of one rank (a
     * sub-call writes the other rank's block alone). Else through a
     * temporary, copied out after the sub-call (blocking: one temporary for
     * all pairs, as a fresh one per pair costs its page faults again) or
     * when all are done. Straight, this rank's block is put in place first
     * and every sub-call runs in place: one copy of it, not one per pair,
     * and the same on every rank, as MPI_IN_PLACE must be. */
    MPI_Aint extent = extent_of(r->type);
    int in_place = d->send.in_place, mine = -1, first = 1;
    for (int g = 0; g < groups; g++)
        mine = me >= group[g] && me < group[g + 1] ? g : mine;
    int straight = !runner->nonblocking || half == 1;
    size_t slot = 4 * (size_t)half, slots = runner->nonblocking ? (size_t)lists : 1;
    int *arrays = straight ? malloc(slot * slots * sizeof *arrays) : NULL;
    size_t *bytes = malloc((size_t)lists * sizeof *bytes), most = 0;
    if (err == MPI_SUCCESS && (bytes == NULL || (straight && arrays == NULL)))
        err = MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS && straight && !in_place) {
        err = place_own_block(c, r, me, extent, subs);
        in_place = 1;
    }
    for (int l = 0; err == MPI_SUCCESS && l < lists; l++) {
        bytes[l] = 0;
        for (int j = p.start[l]; j < p.start[l + 1]; j++)
            bytes[l] += (size_t)(v ? r->counts[p.ranks[j]] : r->count) * (size_t)extent;
        if (subs[l] != MPI_COMM_NULL && bytes[l] > most)
            most = bytes[l];
    }
    struct copy_out *shared = NULL;
    for (int l = 0; err == MPI_SUCCESS && l < lists; l++) {
        if (subs[l] == MPI_COMM_NULL)
            continue;
        const int *ranks = p.ranks + p.start[l];
        int n = p.start[l + 1] - p.start[l], kept;
        struct sg_call sub = *c;
        sub.comm = subs[l];
        if (in_place)
            sub.sendbuf = MPI_IN_PLACE;
        if (straight) {
            int *counts = arrays + (runner->nonblocking ? (size_t)l * slot : 0);
            MPI_Datatype stride = MPI_DATATYPE_NULL;
            int done = direct(runner, r, ranks, n, counts, counts + 2 * half, &sub, &stride);
            if (done != 0) {
                err = done < 0 ? -done : sg_run(runner, &sub);
                if (stride != MPI_DATATYPE_NULL)
                    PMPI_Type_free(&stride); /* a started sub-call keeps it */
                first = 0;
                continue;
            }
            sub = *c;
            sub.comm = subs[l];
        }
        if (!runner->nonblocking && shared == NULL &&
            (shared = new_copy_out(2 * half, most, c->recvbuf)) == NULL) {
            err = MPI_ERR_NO_MEM;
            break;
        }
        struct copy_out *o = shared ? shared : new_copy_out(n, bytes[l], c->recvbuf);
        if (o == NULL) {
            err = MPI_ERR_NO_MEM;
            break;
        }
        o->moves = 0;
        MPI_Aint at = 0;
        for (int j = 0; j < n; j++) {
            int i = ranks[j], count = v ? r->counts[i] : r->count;
            int64_t displ = block_at(r, i);
            o->counts[j] = count;
            o->displs[j] = (int)(at / extent);
            int wanted = (i < group[mine] || i >= group[mine + 1] || first) &&
                         !(i == me && in_place);
            if (wanted && count > 0)
                o->move[o->moves++] = (struct move){(MPI_Aint)displ * extent, at,
                                                    (MPI_Aint)count * extent};
            at += (MPI_Aint)count * extent;
        }
        first = 0;
        sub.recvbuf = o->temp;
        if (v) {
            sub.recvcounts = o->counts;
            sub.rdispls = o->displs;
        }
        if (in_place) { /* the input is this rank's block of the receive buffer */
            int64_t displ = block_at(r, me);
            sub.sendbuf = (char *)c->recvbuf + (MPI_Aint)displ * extent;
            sub.sendcount = v ? r->counts[me] : r->count;
            sub.sendtype = r->type;
        }
        err = sg_run(runner, &sub);
        if (shared != NULL)
            copy_moves(shared);
        else if ((kept = sg_keep(runner, copy_out, o)) != MPI_SUCCESS && err == MPI_SUCCESS)
            err = kept;
    }
    int kept = arrays != NULL ? sg_keep(runner, free, arrays) : MPI_SUCCESS;
    err = err != MPI_SUCCESS ? err : kept;
    free(shared);
    free(bytes);
    free_partition(&p);
    free(group);
    free(pairs);
    return err;
}

/* The reductions over a grid: `columns` consecutive ranks per row
 * (grid_columns), rows and columns at most `members` long. List g <
 * columns is column g (the ranks g, g + columns, ...), list columns + t is
 * row t. Any grid regroups the operands: exact only where the grouping
 * cannot matter (sg_split_risk). */
static int grid_subs(MPI_Comm parent, int procs, int columns, int me, MPI_Comm **subs)
{
    int rows = procs / columns;
    struct partition p;
    int err = new_partition(&p, columns + rows, 2 * procs);
    for (int g = 0; err == MPI_SUCCESS && g < columns; g++)
        add_runs(&p, g, rows, columns, 0, 0);
    for (int t = 0; err == MPI_SUCCESS && t < rows; t++)
        add_runs(&p, t * columns, columns, 1, 0, 0);
    if (err == MPI_SUCCESS)
        err = subs_of(parent, &p, me, subs);
    free_partition(&p);
    return err;
}

/* A row's parts of a vector of n elements, as MPI libraries cut a large
 * reduction (reduce-scatter, then gather): part j is counts[j] elements at
 * displs[j], the first n % parts one element longer. So a part never
 * starts before the first part ends: part j > 0 may be reduced from the
 * vector's start into its own place. In one allocation (counts first). */
static int *row_parts(int n, int parts)
{
    int *counts = malloc(2 * (size_t)parts * sizeof *counts);
    for (int j = 0, at = 0; counts != NULL && j < parts; j++) {
        counts[j] = n / parts + (j < n % parts);
        counts[parts + j] = at;
        at += counts[j];
    }
    return counts;
}

/* How reduce_by_parts and reduce_to_all reduce a vector over a row or a
 * column: one Reduce per part, each to the member that keeps it, rather
 * than one Reduce_scatter. The same elements move and are combined either
 * way; which is faster is the MPI's own matter. Measured here over 2 ranks,
 * 64 MiB: Open MPI 4.1.4's Reduce_scatter takes 0.5 to 0.9 s (it reduces
 * the whole vector to one rank, then scatters), its two Reduce 0.03 s;
 * MPICH 4.0.2's Reduce_scatter 0.4 to 0.5 s, its two Reduce 1.1 s. The
 * same on every rank. */
static int reduces_per_part(void)
{
    static atomic_int known; /* 0: not yet asked, 1: no, 2: yes */
    int answer = atomic_load(&known);
    if (answer == 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int length;
        answer = PMPI_Get_library_version(version, &length) == MPI_SUCCESS &&
                         strstr(version, "Open MPI") != NULL
                     ? 2
                     : 1;
        atomic_store(&known, answer);
    }
    return answer == 2;
}

/* Run a step whose result is the next step's input to completion, also in
 * an I-form: there as the blocking routine where the configuration lets
 * that take the step (`n` elements over `procs`). The I-call waits for the
 * step either way, and the blocking routine is the faster one on some MPIs
 * (Open MPI 4.1.4, 64 MiB over 2 ranks: Reduce 87 ms, libnbc's Ireduce
 * 132 ms). Each member of the step's communicator judges alike (the same
 * routine, count and configuration), so all run the same form. */
static int complete_step(const struct sg_runner *runner, struct sg_call *step, int64_t n,
                         int procs)
{
    struct sg_runner now = SG_RUNNER(runner->mpi, 0);
    enum sg_routine blocking = (enum sg_routine)(step->routine & ~1);
    if (step->routine != blocking && may_run(runner, blocking, blocking, step->sendtype, n, procs))
        step->routine = blocking;
    return sg_run(&now, step);
}

/* One Reduce per part of a vector over `comm` (reduces_per_part): part k,
 * the counts[k] elements after the parts before it in `input`, to member
 * k / per_member, which receives its parts one after the other in `mine`
 * (in place where that is the part's place in the input). With `complete`
 * each Reduce completes before the call returns (complete_step); else it
 * runs by `runner`. */
static int reduce_each_part(struct sg_runner *runner, int complete, const struct sg_call *c,
                            MPI_Comm comm, const char *input, const int *counts, int parts,
                            int per_member, int index, char *mine)
{
    MPI_Aint extent = extent_of(c->sendtype), at = 0, mine_at = 0;
    int err = MPI_SUCCESS;
    for (int k = 0; err == MPI_SUCCESS && k < parts; k++) {
        struct sg_call each = *c;
        each.routine = (enum sg_routine)(SG_MPI_Reduce | (c->routine & 1));
        each.comm = comm;
        each.root = k / per_member;
        each.sendcount = each.recvcount = counts[k];
        each.sendbuf = input + at * extent;
        each.recvbuf = NULL;
        if (each.root == index) {
            each.recvbuf = mine + mine_at * extent;
            mine_at += counts[k];
        }
        if (each.sendbuf == each.recvbuf)
            each.sendbuf = MPI_IN_PLACE;
        at += counts[k];
        err = complete ? complete_step(runner, &each, counts[k], parts / per_member)
                       : sg_run(runner, &each);
    }
    return err;
}

/* Whether the reduction of `c` to all or to its root can run by parts:
 * along a row Reduce_scatter of the vector (or Reduce of the largest part,
 * the first) and Allgatherv (Reduce: Gatherv) of the largest part, where
 * the configuration lets those routines take it. */
static int by_parts(const struct sg_runner *runner, const struct sg_call *c, int columns,
                    int per_part)
{
    enum sg_routine gather = family(c->routine) == SG_MPI_Reduce ? SG_MPI_Gatherv
                                                                 : SG_MPI_Allgatherv;
    int largest = c->sendcount / columns + (c->sendcount % columns > 0);
    int scattered = per_part ? may_run(runner, SG_MPI_Reduce, c->routine, c->sendtype, largest,
                                       columns)
                             : may_run(runner, SG_MPI_Reduce_scatter, c->routine, c->sendtype,
                                       c->sendcount, columns);
    return scattered && may_run(runner, gather, c->routine, c->sendtype, largest, columns);
}

/* Allreduce and Reduce to the root by parts, in three steps over the grid:
 * along its row each rank reduces the row's inputs and keeps its own part of
 * the vector (Reduce_scatter); down its column that part is reduced over the
 * rows (Allreduce; Reduce to the root's row); along the row the parts are
 * gathered (Allgatherv; Gatherv in the root's row to the root). Each step
 * moves and combines each element once, as the MPI's own algorithm for a
 * large vector does; a grid of two Allreduce steps combines the whole
 * vector twice. A part's input is the step before's result, so the first
 * two steps complete before the next starts, also in an I-form (the second
 * not where nothing follows it: a Reduce outside the root's row). */
static int reduce_by_parts(struct sg_runner *runner, const struct sg_call *c,
                           const struct sg_described *d, int columns, int per_part, int me)
{
    int reduce = family(c->routine) == SG_MPI_Reduce, root = reduce ? c->root : -1;
    int column = me % columns, row = me / columns, in_root_row = !reduce || row == root / columns;
    int is_root = me == root || !reduce, in_place = d->send.in_place && is_root;
    MPI_Comm *subs = NULL;
    int err = grid_subs(c->comm, d->procs, columns, me, &subs);
    int *counts = err == MPI_SUCCESS ? row_parts(c->sendcount, columns) : NULL;
    if (err == MPI_SUCCESS && counts == NULL)
        err = MPI_ERR_NO_MEM;
    if (err != MPI_SUCCESS)
        return err;
    int *displs = counts + columns;
    MPI_Aint extent = extent_of(c->sendtype);
    /* Where step 1 puts this rank's part, and where step 2's result must be
     * (in the root's row): the root's in the receive buffer, at the part's
     * place; the other ranks' in a temporary. A Reduce per part reduces
     * there, in place where the input is the receive buffer. Allreduce in
     * place (every rank passes MPI_IN_PLACE) reduce-scatters in place: the
     * part lands at the start of the receive buffer, and step 2 moves it to
     * its place, which it cannot overlap (row_parts). Reduce in place (the
     * root alone) reduce-scatters from the receive buffer into a temporary:
     * in place is for every rank alike there. */
    const char *input = in_place ? c->recvbuf : c->sendbuf;
    char *part = NULL, *dest = NULL;
    if (is_root)
        dest = (char *)c->recvbuf + (MPI_Aint)displs[column] * extent;
    if (is_root && per_part)
        part = dest;
    else if (!reduce)
        part = in_place ? c->recvbuf : dest;
    else if (is_root && !in_place)
        part = dest;
    else if ((part = malloc((size_t)counts[column] * (size_t)extent + 1)) == NULL)
        err = MPI_ERR_NO_MEM;
    int temporary = part != NULL && part != dest && part != c->recvbuf;
    if (dest == NULL)
        dest = part;

    struct sg_runner now = SG_RUNNER(runner->mpi, 0);
    if (per_part && err == MPI_SUCCESS)
        err = reduce_each_part(runner, 1, c, subs[columns + row], input, counts, columns, 1,
                               column, part);
    if (!per_part && err == MPI_SUCCESS) {
        struct sg_call scatter = *c;
        scatter.routine = (enum sg_routine)(SG_MPI_Reduce_scatter | (c->routine & 1));
        scatter.comm = subs[columns + row];
        if (reduce && in_place)
            scatter.sendbuf = c->recvbuf;
        scatter.recvbuf = part;
        scatter.recvcounts = counts;
        err = complete_step(runner, &scatter, c->sendcount, columns);
    }
    if (err == MPI_SUCCESS) {
        struct sg_call down = *c;
        down.comm = subs[column];
        if (reduce)
            down.root = root / columns;
        down.sendcount = down.recvcount = counts[column];
        down.sendbuf = in_root_row && part == dest ? MPI_IN_PLACE : part;
        down.recvbuf = in_root_row ? dest : NULL; /* Reduce off the root's row: unused */
        /* Reduce: the column's members off the root's row need not wait */
        err = reduce ? sg_run(in_root_row ? &now : runner, &down)
                     : complete_step(runner, &down, counts[column], d->procs / columns);
    }
    if (err == MPI_SUCCESS && in_root_row) {
        struct sg_call gather = *c;
        gather.routine =
            (enum sg_routine)((reduce ? SG_MPI_Gatherv : SG_MPI_Allgatherv) | (c->routine & 1));
        gather.comm = subs[columns + row];
        if (reduce)
            gather.root = root % columns;
        gather.sendbuf = is_root ? MPI_IN_PLACE : dest;
        gather.sendcount = counts[column];
        gather.recvtype = c->sendtype;
        gather.recvcounts = counts;
        gather.rdispls = displs;
        err = sg_run(runner, &gather);
    }
    int kept = sg_keep(runner, free, counts);
    if (temporary) {
        int also = sg_keep(runner, free, part);
        kept = kept != MPI_SUCCESS ? kept : also;
    }
    return err != MPI_SUCCESS ? err : kept;
}

/* Elements of one piece of reduce_by_pieces: 4 MiB. */
static int64_t piece_of(MPI_Datatype type)
{
    MPI_Aint extent = extent_of(type);
    return extent >= ((MPI_Aint)4 << 20) ? 1 : ((int64_t)4 << 20) / extent;
}

/* Reduce_scatter(_block) over the grid by pieces (MPICH): the two steps of
 * reduce_to_all cut into pieces of each block. Round j reduces piece j of
 * every block: down the column each block's piece to the member in the
 * block's row, then along the row each one to its rank, in one
 * Reduce_scatter per block whose counts are 0 but at that member's (the
 * calls of a step started at once in the I-form). MPICH 4.0.2's
 * Reduce_scatter copies the rank's own block and receives into a fresh
 * temporary of the block's size on every call; over the grid, whose step-1
 * blocks are `columns` times the call's, that costs 1.7 times the bare call
 * (64 MiB, P = 4), and its Reduce more. Pieces keep those temporaries, and
 * the row's partial result, at a piece: 1.05 to 1.1 times in a stand-alone
 * test, where glibc's malloc recycles freed blocks of that size (its
 * dynamic mmap threshold; with the threshold fixed, 1.45 to 1.6). Block k
 * starts at the sum of the counts before it; a rank's result goes to its
 * receive buffer, at the piece's place: where that is the input (in place),
 * it was read in this round or an earlier one. Each step takes the step
 * before's result, so in an I-form every round completes inside the call
 * but the last one's row step, which a non-blocking runner keeps: the
 * I-call returns after nearly all of the work (the two-step path after its
 * first step, about two thirds of it, and 1.7 times as long). */
static int reduce_by_pieces(struct sg_runner *runner, const struct sg_call *c, MPI_Comm *subs,
                            int columns, int row, int column, const int *block_counts,
                            int largest, int procs, const char *input)
{
    int rows = procs / columns;
    MPI_Aint extent = extent_of(c->sendtype);
    int64_t piece = piece_of(c->sendtype);
    /* the row's partial result of one piece, and per call of a step its counts */
    char *part = malloc((size_t)(columns * piece) * (size_t)extent + 1);
    int *counts = calloc((size_t)procs * (size_t)(rows > columns ? rows : columns), sizeof *counts);
    int64_t *displs = malloc((size_t)procs * sizeof *displs);
    int err = part != NULL && counts != NULL && displs != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    int64_t start = 0; /* the vector may be longer than INT_MAX */
    for (int k = 0; err == MPI_SUCCESS && k < procs; start += block_counts[k++])
        displs[k] = start;
    for (int64_t at = 0; err == MPI_SUCCESS && at < largest; at += piece) {
        for (int step = 0; err == MPI_SUCCESS && step < 2; step++) {
            struct sg_runner together = SG_RUNNER(runner->mpi, 1), *use = &together;
            if (step == 1 && at + piece >= largest && runner->nonblocking)
                use = runner;
            int calls = step == 0 ? procs : columns, members = step == 0 ? rows : columns;
            for (int i = 0; err == MPI_SUCCESS && i < calls; i++) {
                int k = step == 0 ? i : row * columns + i; /* the block */
                int64_t left = block_counts[k] - at;
                if (left <= 0)
                    continue; /* the same on every rank */
                int to = step == 0 ? k / columns : i, mine = to == (step == 0 ? row : column);
                int *these = counts + (size_t)i * (size_t)members;
                memset(these, 0, (size_t)members * sizeof *these);
                these[to] = (int)(left < piece ? left : piece);
                struct sg_call sub = *c;
                sub.routine = SG_MPI_Ireduce_scatter;
                sub.comm = subs[step == 0 ? column : columns + row];
                sub.recvcounts = these;
                if (step == 0) {
                    sub.sendbuf = input + (displs[k] + at) * extent;
                    sub.recvbuf = mine ? part + (k % columns) * piece * extent : NULL;
                } else {
                    sub.sendbuf = part + i * piece * extent;
                    sub.recvbuf = mine ? (char *)c->recvbuf + at * extent : NULL;
                }
                err = sg_run(use, &sub);
            }
            int done = sg_runner_finish(&together);
            err = err != MPI_SUCCESS ? err : done;
        }
    }
    free(displs);
    int kept = sg_keep(runner, free, part), also = sg_keep(runner, free, counts);
    kept = kept != MPI_SUCCESS ? kept : also;
    return err != MPI_SUCCESS ? err : kept;
}

/* Allreduce and Reduce_scatter(_block) over the grid in two steps (an
 * Allreduce that cannot run by parts). Step 1 reduces down each column with
 * the routine itself: Allreduce gives every member the column's partial
 * result; Reduce_scatter gives the column's t-th member the column's partial
 * result for row t's blocks, which are consecutive in the input. Step 2
 * reduces along each row those partial results: the result over all
 * columns, each rank's own. Step 2 takes step 1's result as input, so step
 * 1 completes first, also in an I-form. */
static int reduce_to_all(struct sg_runner *runner, const struct sg_call *c,
                         const struct sg_described *d, int columns, int me)
{
    enum sg_routine f = family(c->routine);
    int procs = d->procs, rows = procs / columns;
    int column = me % columns, row = me / columns;
    /* step 1's counts (Reduce_scatter: per row, the sum of its ranks'
     * counts), in int on every rank alike */
    int *row_counts = NULL, block = 0;
    int64_t vector = c->sendcount; /* the length reduced down a column */
    if (f == SG_MPI_Reduce_scatter) {
        if ((row_counts = malloc((size_t)rows * sizeof *row_counts)) == NULL)
            return MPI_ERR_NO_MEM;
        vector = 0;
        for (int t = 0; t < rows; t++) {
            int64_t sum = 0;
            for (int g = 0; g < columns; g++)
                sum += c->recvcounts[t * columns + g];
            if (sum > INT_MAX) {
                free(row_counts);
                return -1;
            }
            row_counts[t] = (int)sum;
            vector += sum;
        }
    } else if (f == SG_MPI_Reduce_scatter_block) {
        if ((int64_t)c->recvcount * columns > INT_MAX)
            return -1;
        block = c->recvcount * columns;
        vector = (int64_t)block * rows;
    }

    /* One Reduce per block in each step (reduces_per_part), where the
     * configuration lets Reduce take the largest block: down the column row
     * t's blocks to its member t, then along the row each rank's block to
     * it. A Reduce of a block is never larger than the call. Else (MPICH)
     * by pieces, where the configuration lets Ireduce_scatter take a piece
     * (reduce_by_pieces). */
    int *block_counts = NULL, per_block = 0, by_pieces = 0, largest = 0;
    if (f != SG_MPI_Allreduce) {
        if ((block_counts = malloc((size_t)procs * sizeof *block_counts)) == NULL) {
            free(row_counts);
            return MPI_ERR_NO_MEM;
        }
        for (int i = 0; i < procs; i++) {
            block_counts[i] = f == SG_MPI_Reduce_scatter ? c->recvcounts[i] : c->recvcount;
            largest = block_counts[i] > largest ? block_counts[i] : largest;
        }
        if (reduces_per_part())
            per_block = may_run(runner, SG_MPI_Reduce, c->routine, c->sendtype, largest, rows) &&
                        may_run(runner, SG_MPI_Reduce, c->routine, c->sendtype, largest, columns);
        else { /* a sub-call's vector: one piece at most */
            int64_t piece = piece_of(c->sendtype), n = largest < piece ? largest : piece;
            by_pieces = may_run(runner, SG_MPI_Ireduce_scatter, SG_MPI_Ireduce_scatter,
                                c->sendtype, n, rows) &&
                        may_run(runner, SG_MPI_Ireduce_scatter, SG_MPI_Ireduce_scatter,
                                c->sendtype, n, columns);
        }
    }

    MPI_Comm *subs = NULL;
    int err = grid_subs(c->comm, procs, columns, me, &subs);
    if (by_pieces) {
        if (err == MPI_SUCCESS)
            err = reduce_by_pieces(runner, c, subs, columns, row, column, block_counts, largest,
                                   procs, d->send.in_place ? c->recvbuf : c->sendbuf);
        free(row_counts);
        free(block_counts);
        return err;
    }
    void *partial = NULL;
    if (err == MPI_SUCCESS && f != SG_MPI_Allreduce) {
        int count = f == SG_MPI_Reduce_scatter ? row_counts[row] : block;
        partial = malloc((size_t)count * (size_t)extent_of(c->sendtype) + 1);
        if (partial == NULL)
            err = MPI_ERR_NO_MEM;
    }
    if (err == MPI_SUCCESS) {
        struct sg_call down = *c, along = *c;
        down.comm = subs[column];
        along.comm = subs[columns + row];
        along.sendbuf = MPI_IN_PLACE; /* Allreduce: step 1's result, in recvbuf */
        if (f != SG_MPI_Allreduce) {
            down.sendbuf = d->send.in_place ? c->recvbuf : c->sendbuf;
            down.recvbuf = partial;
            down.recvcounts = row_counts;
            down.recvcount = down.sendcount = block;
            along.sendbuf = partial;
            along.recvcounts = c->recvcounts ? c->recvcounts + row * columns : NULL;
        }
        if (per_block) {
            err = reduce_each_part(runner, 1, c, down.comm, down.sendbuf, block_counts, procs,
                                   columns, row, partial);
            if (err == MPI_SUCCESS)
                err = reduce_each_part(runner, 0, c, along.comm, partial,
                                       block_counts + row * columns, columns, 1, column,
                                       c->recvbuf);
        } else {
            err = complete_step(runner, &down, vector, rows);
            if (err == MPI_SUCCESS)
                err = sg_run(runner, &along);
        }
    }
    int kept = partial != NULL ? sg_keep(runner, free, partial) : MPI_SUCCESS;
    free(row_counts); /* step 1's, done; a Reduce keeps no counts */
    free(block_counts);
    return err != MPI_SUCCESS ? err : kept;
}

/* Bcast by a blocking runner: a tree of groups. After round k the ranks
 * root + 0 .. m^k - 1 (mod P) hold the data, and in round k + 1 each such
 * holder h passes it to h + j m^k, j = 1 .. m - 1, in one group rooted at
 * h: ceil(log_m P) rounds instead of ceil((P - 1) / (m - 1)) sub-calls one
 * after the other from the root. The groups of a round are disjoint and
 * every rank takes its groups in round order, so blocking sub-calls cannot
 * wait on each other in a cycle. (A non-blocking runner starts all of the
 * root's groups at once; in a tree a holder would wait for its own round.)
 * holders[g] is group g's root. */
static int bcast_tree(int procs, int root, int members, struct partition *p, int **holders)
{
    int err = new_partition(p, procs, 2 * procs);
    int *added = malloc((size_t)members * sizeof *added);
    *holders = malloc((size_t)procs * sizeof **holders);
    if (err != MPI_SUCCESS || added == NULL || *holders == NULL) {
        free(added);
        free(*holders);
        if (err == MPI_SUCCESS)
            free_partition(p);
        return MPI_ERR_NO_MEM;
    }
    for (int64_t held = 1; held < procs; held *= members)
        for (int64_t h = 0; h < held; h++) {
            int n = 0;
            for (int64_t j = 1; j < members && h + j * held < procs; j++) {
                int rank = (int)((root + h + j * held) % procs), at = n++;
                for (; at > 0 && added[at - 1] > rank; at--) /* ascending */
                    added[at] = added[at - 1];
                added[at] = rank;
            }
            if (n == 0)
                continue;
            (*holders)[p->count] = (int)((root + h) % procs);
            add_group(p, added, n, (*holders)[p->count]);
        }
    free(added);
    return MPI_SUCCESS;
}

static int rooted(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
                  int members, const struct sg_windows *w, int me)
{
    enum sg_routine f = family(c->routine);
    int irregular = f == SG_MPI_Gatherv || f == SG_MPI_Scatterv;
    if (w->of != NULL && !irregular)
        return -1;
    int err, root = c->root, procs = d->procs, *holders = NULL;
    struct partition p;
    if (f == SG_MPI_Bcast && !runner->nonblocking)
        err = bcast_tree(procs, root, members, &p, &holders);
    else
        err = partition(procs, root, members, w, &p);
    if (err != MPI_SUCCESS)
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
    if (err == MPI_SUCCESS)
        err = subs_of(c->comm, &p, me, &subs);

    /* Blocking Gather(v) and Scatter(v): every group's sub-call starts at
     * once and all complete together, as the MPI's own linear algorithm
     * posts all of the root's transfers at once; group after group leaves
     * all but one pair of ranks idle (MPICH 4.0.2, 64 MiB per rank, P = 4 in
     * pairs: Scatterv 64 ms group after group, 28 ms at once, 41 ms bare). */
    struct sg_runner together = SG_RUNNER(runner->mpi, 1), *use = runner;
    if (runner->together && f != SG_MPI_Bcast && f != SG_MPI_Reduce)
        use = &together;

    for (int g = 0; err == MPI_SUCCESS && g < p.count; g++) {
        if (subs[g] == MPI_COMM_NULL)
            continue; /* not a member */
        const int *ranks = p.ranks + p.start[g];
        int n = p.start[g + 1] - p.start[g], own = p.own && g == 0;
        struct sg_call sub = *c;
        sub.comm = subs[g];
        sub.root = member(ranks, n, holders != NULL ? holders[g] : root);
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
        if (use == &together)
            sub.routine = (enum sg_routine)(sub.routine | 1);
        err = sg_run(carry ? &now : use, &sub);
    }

    free_partition(&p);
    free(holders);
    free(base);
    int kept = counts != NULL ? sg_keep(use, free, counts) : MPI_SUCCESS;
    if (use == &together) {
        int done = sg_runner_finish(&together);
        kept = kept != MPI_SUCCESS ? kept : done;
    }
    return err != MPI_SUCCESS ? err : kept;
}

int sg_w1a(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
           int members, const struct sg_windows *w)
{
    if (!sg_w1a_applies(c, d, members, NULL))
        return -1;
    int me, columns, err = PMPI_Comm_rank(c->comm, &me);
    if (err != MPI_SUCCESS)
        return err;
    if (members > d->procs)
        members = d->procs;
    switch (family(c->routine)) {
    case SG_MPI_Allgather: case SG_MPI_Allgatherv:
        return gather_to_all(runner, c, d, members, me);
    case SG_MPI_Allreduce: case SG_MPI_Reduce_scatter: case SG_MPI_Reduce_scatter_block:
        columns = grid_columns(d->procs, members);
        if (family(c->routine) == SG_MPI_Allreduce &&
            by_parts(runner, c, columns, reduces_per_part()))
            return reduce_by_parts(runner, c, d, columns, reduces_per_part(), me);
        return reduce_to_all(runner, c, d, columns, me);
    case SG_MPI_Reduce:
        columns = grid_columns(d->procs, members);
        if (columns > 0 && w->of == NULL && by_parts(runner, c, columns, reduces_per_part()))
            return reduce_by_parts(runner, c, d, columns, reduces_per_part(), me);
        return rooted(runner, c, d, members, w, me);
    default:
        return rooted(runner, c, d, members, w, me);
    }
}
