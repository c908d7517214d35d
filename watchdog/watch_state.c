/* The watchdog's state files and its diagnosis: see watch_state.h. */
#include "watch_state.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"

static const char *const kind_names[SG_WATCH_KIND_COUNT] = {
    "outside", "collective", "send", "recv", "sendrecv", "wait", "finalize", "missing",
};

int sg_watch_kind_blocks(enum sg_watch_kind kind)
{
    return kind == SG_WATCH_COLLECTIVE || kind == SG_WATCH_SEND || kind == SG_WATCH_RECV ||
           kind == SG_WATCH_SENDRECV || kind == SG_WATCH_WAIT || kind == SG_WATCH_FINALIZE;
}

/* ---- The file ----------------------------------------------------------- */

int sg_watch_format(const struct sg_watch_view *v, char *out, size_t size)
{
    return snprintf(out, size,
                    "rank %d\npid %d\nhost %s\nkind %s\nroutine %s\nsub %s\n"
                    "comm %016" PRIx64 " %d %s\ncall %" PRIu64 "\nroot %d\n"
                    "dest %d %d\nsource %d %d\nheld %d\nlast %016" PRIx64 " %" PRIu64 " %s\n"
                    "since %.6f\nserial %" PRIu64 "\n",
                    v->rank, v->pid, v->host, kind_names[v->kind], v->routine, v->sub, v->comm,
                    v->comm_size, v->members[0] ? v->members : "?", v->call, v->root, v->dest,
                    v->dest_tag, v->source, v->source_tag, v->held, v->last_comm, v->last_call,
                    v->last_routine[0] ? v->last_routine : "-", v->since, v->serial);
}

/* The rest of a line after "key ", copied into out (cut to size). */
static void copy_value(const char *value, size_t length, char *out, size_t size)
{
    size_t n = length < size - 1 ? length : size - 1;
    memcpy(out, value, n);
    out[n] = '\0';
}

