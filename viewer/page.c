/* The page (one self-contained HTML file: page.html's script draws the
 * timeline and the communication matrix from the calls, given as compact
 * JSON; for small jobs the message graph as SVG drawn by Graphviz's dot)
 * and the JSON of --json. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model.h"
#include "page_html.h" /* page_html[]: viewer/page.html, embedded at build time */

/* Past this many ranks the page has no message graph (a drawing of nodes
 * and edges cannot be read): the timeline and the matrix show the job. */
#define GRAPH_MOST_RANKS 32

void put_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&') /* nothing ends the script */
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void write_calls_json(const struct trace *t, FILE *out)
{
    fputc('[', out);
    for (size_t i = 0; i < t->call_count; i++) {
        const struct call *c = &t->calls[i];
        fprintf(out, "%s{\"rank\":%d,\"index\":%" PRId64 ",\"routine\":\"%s\",\"comm\":\"%016" PRIx64
                     "\",\"t\":%.6f,\"d\":%.6f,",
                i ? ",\n" : "", c->rank, c->index, c->routine, c->comm,
                c->start - t->first_start, c->duration);
        const struct {
            const char *key;
            int64_t value;
        } fields[] = {{"n", c->number},     {"root", c->root},      {"peer", c->peer},
                      {"tag", c->tag},      {"source", c->source},  {"count", c->count},
                      {"bytes", c->bytes},  {"sent", c->sent},      {"received", c->received},
                      {"req", c->request}};
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
            if (fields[k].value != NONE)
                fprintf(out, "\"%s\":%" PRId64 ",", fields[k].key, fields[k].value);
        if (c->signature[0])
            fprintf(out, "\"sig\":\"%s\",", c->signature);
        fputs("\"did\":", out);
        put_json_string(out, c->did);
        fputs(",\"why\":", out);
        put_json_string(out, c->why);
        fputs(",\"fields\":", out);
        put_json_string(out, c->fields);
        fputs(",\"subs\":[", out);
        for (size_t k = 0; k < c->sub_count; k++) {
            const struct sub *s = &t->subs[c->first_sub + k];
            fprintf(out, "%s{\"j\":%" PRId64 ",\"routine\":\"%s\",\"t\":%.6f,\"d\":%.6f}",
                    k ? "," : "", s->j, s->routine, s->start - t->first_start, s->duration);
        }
        fputs("]}", out);
    }
    fputc(']', out);
}

/* The communicators, a JSON array (the model's and the page's alike). */
static void write_comms_json(const struct trace *t, FILE *out)
{
    fputc('[', out);
    for (size_t i = 0; i < t->comm_count; i++) {
        fprintf(out, "%s{\"id\":\"%016" PRIx64 "\",\"size\":%d,\"members\":", i ? "," : "",
                t->comms[i].id, t->comms[i].size);
        put_json_string(out, t->comms[i].members);
        fputc('}', out);
    }
    fputc(']', out);
}

static void write_data(const struct trace *t, const struct graph *g, FILE *out)
{
    fputs("{\"job\":", out);
    put_json_string(out, t->files[0].job);
    fprintf(out, ",\"procs\":%d,\"mpi\":", t->procs);
    put_json_string(out, t->mpi);
    fprintf(out, ",\"first_start\":%.6f,\n\"ranks\":[", t->first_start);
    for (int r = 0; r < t->procs; r++) {
        const struct rank_file *f = &t->files[r];
        fprintf(out, "%s{\"rank\":%d,\"calls\":%" PRId64 ",\"whole\":%s,\"pvar_lines\":%" PRId64
                     ",\"event_lines\":%" PRId64 ",\"lost\":%" PRId64 "}",
                r ? "," : "", r, f->calls, f->whole ? "true" : "false", f->pvars, f->events,
                f->lost);
    }
    fputs("],\n\"comms\":", out);
    write_comms_json(t, out);
    fputs(",\n\"edges\":", out);
    write_edges_json(g, out);
    fputs(",\n\"calls\":", out);
    write_calls_json(t, out);
    fputs("}\n", out);
}

int write_json(const struct trace *t, const struct graph *g, FILE *out)
{
    write_data(t, g, out);
    return ferror(out) ? -1 : 0;
}

/* dot -Tsvg DOT_PATH's output, from its <svg> on (no XML prolog), into
 * `out`. Returns 0, or -1 (told). */
static int draw(const char *dot_path, FILE *out)
{
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0)
        return -1;
    pid_t child = fork();
    if (child == 0) {
        dup2(pipe_ends[1], STDOUT_FILENO);
        close(pipe_ends[0]);
        close(pipe_ends[1]);
        execlp("dot", "dot", "-Tsvg", dot_path, (char *)NULL);
        fprintf(stderr, "scaleguard-trace: cannot run Graphviz's dot (%s): install the Debian "
                        "package graphviz\n", strerror(errno));
        _exit(127);
    }
    close(pipe_ends[1]);
    FILE *svg = child > 0 ? fdopen(pipe_ends[0], "r") : NULL;
    if (svg == NULL) {
        close(pipe_ends[0]);
        return -1;
    }
    char *line = NULL;
    size_t capacity = 0;
    int started = 0;
    while (getline(&line, &capacity, svg) > 0) {
        char *at = started ? line : strstr(line, "<svg");
        if (at != NULL) {
            started = 1;
            fputs(at, out);
        }
    }
    free(line);
    fclose(svg);
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !started) {
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 127))
            fprintf(stderr, "scaleguard-trace: dot -Tsvg %s failed\n", dot_path);
        return -1;
    }
    return 0;
}

