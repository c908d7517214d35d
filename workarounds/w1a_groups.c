/* W1-A's groups of ranks and the sub-communicators over them, cached on
 * the parent; what every algorithm of W1-A shares (w1a_parts.h). */
#include "w1a_parts.h"

#include "private_comm.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- The groups ------------------------------------------------------------ */


/* Append a group: `list` (ascending) and, unless it is -1, the root, put in
 * its place. */
void w1a_add_group(struct partition *p, const int *list, int n, int root)
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
        w1a_add_group(p, list + i, n - i < others ? n - i : others, root);
}

/* Each window's ranks (one window of all ranks without windows) in groups
 * of `members - 1` plus the root. In the root's window the root's own group
 * is the run of up to `members` ranks around it, placed so that the ranks
 * before it fill whole groups: ceil((P - 1) / (members - 1)) groups in all,
 * the fewest there can be. Ranks without a window (no block) are in none. */
int w1a_partition(int procs, int root, int members, const struct sg_windows *w,
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
        w1a_add_group(p, list + first, end - first, -1);
        add_groups(p, list, first, others, root);
        add_groups(p, list + end, n - end, others, root);
    }
    free(list);
    return MPI_SUCCESS;
}

void w1a_free_partition(struct partition *p)
{
    free(p->start);
    free(p->ranks);
}

/* Append a list: `n` ranks from `first` on, `step` apart, then `n2`
 * consecutive ranks from `first2` on. */
void w1a_add_runs(struct partition *p, int first, int n, int step, int first2, int n2)
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
int w1a_new_partition(struct partition *p, int lists, int total)
{
    *p = (struct partition){0};
    p->start = malloc(((size_t)lists + 1) * sizeof *p->start);
    p->ranks = malloc(((size_t)total + 1) * sizeof *p->ranks);
    if (p->start == NULL || p->ranks == NULL) {
        w1a_free_partition(p);
        return MPI_ERR_NO_MEM;
    }
    p->start[0] = 0;
    return MPI_SUCCESS;
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
 * parent) on its first W1-A call that may `make` communicators; else
 * SG_W1A_UNMADE while it is missing. */
static int cache_of(MPI_Comm parent, int make, struct cache **out)
{
    int k, found, err = sg_cache_keyval(&cache_keyval, delete_cache, &k);
    if (err == MPI_SUCCESS)
        err = PMPI_Comm_get_attr(parent, k, out, &found);
    if (err != MPI_SUCCESS || found)
        return err;
    if (!make)
        return SG_W1A_UNMADE;
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

int w1a_member(const int *ranks, int n, int rank)
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
        if (w1a_member(ranks, n, me) < 0)
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
 * now; a non-blocking runner makes none (w1a.h): SG_W1A_UNMADE. A runner
 * that looks only gets W1A_FOUND or SG_W1A_UNMADE, and the cache stays as
 * it is: the ranks that do not look (Gatherv's non-roots) must evict the
 * same entries later as those that do. */
int w1a_subs_of(const struct sg_runner *runner, MPI_Comm parent, const struct partition *p,
                int me, MPI_Comm **subs)
{
    int key_length, *key = partition_key(p, &key_length);
    if (key == NULL)
        return MPI_ERR_NO_MEM;
    struct cache *cache;
    int err = cache_of(parent, !runner->nonblocking && !runner->looks_only, &cache);
    if (err != MPI_SUCCESS) {
        free(key);
        return err;
    }
    for (struct entry **link = &cache->first; *link != NULL; link = &(*link)->next) {
        struct entry *e = *link;
        if (e->key_length == key_length &&
            memcmp(e->key, key, (size_t)key_length * sizeof *key) == 0) {
            free(key);
            if (runner->looks_only)
                return W1A_FOUND;
            *link = e->next;
            e->next = cache->first;
            cache->first = e;
            *subs = e->subs;
            return MPI_SUCCESS;
        }
    }
    if (runner->nonblocking || runner->looks_only) {
        free(key);
        return SG_W1A_UNMADE;
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
