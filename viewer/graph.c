/* The message graph: ranks as nodes, one edge per pair of ranks that
 * exchanged anything, merging its parts: point-to-point messages from
 * sender to destination per communicator, and each collective routine on
 * a communicator between its ranks: from the root to the others (Bcast,
 * Scatter(v)), from the others to the root (Gather(v), Reduce), between
 * every pair of the others (a star from the lowest rank past 16 ranks).
 * Every edge keeps the calls it stands for; its label (a line per part) is
 * the DOT's tooltip, which the page shows on hover only (drawn labels lie
 * on top of each other). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

struct part {
    int from, to, directed;
    uint64_t comm;
    const char *routine; /* a collective's routine (its calls' string); "" for point to point */
    int64_t messages, bytes;
    size_t *calls, call_count, call_capacity;
};

struct edge {
    int low, high;       /* the pair's ranks */
    int forward, back;   /* some part goes low to high, high to low */
    int point_to_point;  /* some part is messages */
    size_t first, count; /* its parts: graph.parts[order[first...]] */
};

struct graph {
    struct part *parts;
    size_t part_count, part_capacity;
    size_t *slots, slot_count; /* the parts by key: open addressing, index + 1 */
    size_t *order;             /* the parts by pair */
    struct edge *edges;
    size_t count;
};

static uint64_t key_hash(int from, int to, uint64_t comm, const char *routine)
{
    uint64_t h = comm * UINT64_C(0x9e3779b97f4a7c15) ^ ((uint64_t)(unsigned)from << 32 | (unsigned)to);
    for (; *routine; routine++)
        h = (h ^ (unsigned char)*routine) * UINT64_C(0x100000001b3);
    return h ^ h >> 29;
}

static int grow_slots(struct graph *g)
{
    size_t slots = g->slot_count ? 2 * g->slot_count : 1024;
    size_t *grown = calloc(slots, sizeof *grown);
    if (grown == NULL)
        return -1;
    for (size_t i = 0; i < g->part_count; i++) {
        const struct part *p = &g->parts[i];
        size_t s = key_hash(p->from, p->to, p->comm, p->routine) & (slots - 1);
        while (grown[s] != 0)
            s = (s + 1) & (slots - 1);
        grown[s] = i + 1;
    }
    free(g->slots);
    g->slots = grown;
    g->slot_count = slots;
    return 0;
}

static struct part *part_of(struct graph *g, int from, int to, uint64_t comm, const char *routine,
                            int directed)
{
    if (2 * (g->part_count + 1) > g->slot_count && grow_slots(g) != 0)
        return NULL;
    size_t s = key_hash(from, to, comm, routine) & (g->slot_count - 1);
    for (; g->slots[s] != 0; s = (s + 1) & (g->slot_count - 1)) {
        struct part *p = &g->parts[g->slots[s] - 1];
        if (p->from == from && p->to == to && p->comm == comm && strcmp(p->routine, routine) == 0)
            return p;
    }
    if (g->part_count == g->part_capacity) {
        size_t more = g->part_capacity ? 2 * g->part_capacity : 64;
        struct part *grown = realloc(g->parts, more * sizeof *grown);
        if (grown == NULL)
            return NULL;
        g->parts = grown;
        g->part_capacity = more;
    }
    g->slots[s] = ++g->part_count;
    struct part *p = &g->parts[g->part_count - 1];
    *p = (struct part){.from = from, .to = to, .directed = directed, .comm = comm,
                       .routine = routine};
    return p;
}

static void add_call(struct part *p, size_t call)
{
    if (p->call_count == p->call_capacity) {
        size_t more = p->call_capacity ? 2 * p->call_capacity : 8;
        size_t *grown = realloc(p->calls, more * sizeof *grown);
        if (grown == NULL)
            return;
        p->calls = grown;
        p->call_capacity = more;
    }
    p->calls[p->call_count++] = call;
}

/* Whether the routine's blocks go to its root (a form of Gather(v) or Reduce). */
static int to_root(const char *routine)
{
    char family[sizeof ((struct call *)0)->routine];
    routine_family(routine, family, sizeof family);
    return strcmp(family, "Gather") == 0 || strcmp(family, "Gatherv") == 0 ||
           strcmp(family, "Reduce") == 0;
}

/* Collective calls in the order (communicator, routine, rank, index);
 * qsort passes no context: the trace sorted is `sorting`. */
static const struct trace *sorting;

