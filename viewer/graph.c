/* The message graph: ranks as nodes; point-to-point messages as edges from
 * sender to destination, per (sender, destination, communicator); each
 * collective routine on a communicator as edges between its ranks: from
 * the root to the others (Bcast, Scatter(v)), from the others to the root
 * (Gather(v), Reduce), between every pair of the others (a star from the
 * lowest rank past 16 ranks). Every edge keeps the calls it stands for. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

struct edge {
    int from, to, directed;
    uint64_t comm;
    char routine[40]; /* a collective's routine; "" for point to point */
    int64_t messages, bytes;
    size_t *calls, call_count, call_capacity;
};

struct graph {
    struct edge *edges;
    size_t count, capacity;
};

static struct edge *edge_of(struct graph *g, int from, int to, uint64_t comm, const char *routine,
                            int directed)
{
    for (size_t i = 0; i < g->count; i++) {
        struct edge *e = &g->edges[i];
        if (e->from == from && e->to == to && e->comm == comm && strcmp(e->routine, routine) == 0)
            return e;
    }
    if (g->count == g->capacity) {
        size_t more = g->capacity ? 2 * g->capacity : 64;
        struct edge *grown = realloc(g->edges, more * sizeof *grown);
        if (grown == NULL)
            return NULL;
        g->edges = grown;
        g->capacity = more;
    }
    struct edge *e = &g->edges[g->count++];
    *e = (struct edge){.from = from, .to = to, .directed = directed, .comm = comm};
    snprintf(e->routine, sizeof e->routine, "%s", routine);
    return e;
}

static void add_call(struct edge *e, size_t call)
{
    if (e->call_count == e->call_capacity) {
        size_t more = e->call_capacity ? 2 * e->call_capacity : 8;
        size_t *grown = realloc(e->calls, more * sizeof *grown);
        if (grown == NULL)
            return;
        e->calls = grown;
        e->call_capacity = more;
    }
    e->calls[e->call_count++] = call;
}

/* The routine without its I (MPI_Ibcast: MPI_Bcast), to know its shape. */
static int shaped(const char *routine, const char *blocking)
{
    if (strncmp(routine, "MPI_I", 5) == 0 && strcmp(routine + 5, blocking + 4) == 0)
        return 1;
    return strcmp(routine, blocking) == 0;
}

static int to_root(const char *routine)
{
    return shaped(routine, "MPI_Gather") || shaped(routine, "MPI_Gatherv") ||
           shaped(routine, "MPI_Reduce");
}

struct graph *graph_build(const struct trace *t)
{
    struct graph *g = calloc(1, sizeof *g);
    int *member = calloc((size_t)t->procs + 1, sizeof *member);
    if (g == NULL || member == NULL) {
        free(g);
        free(member);
        return NULL;
    }
    for (size_t i = 0; i < t->call_count; i++) {
        const struct call *c = &t->calls[i];
        struct edge *e;
        if (routine_sends(c->routine) && c->peer != NONE && c->peer >= 0 && c->peer < t->procs) {
            if ((e = edge_of(g, c->rank, (int)c->peer, c->comm, "", 1)) != NULL) {
                e->messages++;
                e->bytes += c->bytes != NONE ? c->bytes : 0;
                add_call(e, i);
            }
        }
    }
    /* Collectives: per (routine, communicator), the ranks that called it. */
    for (size_t i = 0; i < t->call_count; i++) {
        const struct call *c = &t->calls[i];
        if (c->number == NONE)
            continue;
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = t->calls[k].number != NONE && t->calls[k].comm == c->comm &&
                   strcmp(t->calls[k].routine, c->routine) == 0;
        if (seen)
            continue;
        memset(member, 0, (size_t)t->procs * sizeof *member);
        int members = 0, lowest = -1;
        int64_t root = NONE;
        for (size_t k = i; k < t->call_count; k++)
            if (t->calls[k].number != NONE && t->calls[k].comm == c->comm &&
                strcmp(t->calls[k].routine, c->routine) == 0) {
                members += !member[t->calls[k].rank];
                member[t->calls[k].rank] = 1;
                root = t->calls[k].root != NONE ? t->calls[k].root : root;
            }
        for (int r = 0; r < t->procs && lowest < 0; r++)
            lowest = member[r] ? r : -1;
        for (int a = 0; a < t->procs; a++)
            for (int b = a + 1; b < t->procs; b++) {
                if (!member[a] || !member[b])
                    continue;
                int from = a, to = b, directed = 0;
                if (root != NONE) {
                    if (a != root && b != root)
                        continue;
                    directed = 1;
                    int other = a == root ? b : a;
                    from = to_root(c->routine) ? other : (int)root;
                    to = to_root(c->routine) ? (int)root : other;
                } else if (members > 16 && a != lowest) {
                    continue;
                }
                struct edge *e = edge_of(g, from, to, c->comm, c->routine, directed);
                if (e == NULL)
                    continue;
                for (size_t k = i; k < t->call_count; k++)
                    if (t->calls[k].number != NONE && t->calls[k].comm == c->comm &&
                        strcmp(t->calls[k].routine, c->routine) == 0 &&
                        (t->calls[k].rank == from || t->calls[k].rank == to)) {
                        add_call(e, k);
                        e->messages += t->calls[k].rank == from;
                    }
            }
    }
    free(member);
    return g;
}

void graph_free(struct graph *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->count; i++)
        free(g->edges[i].calls);
    free(g->edges);
    free(g);
}

size_t graph_edge_count(const struct graph *g) { return g->count; }

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
        if (e->routine[0])
            fprintf(out, "  r%d -> r%d [id=\"e%zu\", class=\"edge-collective\", dir=%s, "
                         "color=\"#3465a4\", label=\"%s x%" PRId64 "\"];\n",
                    e->from, e->to, i, e->directed ? "forward" : "none", e->routine + 4,
                    e->messages);
        else
            fprintf(out, "  r%d -> r%d [id=\"e%zu\", class=\"edge-p2p\", color=\"#cc0000\", "
                         "label=\"%" PRId64 " msg, %" PRId64 " B\"];\n",
                    e->from, e->to, i, e->messages, e->bytes);
    }
    fprintf(out, "}\n");
    return ferror(out) ? -1 : 0;
}

void write_edges_json(const struct graph *g, FILE *out)
{
    fputc('[', out);
    for (size_t i = 0; i < g->count; i++) {
        const struct edge *e = &g->edges[i];
        fprintf(out, "%s{\"id\":\"e%zu\",\"from\":%d,\"to\":%d,\"comm\":\"%016" PRIx64
                     "\",\"routine\":",
                i ? "," : "", i, e->from, e->to, e->comm);
        put_json_string(out, e->routine[0] ? e->routine : "point-to-point");
        fprintf(out, ",\"messages\":%" PRId64 ",\"bytes\":%" PRId64 ",\"calls\":[", e->messages,
                e->bytes);
        for (size_t k = 0; k < e->call_count; k++)
            fprintf(out, "%s%zu", k ? "," : "", e->calls[k]);
        fputs("]}", out);
    }
    fputc(']', out);
}