int sg_watch_parse(const char *text, struct sg_watch_view *v, char *error, size_t error_size)
{
    memset(v, 0, sizeof *v);
    v->kind = SG_WATCH_MISSING;
    unsigned seen = 0;
    const char *line = text;
    for (int number = 1; *line; number++) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        const char *space = memchr(line, ' ', length);
        if (space == NULL) {
            snprintf(error, error_size, "line %d: no value", number);
            return -1;
        }
        size_t key_length = (size_t)(space - line);
        const char *value = space + 1;
        size_t value_length = length - key_length - 1;
        char buffer[1200];
        copy_value(value, value_length, buffer, sizeof buffer);
        int ok = 1, bit = -1;
#define SG_KEY(name) (key_length == sizeof name - 1 && memcmp(line, name, key_length) == 0)
        if (SG_KEY("rank")) {
            bit = 0;
            ok = sscanf(buffer, "%d", &v->rank) == 1;
        } else if (SG_KEY("pid")) {
            bit = 1;
            ok = sscanf(buffer, "%d", &v->pid) == 1;
        } else if (SG_KEY("host")) {
            bit = 2;
            copy_value(value, value_length, v->host, sizeof v->host);
        } else if (SG_KEY("kind")) {
            bit = 3;
            ok = 0;
            for (int k = 0; k < SG_WATCH_MISSING; k++)
                if (strcmp(buffer, kind_names[k]) == 0) {
                    v->kind = (enum sg_watch_kind)k;
                    ok = 1;
                }
        } else if (SG_KEY("routine")) {
            bit = 4;
            copy_value(value, value_length, v->routine, sizeof v->routine);
        } else if (SG_KEY("sub")) {
            bit = 5;
            copy_value(value, value_length, v->sub, sizeof v->sub);
        } else if (SG_KEY("comm")) {
            bit = 6;
            char members[sizeof v->members];
            ok = sscanf(buffer, "%" SCNx64 " %d %1023s", &v->comm, &v->comm_size, members) == 3;
            if (ok)
                snprintf(v->members, sizeof v->members, "%s", strcmp(members, "?") ? members : "");
        } else if (SG_KEY("call")) {
            bit = 7;
            ok = sscanf(buffer, "%" SCNu64, &v->call) == 1;
        } else if (SG_KEY("root")) {
            bit = 8;
            ok = sscanf(buffer, "%d", &v->root) == 1;
        } else if (SG_KEY("dest")) {
            bit = 9;
            ok = sscanf(buffer, "%d %d", &v->dest, &v->dest_tag) == 2;
        } else if (SG_KEY("source")) {
            bit = 10;
            ok = sscanf(buffer, "%d %d", &v->source, &v->source_tag) == 2;
        } else if (SG_KEY("since")) {
            bit = 11;
            ok = sscanf(buffer, "%lf", &v->since) == 1;
        } else if (SG_KEY("serial")) {
            bit = 12;
            ok = sscanf(buffer, "%" SCNu64, &v->serial) == 1;
        } else if (SG_KEY("held")) {
            bit = 13;
            ok = sscanf(buffer, "%d", &v->held) == 1;
        } else if (SG_KEY("last")) {
            bit = 14;
            ok = sscanf(buffer, "%" SCNx64 " %" SCNu64 " %31s", &v->last_comm, &v->last_call,
                        v->last_routine) == 3;
            if (ok && strcmp(v->last_routine, "-") == 0)
                v->last_routine[0] = '\0';
        }
#undef SG_KEY
        if (bit < 0 || !ok) {
            snprintf(error, error_size, "line %d: %s '%.*s'", number,
                     bit < 0 ? "unknown key in" : "bad value in", (int)length, line);
            return -1;
        }
        seen |= 1u << bit;
        line = end ? end + 1 : line + length;
    }
    if (seen != (1u << 15) - 1) {
        snprintf(error, error_size, "incomplete (ended before every key was given)");
        return -1;
    }
    return 0;
}

/* ---- The diagnosis ------------------------------------------------------ */

struct text {
    char *out;
    size_t size, at;
};

static void put(struct text *t, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *format, ...)
{
    char scratch[1];
    va_list args;
    va_start(args, format);
    int n = t->at < t->size ? vsnprintf(t->out + t->at, t->size - t->at, format, args)
                            : vsnprintf(scratch, 0, format, args);
    va_end(args);
    if (n > 0)
        t->at += (size_t)n;
}

#define LINE "scaleguard: watchdog: "

static void put_peer(struct text *t, const char *word, int rank, int tag)
{
    if (rank == SG_WATCH_ANY)
        put(t, " %s any rank", word);
    else
        put(t, " %s rank %d", word, rank);
    if (tag == SG_WATCH_ANY)
        put(t, " any tag");
    else
        put(t, " tag %d", tag);
}

static void put_comm(struct text *t, const struct sg_watch_view *v)
{
    if (v->comm == 0)
        return;
    put(t, " on communicator %016" PRIx64 " (%d ranks%s%s)", v->comm, v->comm_size,
        v->members[0] ? ": " : "", v->members);
}