static int by_collective(const void *a, const void *b)
{
    const struct call *x = &sorting->calls[*(const size_t *)a];
    const struct call *y = &sorting->calls[*(const size_t *)b];
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    int routine = strcmp(x->routine, y->routine);
    if (routine != 0)
        return routine;
    return x->rank != y->rank ? x->rank - y->rank : (x->index > y->index) - (x->index < y->index);
}

/* The calls of one (communicator, routine) as edges. `runs[r]`: rank r's
 * calls in the group, group[first...first + count). */
struct run {
    size_t first, count;
};

static void add_collective(struct graph *g, const struct trace *t, const size_t *group,
                           size_t size, struct run *runs, int *members)
{
    const struct call *c = &t->calls[group[0]];
    const int towards_root = to_root(c->routine);
    int member_count = 0;
    int64_t root = NONE;
    for (size_t k = 0; k < size; k++) {
        const struct call *m = &t->calls[group[k]];
        if (runs[m->rank].count++ == 0) {
            runs[m->rank].first = k;
            members[member_count++] = m->rank;
        }
        root = m->root != NONE ? m->root : root;
    }
    for (int a = 0; a < member_count; a++)
        for (int b = a + 1; b < member_count; b++) {
            int from = members[a], to = members[b], directed = 0;
            if (root != NONE) {
                if (from != root && to != root)
                    continue;
                directed = 1;
                int other = from == root ? to : from;
                from = towards_root ? other : (int)root;
                to = towards_root ? (int)root : other;
            } else if (member_count > 16 && a != 0) {
                break; /* a star from the lowest rank */
            }
            struct part *p = part_of(g, from, to, c->comm, c->routine, directed);
            if (p == NULL)
                continue;
            for (int side = 0; side < 2; side++) {
                const struct run *r = &runs[side ? to : from];
                for (size_t k = r->first; k < r->first + r->count; k++)
                    add_call(p, group[k]);
                p->messages += side ? 0 : (int64_t)r->count;
            }
        }
    for (int m = 0; m < member_count; m++)
        runs[members[m]].count = 0;
}

/* Parts in the order of their pair of ranks (the parts sorted: `sorting_parts`). */
static const struct part *sorting_parts;

static int by_pair(const void *a, const void *b)
{
    const struct part *x = &sorting_parts[*(const size_t *)a];
    const struct part *y = &sorting_parts[*(const size_t *)b];
    int xl = x->from < x->to ? x->from : x->to, yl = y->from < y->to ? y->from : y->to;
    int xh = x->from ^ x->to ^ xl, yh = y->from ^ y->to ^ yl;
    if (xl != yl)
        return xl - yl;
    if (xh != yh)
        return xh - yh;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

struct graph *graph_build(const struct trace *t)
{
    struct graph *g = calloc(1, sizeof *g);
    size_t *group = malloc((t->call_count + 1) * sizeof *group);
    struct run *runs = calloc((size_t)t->procs + 1, sizeof *runs);
    int *members = malloc(((size_t)t->procs + 1) * sizeof *members);
    if (g == NULL || group == NULL || runs == NULL || members == NULL) {
        free(g), free(group), free(runs), free(members);
        return NULL;
    }
    size_t collectives = 0;
    for (size_t i = 0; i < t->call_count; i++) {
        const struct call *c = &t->calls[i];
        if (c->number != NONE)
            group[collectives++] = i;
        if (routine_sends(c->routine) && c->peer != NONE && c->peer >= 0 && c->peer < t->procs) {
            struct part *p = part_of(g, c->rank, (int)c->peer, c->comm, "", 1);
            if (p != NULL) {
                p->messages++;
                p->bytes += c->bytes != NONE ? c->bytes : 0;
                add_call(p, i);
            }
        }
    }
    sorting = t;
    qsort(group, collectives, sizeof *group, by_collective);
    for (size_t i = 0, j; i < collectives; i = j) {
        const struct call *c = &t->calls[group[i]];
        for (j = i + 1; j < collectives && t->calls[group[j]].comm == c->comm &&
                        strcmp(t->calls[group[j]].routine, c->routine) == 0;
             j++)
            ;
        add_collective(g, t, group + i, j - i, runs, members);
    }
    free(group), free(runs), free(members);

    /* the parts by pair, each pair an edge */
    g->order = malloc((g->part_count + 1) * sizeof *g->order);
    g->edges = malloc((g->part_count + 1) * sizeof *g->edges);
    if (g->order == NULL || g->edges == NULL) {
        graph_free(g);
        return NULL;
    }
    for (size_t i = 0; i < g->part_count; i++)
        g->order[i] = i;
    sorting_parts = g->parts;
    qsort(g->order, g->part_count, sizeof *g->order, by_pair);
    for (size_t i = 0; i < g->part_count; i++) {
        const struct part *p = &g->parts[g->order[i]];
        int low = p->from < p->to ? p->from : p->to, high = p->from ^ p->to ^ low;
        struct edge *e = &g->edges[g->count];
        if (i == 0 || e[-1].low != low || e[-1].high != high)
            *e = (struct edge){.low = low, .high = high, .first = i}, g->count++;
        e = &g->edges[g->count - 1];
        e->count++;
        e->forward |= p->directed && p->from == low;
        e->back |= p->directed && p->from == high;
        e->point_to_point |= !p->routine[0];
    }
    return g;
}

void graph_free(struct graph *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->part_count; i++)
        free(g->parts[i].calls);
    free(g->parts);
    free(g->slots);
    free(g->order);
    free(g->edges);
    free(g);
}

