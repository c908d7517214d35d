/* The summary (Markdown): per routine, per rank, what the layer did. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

struct routine_sum {
    char routine[40];
    int64_t calls, bytes;
    double time;
    /* collectives: the wait of the first rank in for the last, summed, and the worst */
    double wait, worst_wait;
    uint64_t worst_comm;
    int64_t worst_number;
    int worst_rank;
    char did[8][56];
    int64_t did_count[8];
};

static struct routine_sum *sum_of(struct routine_sum *sums, size_t *count, const char *routine)
{
    for (size_t i = 0; i < *count; i++)
        if (strcmp(sums[i].routine, routine) == 0)
            return &sums[i];
    struct routine_sum *s = &sums[(*count)++];
    memset(s, 0, sizeof *s);
    snprintf(s->routine, sizeof s->routine, "%s", routine);
    return s;
}

static void count_did(struct routine_sum *s, const struct call *c)
{
    char what[sizeof ((struct call *)0)->did + sizeof ((struct call *)0)->why + 4];
    if (!c->did[0])
        return;
    if (c->why[0])
        snprintf(what, sizeof what, "%s (%s)", c->did, c->why);
    else
        snprintf(what, sizeof what, "%s", c->did);
    for (int i = 0; i < 8; i++)
        if (s->did_count[i] == 0 || strcmp(s->did[i], what) == 0) {
            snprintf(s->did[i], sizeof s->did[i], "%s", what);
            s->did_count[i]++;
            return;
        }
}

static int by_collective(const void *a, const void *b)
{
    const struct call *x = *(const struct call *const *)a, *y = *(const struct call *const *)b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    return (x->number > y->number) - (x->number < y->number);
}

/* Each collective call (communicator, number): its ranks' entries apart. */
static void add_waits(const struct trace *t, struct routine_sum *sums, size_t *count)
{
    const struct call **collectives = malloc(t->call_count * sizeof *collectives + 1);
    size_t n = 0;
    if (collectives == NULL)
        return;
    for (size_t i = 0; i < t->call_count; i++)
        if (t->calls[i].number != NONE)
            collectives[n++] = &t->calls[i];
    qsort(collectives, n, sizeof *collectives, by_collective);
    for (size_t i = 0, j; i < n; i = j) {
        double first = collectives[i]->start, last = first;
        int last_rank = collectives[i]->rank;
        for (j = i; j < n && by_collective(&collectives[i], &collectives[j]) == 0; j++) {
            if (collectives[j]->start < first)
                first = collectives[j]->start;
            if (collectives[j]->start > last)
                last = collectives[j]->start, last_rank = collectives[j]->rank;
        }
        struct routine_sum *s = sum_of(sums, count, collectives[i]->routine);
        s->wait += last - first;
        if (last - first >= s->worst_wait) {
            s->worst_wait = last - first;
            s->worst_comm = collectives[i]->comm;
            s->worst_number = collectives[i]->number;
            s->worst_rank = last_rank;
        }
    }
    free(collectives);
}

static int64_t moved(const struct call *c)
{
    if (c->bytes != NONE)
        return c->bytes;
    return (c->sent != NONE ? c->sent : 0) + (c->received != NONE ? c->received : 0);
}

int write_summary(const struct trace *t, FILE *out)
{
    struct routine_sum *sums = calloc(t->call_count + 1, sizeof *sums);
    size_t count = 0;
    if (sums == NULL)
        return -1;
    for (size_t i = 0; i < t->call_count; i++) {
        const struct call *c = &t->calls[i];
        struct routine_sum *s = sum_of(sums, &count, c->routine);
        s->calls++;
        s->bytes += moved(c);
        s->time += c->duration;
        count_did(s, c);
    }
    add_waits(t, sums, &count);

    fprintf(out, "# Trace of job %s\n\n%d ranks; %s\n\n", t->files[0].job, t->procs, t->mpi);
    for (int r = 0; r < t->procs; r++)
        if (!t->files[r].whole)
            fprintf(out, "**Rank %d's trace is cut**: it did not reach MPI_Finalize (%" PRId64
                         " calls read; the rest of its records were lost).\n\n",
                    r, t->files[r].calls);
    fprintf(out, "## Per routine\n\n| routine | calls | bytes | time (s) | mean (µs) | "
                 "wait of the first rank in (s) | worst wait | what the layer did |\n"
                 "|---|---:|---:|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < count; i++) {
        const struct routine_sum *s = &sums[i];
        fprintf(out, "| %s | %" PRId64 " | %" PRId64 " | %.6f | %.2f | ", s->routine, s->calls,
                s->bytes, s->time, s->calls ? 1e6 * s->time / (double)s->calls : 0.0);
        if (s->worst_number > 0)
            fprintf(out, "%.6f | %.6f s, call %" PRId64 " on %016" PRIx64
                         ", rank %d in last | ",
                    s->wait, s->worst_wait, s->worst_number, s->worst_comm, s->worst_rank);
        else
            fprintf(out, "- | - | ");
        for (int d = 0; d < 8 && s->did_count[d]; d++)
            fprintf(out, "%s%s %" PRId64, d ? ", " : "", s->did[d], s->did_count[d]);
        fprintf(out, " |\n");
    }
    fprintf(out, "\n## Per rank\n\n| rank | host | calls | time in MPI (s) | pvar lines | "
                 "event lines | lost records | whole |\n|---:|---|---:|---:|---:|---:|---:|---|\n");
    size_t next = 0; /* the calls are in rank order (read.c) */
    for (int r = 0; r < t->procs; r++) {
        double time = 0;
        for (; next < t->call_count && t->calls[next].rank == r; next++)
            time += t->calls[next].duration;
        const struct rank_file *f = &t->files[r];
        fprintf(out, "| %d | %s | %" PRId64 " | %.6f | %" PRId64 " | %" PRId64 " | %" PRId64
                     " | %s |\n",
                r, f->host, f->calls, time, f->pvars, f->events, f->lost,
                f->whole ? "yes" : "no (cut)");
    }
    int64_t pvars = 0, events = 0;
    for (int r = 0; r < t->procs; r++)
        pvars += t->files[r].pvars, events += t->files[r].events;
    fprintf(out, "\nMPI_T: %" PRId64 " performance variable lines, %" PRId64 " event lines%s.\n",
            pvars, events, pvars + events == 0 ? " (none: the MPI exported none that changed)" : "");
    free(sums);
    return ferror(out) ? -1 : 0;
}