/* What rank v is doing, at `now`. */
static void describe(struct text *t, const struct sg_watch_view *v, double now)
{
    switch (v->kind) {
    case SG_WATCH_MISSING:
        put(t, "gone (no state file: its MPI_Finalize returned, or it ended)");
        return;
    case SG_WATCH_OUTSIDE:
        put(t, "not in MPI");
        break;
    case SG_WATCH_COLLECTIVE:
        put(t, "in %s", v->routine);
        if (v->root != SG_WATCH_NONE)
            put(t, " root %d", v->root);
        put_comm(t, v);
        put(t, ", call %" PRIu64, v->call);
        break;
    case SG_WATCH_SEND:
    case SG_WATCH_RECV:
    case SG_WATCH_SENDRECV:
        put(t, "in %s", v->routine);
        if (v->dest != SG_WATCH_NONE)
            put_peer(t, "to", v->dest, v->dest_tag);
        if (v->source != SG_WATCH_NONE)
            put_peer(t, v->dest != SG_WATCH_NONE ? ", from" : "from", v->source, v->source_tag);
        put_comm(t, v);
        if (v->held)
            put(t, " (held by the watchdog until received)");
        break;
    case SG_WATCH_WAIT:
    case SG_WATCH_FINALIZE:
        put(t, "in %s", v->routine);
        break;
    case SG_WATCH_KIND_COUNT:
        break;
    }
    if (v->sub[0])
        put(t, " (%s)", v->sub);
    put(t, ", for %.1f s", now - v->since);
}

static int tags_meet(int wanted, int sent) { return wanted == SG_WATCH_ANY || wanted == sent; }

/* Whether b is in a receive that takes a's send (tag, on comm). */
static int receives_from(const struct sg_watch_view *b, int a, int tag, uint64_t comm)
{
    return (b->kind == SG_WATCH_RECV || b->kind == SG_WATCH_SENDRECV) && b->comm == comm &&
           (b->source == a || b->source == SG_WATCH_ANY) && tags_meet(b->source_tag, tag);
}

/* Whether b is in a send that a's receive (tag, on comm) takes. */
static int sends_to(const struct sg_watch_view *b, int a, int tag, uint64_t comm)
{
    return (b->kind == SG_WATCH_SEND || b->kind == SG_WATCH_SENDRECV) && b->comm == comm &&
           b->dest == a && tags_meet(tag, b->dest_tag);
}

static int same_collective(const struct sg_watch_view *a, const struct sg_watch_view *b)
{
    return b->kind == SG_WATCH_COLLECTIVE && b->comm == a->comm && b->call == a->call &&
           strcmp(b->routine, a->routine) == 0;
}

/* Whether rank b has left a's collective already: the last collective it
 * left is this one (a root's peer whose part was sent, a neighbour whose
 * own blocks were done), so a waits for nothing of it. The same routine and
 * call number on the same id, as same_collective: two communicators of the
 * same members share an id (a Cartesian ring of the world's ranks, and the
 * world), each counting its own calls. */
static int left_collective(const struct sg_watch_view *a, const struct sg_watch_view *b)
{
    return b->kind != SG_WATCH_MISSING && b->last_comm == a->comm && b->last_call == a->call &&
           strcmp(b->last_routine, a->routine) == 0;
}

/* Whether rank a, in a blocking call, waits for rank b: a member of a's
 * collective that is not in it, nor has left it; the peer of a send that is not receiving
 * it; the named source of a receive that is not sending to it. */
static int waits_for(const struct sg_watch_view *views, int a, int b)
{
    const struct sg_watch_view *va = &views[a], *vb = &views[b];
    if (a == b)
        return 0;
    switch (va->kind) {
    case SG_WATCH_COLLECTIVE:
        return va->members[0] && sg_ranges_contain(va->members, b) &&
               !same_collective(va, vb) && !left_collective(va, vb);
    case SG_WATCH_SEND:
    case SG_WATCH_RECV:
    case SG_WATCH_SENDRECV:
        return (va->dest == b && !receives_from(vb, a, va->dest_tag, va->comm)) ||
               (va->source == b && !sends_to(vb, a, va->source_tag, va->comm));
    default:
        return 0;
    }
}