size_t graph_edge_count(const struct graph *g) { return g->count; }

static const struct part *part_at(const struct graph *g, const struct edge *e, size_t k)
{
    return &g->parts[g->order[e->first + k]];
}

/* An edge's label: a line per part ("0 -> 1: 3 msg, 48 B on 28b196a0",
 * "Allreduce x3 on 28b196a0"), `between` between lines. */
static void write_label(const struct graph *g, const struct edge *e, const char *between,
                        FILE *out)
{
    for (size_t k = 0; k < e->count; k++) {
        const struct part *p = part_at(g, e, k);
        if (!p->routine[0])
            fprintf(out, "%s%d -> %d: %" PRId64 " msg, %" PRId64 " B on %08" PRIx64,
                    k ? between : "", p->from, p->to, p->messages, p->bytes, p->comm >> 32);
        else
            fprintf(out, "%s%s x%" PRId64 " on %08" PRIx64, k ? between : "", p->routine + 4,
                    p->messages, p->comm >> 32);
    }
}

int write_dot(const struct trace *t, const struct graph *g, FILE *out)
{
    fprintf(out, "digraph trace {\n"
                 "  graph [label=\"job %s, %d ranks\", fontname=\"sans\", layout=circo];\n"
                 "  node [shape=circle, fontname=\"sans\"];\n"
                 "  edge [fontname=\"sans\", fontsize=9];\n",
            t->files[0].job, t->procs);
    for (int r = 0; r < t->procs; r++)
        fprintf(out, "  r%d [id=\"r%d\", class=\"rank\", label=\"%d\"];\n", r, r, r);
    for (size_t i = 0; i < g->count; i++) {
        const struct edge *e = &g->edges[i];
        fprintf(out, "  r%d -> r%d [id=\"e%zu\", class=\"%s\", dir=%s, color=\"%s\", tooltip=\"",
                e->low, e->high, i, e->point_to_point ? "edge-p2p" : "edge-collective",
                e->forward && e->back ? "both" : e->forward ? "forward" : e->back ? "back" : "none",
                e->point_to_point ? "#cc0000" : "#3465a4");
        write_label(g, e, "\\n", out);
        fputs("\"];\n", out);
    }
    fprintf(out, "}\n");
    return ferror(out) ? -1 : 0;
}

void write_edges_json(const struct graph *g, FILE *out)
{
    fputc('[', out);
    for (size_t i = 0; i < g->count; i++) {
        const struct edge *e = &g->edges[i];
        fprintf(out, "%s{\"id\":\"e%zu\",\"from\":%d,\"to\":%d,\"label\":\"", i ? ",\n" : "",
                i, e->low, e->high);
        write_label(g, e, "\\n", out);
        fputs("\",\"parts\":[", out);
        for (size_t k = 0; k < e->count; k++) {
            const struct part *p = part_at(g, e, k);
            fprintf(out, "%s{\"from\":%d,\"to\":%d,\"comm\":\"%016" PRIx64 "\",\"routine\":\"%s\","
                         "\"messages\":%" PRId64 ",\"bytes\":%" PRId64 "}",
                    k ? "," : "", p->from, p->to, p->comm,
                    p->routine[0] ? p->routine : "point-to-point", p->messages, p->bytes);
        }
        fputs("],\"calls\":[", out);
        for (size_t k = 0, n = 0; k < e->count; k++) {
            const struct part *p = part_at(g, e, k);
            for (size_t c = 0; c < p->call_count; c++)
                fprintf(out, "%s%zu", n++ ? "," : "", p->calls[c]);
        }
        fputs("]}", out);
    }
    fputc(']', out);
}