/* The page's names (routines, decisions, reasons): each call names them by
 * their place in this list; 0 is none (""). */
struct names {
    const char *names[256];
    int count;
};

static int name_of(struct names *n, const char *name)
{
    if (!name[0])
        return 0;
    for (int i = 1; i < n->count; i++)
        if (strcmp(n->names[i], name) == 0)
            return i;
    if (n->count == (int)(sizeof n->names / sizeof n->names[0]))
        return 0;
    n->names[n->count] = name;
    return n->count++;
}

static long long ns_since(const struct trace *t, double seconds)
{
    return llround((seconds - t->first_start) * 1e9);
}

/* The page's data, compact (a call is some 50 bytes; at 1,024 ranks the
 * page holds every call): a call is an array [index, routine, comm, t, d,
 * did, why, key, value, ...], its names by their place in "names", its
 * communicator by its place in "comms" plus one (0: none), times in
 * nanoseconds since the first call, the keys of its optional fields by
 * their place in "keys". The calls are in rank order, "ranks" counts
 * them; "sends" lists the routines whose peer is a destination. */
static void write_page_data(const struct trace *t, const struct graph *g, int with_graph,
                            FILE *out)
{
    static const char *const keys[] = {"n",     "root",     "peer", "tag", "source",
                                       "source_tag", "count", "bytes", "sent", "received",
                                       "subs",  "req",      "done", "done_source",
                                       "done_tag", "sig"};
    struct names names = {.names = {""}, .count = 1};
    fputs("{\"job\":", out);
    put_json_string(out, t->files[0].job);
    fprintf(out, ",\"procs\":%d,\"mpi\":", t->procs);
    put_json_string(out, t->mpi);
    fputs(",\n\"ranks\":[", out);
    for (int r = 0; r < t->procs; r++) {
        const struct rank_file *f = &t->files[r];
        fprintf(out, "%s{\"calls\":%" PRId64 ",\"whole\":%s}", r ? "," : "", f->calls,
                f->whole ? "true" : "false");
    }
    fputs("],\n\"comms\":", out);
    write_comms_json(t, out);
    fputs(",\n\"keys\":[", out);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        fprintf(out, "%s\"%s\"", k ? "," : "", keys[k]);
    fputs("],\n\"edges\":", out);
    if (with_graph)
        write_edges_json(g, out);
    else
        fputs("[]", out);
    fputs(",\n\"calls\":[", out);
    for (size_t i = 0; i < t->call_count; i++) {
        const struct call *c = &t->calls[i];
        size_t comm = 0;
        for (size_t k = 0; k < t->comm_count && c->comm; k++)
            if (t->comms[k].id == c->comm)
                comm = k + 1;
        fprintf(out, "%s[%" PRId64 ",%d,%zu,%lld,%lld,%d,%d", i ? ",\n" : "", c->index,
                name_of(&names, c->routine), comm, ns_since(t, c->start),
                llround(c->duration * 1e9), name_of(&names, c->did), name_of(&names, c->why));
        const int64_t fields[] = {c->number, c->root,  c->peer,  c->tag,      c->source,
                                  c->source_tag, c->count, c->bytes, c->sent, c->received,
                                  c->subs,   c->request,
                                  c->completed >= 0 ? ns_since(t, c->completed) : NONE,
                                  c->completed_source, c->completed_tag};
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
            if (fields[k] != NONE)
                fprintf(out, ",%zu,%" PRId64, k, fields[k]);
        if (c->signature[0])
            fprintf(out, ",%zu,\"%s\"", sizeof fields / sizeof fields[0], c->signature);
        fputc(']', out);
    }
    fputs("],\n\"subs\":[", out);
    for (size_t i = 0, n = 0; i < t->call_count; i++)
        for (size_t k = 0; k < t->calls[i].sub_count; k++) {
            const struct sub *s = &t->subs[t->calls[i].first_sub + k];
            fprintf(out, "%s[%zu,%" PRId64 ",%d,%lld,%lld]", n++ ? "," : "", i, s->j,
                    name_of(&names, s->routine), ns_since(t, s->start),
                    llround(s->duration * 1e9));
        }
    fputs("],\n\"names\":[", out);
    for (int i = 0; i < names.count; i++) {
        fputs(i ? "," : "", out);
        put_json_string(out, names.names[i]);
    }
    fputs("],\"sends\":[", out);
    for (int i = 1, n = 0; i < names.count; i++)
        if (routine_sends(names.names[i]))
            fprintf(out, "%s%d", n++ ? "," : "", i);
    fputs("]}\n", out);
}

int write_page(const struct trace *t, const struct graph *g, const char *dot_path, FILE *out)
{
    const char *svg_mark = strstr(page_html, "@@SVG@@");
    const char *data_mark = svg_mark ? strstr(svg_mark, "@@DATA@@") : NULL;
    if (data_mark == NULL)
        return -1;
    fwrite(page_html, 1, (size_t)(svg_mark - page_html), out);
    int with_graph = t->procs <= GRAPH_MOST_RANKS;
    if (with_graph && draw(dot_path, out) != 0)
        return -1;
    if (!with_graph)
        fprintf(out, "<p id=\"no-graph\">No graph past %d ranks (this job has %d): the timeline "
                     "and the matrix show it; the .dot beside this page has it for Graphviz.</p>",
                GRAPH_MOST_RANKS, t->procs);
    const char *between = svg_mark + strlen("@@SVG@@");
    fwrite(between, 1, (size_t)(data_mark - between), out);
    write_page_data(t, g, with_graph, out);
    fputs(data_mark + strlen("@@DATA@@"), out);
    return ferror(out) ? -1 : 0;
}