/* Depth first. */
int sg_watch_cycle(const struct sg_watch_view *views, int procs, int start, int *cycle)
{
    char *color = calloc((size_t)procs, 1); /* 0 new, 1 on the path, 2 done */
    int *path = malloc((size_t)procs * sizeof *path), *next = malloc((size_t)procs * sizeof *next);
    int found = 0;
    if (color == NULL || path == NULL || next == NULL)
        goto out;
    int depth = 0;
    path[0] = start;
    next[0] = 0;
    color[start] = 1;
    while (depth >= 0 && !found) {
        int a = path[depth];
        int b = next[depth]++;
        if (b >= procs) {
            color[a] = 2;
            depth--;
            continue;
        }
        if (!waits_for(views, a, b))
            continue;
        if (color[b] == 1) {
            int from = depth;
            while (path[from] != b)
                from--;
            for (int i = from; i <= depth; i++)
                cycle[found++] = path[i];
        } else if (color[b] == 0) {
            color[b] = 1;
            path[++depth] = b;
            next[depth] = 0;
        }
    }
out:
    free(color);
    free(path);
    free(next);
    return found;
}

/* The first rank a waits for, or -1. */
static int first_waited(const struct sg_watch_view *views, int procs, int a)
{
    for (int b = 0; b < procs; b++)
        if (waits_for(views, a, b))
            return b;
    return -1;
}

static void put_ranks(struct text *t, const int *ranks, int count)
{
    char ranges[256];
    if (sg_ranges_format(ranks, count, ranges, sizeof ranges) == count)
        put(t, "%s %s", count > 1 ? "ranks" : "rank", ranges);
    else
        put(t, "%d ranks from %d", count, ranks[0]);
}

/* Reporter in a collective: who of its communicator is elsewhere. Returns
 * whether a cause was named. */
static int collective_cause(struct text *t, const struct sg_watch_view *views, int procs,
                            int reporter, double now)
{
    const struct sg_watch_view *r = &views[reporter];
    if (!r->members[0])
        return 0;
    int *other = malloc((size_t)procs * sizeof *other), *absent = malloc((size_t)procs * sizeof *absent);
    int *left = malloc((size_t)procs * sizeof *left);
    int others = 0, absents = 0, lefts = 0, named = 0;
    if (other == NULL || absent == NULL || left == NULL)
        goto out;
    for (int b = 0; b < procs; b++) {
        if (b == reporter || !sg_ranges_contain(r->members, b) || same_collective(r, &views[b]))
            continue;
        if (views[b].kind == SG_WATCH_COLLECTIVE && views[b].comm == r->comm)
            other[others++] = b;
        else if (left_collective(r, &views[b]))
            left[lefts++] = b;
        else
            absent[absents++] = b;
    }
    if (others > 0) { /* every collective on it, with its ranks */
        put(t, LINE "cause: ranks in different collectives on communicator %016" PRIx64 ":",
            r->comm);
        int *group = other; /* reused: the ranks of one collective */
        char *told = calloc((size_t)procs, 1);
        for (int a = 0, first = 1; a < procs && told; a++) {
            const struct sg_watch_view *va = &views[a];
            if (told[a] || !sg_ranges_contain(r->members, a) ||
                va->kind != SG_WATCH_COLLECTIVE || va->comm != r->comm)
                continue;
            int count = 0;
            for (int b = a; b < procs; b++)
                if (!told[b] && same_collective(va, &views[b]) &&
                    sg_ranges_contain(r->members, b))
                    told[b] = 1, group[count++] = b;
            put(t, "%s ", first ? "" : ";");
            put_ranks(t, group, count);
            put(t, " in %s (call %" PRIu64 ")", va->routine, va->call);
            first = 0;
        }
        free(told);
        put(t, "\n");
        named = 1;
    }
    if (absents > 0) {
        put(t, LINE "cause: ");
        put_ranks(t, absent, absents);
        put(t, " of its communicator %s in %s (call %" PRIu64 "):", absents > 1 ? "are not" : "is not",
            r->routine, r->call);
        for (int i = 0; i < absents && i < 16; i++) {
            const struct sg_watch_view *v = &views[absent[i]];
            put(t, "%s rank %d is ", i ? ";" : "", absent[i]);
            describe(t, v, now);
            if (v->kind != SG_WATCH_MISSING && v->last_comm == r->comm && v->last_routine[0])
                put(t, ", after %s (call %" PRIu64 ") on it", v->last_routine, v->last_call);
        }
        put(t, "%s\n", absents > 16 ? "; ..." : "");
        named = 1;
    }
    if (lefts > 0) { /* not a cause: said, so that no one looks there */
        put(t, LINE);
        put_ranks(t, left, lefts);
        put(t, " of its communicator %s left %s (call %" PRIu64 ") already\n",
            lefts > 1 ? "have" : "has", r->routine, r->call);
    }
out:
    free(other);
    free(absent);
    free(left);
    return named;
}

