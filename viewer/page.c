/* The page (one self-contained HTML file: the graph as SVG drawn by
 * Graphviz's dot, the calls as JSON, page.html's script to filter them)
 * and the JSON of --json. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model.h"
#include "page_html.h" /* page_html[]: viewer/page.html, embedded at build time */

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
    fputs("],\n\"comms\":[", out);
    for (size_t i = 0; i < t->comm_count; i++) {
        fprintf(out, "%s{\"id\":\"%016" PRIx64 "\",\"size\":%d,\"members\":", i ? "," : "",
                t->comms[i].id, t->comms[i].size);
        put_json_string(out, t->comms[i].members);
        fputc('}', out);
    }
    fputs("],\n\"edges\":", out);
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

int write_page(const struct trace *t, const struct graph *g, const char *dot_path, FILE *out)
{
    const char *svg_mark = strstr(page_html, "@@SVG@@");
    const char *data_mark = svg_mark ? strstr(svg_mark, "@@DATA@@") : NULL;
    if (data_mark == NULL)
        return -1;
    fwrite(page_html, 1, (size_t)(svg_mark - page_html), out);
    if (draw(dot_path, out) != 0)
        return -1;
    const char *between = svg_mark + strlen("@@SVG@@");
    fwrite(between, 1, (size_t)(data_mark - between), out);
    write_data(t, g, out);
    fputs(data_mark + strlen("@@DATA@@"), out);
    return ferror(out) ? -1 : 0;
}