int sg_watch_diagnose(const struct sg_watch_view *views, int procs, int reporter, double now,
                      double limit, char *out, size_t size)
{
    struct text t = {out, size, 0};
    if (size > 0)
        out[0] = '\0';
    const struct sg_watch_view *r = &views[reporter];
    put(&t, LINE "rank %d has been in %s for %.1f s (limit %g s); what every rank is doing:\n",
        reporter, r->routine, now - r->since, limit);
    const int shown = 64;
    for (int i = 0; i < procs && i < shown; i++) {
        put(&t, LINE "  rank %d", i);
        if (views[i].kind != SG_WATCH_MISSING)
            put(&t, " (%s, pid %d)", views[i].host, views[i].pid);
        put(&t, " is ");
        describe(&t, &views[i], now);
        put(&t, "\n");
    }
    if (procs > shown)
        put(&t, LINE "  ... %d more ranks\n", procs - shown);

    int named = r->kind == SG_WATCH_COLLECTIVE && collective_cause(&t, views, procs, reporter, now);
    int *cycle = malloc((size_t)procs * sizeof *cycle);
    int length = cycle ? sg_watch_cycle(views, procs, reporter, cycle) : 0;
    int only_collectives = 1; /* a cycle among collectives is told above */
    for (int i = 0; i < length; i++)
        only_collectives &= views[cycle[i]].kind == SG_WATCH_COLLECTIVE;
    if (length > 0 && !(named && only_collectives)) {
        int held = 0, standard = 0;
        for (int i = 0; i < length; i++) {
            held |= views[cycle[i]].held;
            standard |= strcmp(views[cycle[i]].routine, "MPI_Send") == 0;
        }
        put(&t, LINE "cause: %s: ",
            held ? "potential deadlock, a cycle of blocking calls that stays only if the MPI "
                   "does not buffer the standard sends in it"
                 : "deadlock, a cycle of blocking calls");
        for (int i = 0; i < length; i++)
            put(&t, "rank %d (%s)%s waits for ", cycle[i], views[cycle[i]].routine,
                i ? ", which" : "");
        put(&t, "rank %d%s\n", cycle[0],
            held       ? "; the watchdog lets the held sends go on as if buffered"
            : standard ? "; its standard sends were not buffered by the MPI"
                       : "");
        named = 1;
    } else if (!named) {
        /* follow what the reporter waits for to a rank that waits for none */
        int at = reporter, steps = 0, next;
        while ((next = first_waited(views, procs, at)) >= 0 && steps < procs) {
            if (steps++ == 0)
                put(&t, LINE "cause: rank %d", reporter);
            put(&t, " waits for rank %d%s", next, first_waited(views, procs, next) >= 0 ? ", which" : "");
            at = next;
        }
        if (at != reporter) {
            put(&t, ", which is ");
            describe(&t, &views[at], now);
            put(&t, "\n");
            named = 1;
        }
    }
    free(cycle);
    if (!named)
        put(&t, LINE "cause: not found in the states: %s\n",
            r->kind == SG_WATCH_COLLECTIVE
                ? "every member is in this call or has left it, so it waits inside the MPI (a "
                  "hang of the MPI, or a slow call)"
                : "no rank it waits for is known to be elsewhere");
    return (int)t.at;
}
