/* scaleguard-trace: a trace directory (SCALEGUARD_TRACE=DIR; trace/FORMAT.md)
 * to its summary (PREFIX.md), message graph (PREFIX.dot), page
 * (PREFIX.html) and, with --json, its model (PREFIX.json), with --otf2 an
 * OTF2 archive (otf2.c); or a rank's file to its text form (--text). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "model.h"
#include "safe_file.h"

static void usage(FILE *out)
{
    fputs("usage: scaleguard-trace [--output PREFIX] [--json] [--otf2 ARCHIVE] [--strict] DIR\n"
          "       scaleguard-trace --text FILE\n"
          "       scaleguard-trace --help | --version\n"
          "Reads the trace directory DIR (rank-N.sgtrace, written with SCALEGUARD_TRACE=DIR)\n"
          "and writes PREFIX.md (summary), PREFIX.dot (message graph), PREFIX.html (a\n"
          "timeline, a communication matrix, the graph up to 32 ranks and the calls, to\n"
          "filter in a browser) and with --json PREFIX.json;\n"
          "PREFIX is DIR/trace unless given (--out is the same as --output). --otf2 also\n"
          "writes the run as an OTF2 archive (Vampir, Scalasca, otf2-print) in ARCHIVE, a\n"
          "directory it makes (it must not exist). A rank whose file lacks its end (the\n"
          "job was killed) is a warning, an error with --strict.\n"
          "--text prints the text form of one rank's file (DIR/rank-N.sgtrace;\n"
          "trace/FORMAT.md).\n"
          "Exit status: 0 written, 1 a trace that cannot be read or an output that cannot\n"
          "be written, 2 usage error.\n",
          out);
}

/* A usage error: what is wrong, and where --help is. Exit status 2. */
static int bad_usage(const char *what, const char *argument)
{
    fprintf(stderr, "scaleguard-trace: %s%s (see --help)\n", what, argument);
    return 2;
}

/* Write PREFIX + suffix with `write`. Returns 0, or -1 (told). */
static int output(const char *prefix, const char *suffix, char *path, size_t size,
                  int (*write)(const struct trace *, const struct graph *, const char *, FILE *),
                  const struct trace *t, const struct graph *g, const char *dot_path)
{
    if (snprintf(path, size, "%s%s", prefix, suffix) >= (int)size) {
        fprintf(stderr, "scaleguard-trace: %s%s: too long a path\n", prefix, suffix);
        return -1;
    }
    /* made safely (files/safe_file.h): an output of an earlier run is
     * replaced, anything else there (a link, another user's file) is not */
    char name[256], why[256];
    struct sg_safe_file file;
    int dir = sg_safe_parent(path, name, sizeof name, why, sizeof why);
    if (dir < 0 || sg_safe_begin(dir, name, 0600, &file, why, sizeof why) != 0) {
        fprintf(stderr, "scaleguard-trace: cannot write %s: %s\n", path, why);
        if (dir >= 0)
            close(dir);
        return -1;
    }
    FILE *out = fdopen(file.fd, "w");
    int failed = out == NULL || write(t, g, dot_path, out) != 0;
    if (out != NULL && fclose(out) != 0)
        failed = 1;
    else if (out == NULL)
        close(file.fd);
    file.fd = -1;
    if (failed) {
        fprintf(stderr, "scaleguard-trace: writing %s failed\n", path);
        sg_safe_abandon(&file, 0);
    } else if (sg_safe_commit(&file, why, sizeof why) != 0) {
        fprintf(stderr, "scaleguard-trace: cannot write %s: %s\n", path, why);
        failed = 1;
    }
    close(dir);
    return failed ? -1 : 0;
}

static int summary(const struct trace *t, const struct graph *g, const char *dot, FILE *out)
{
    (void)g, (void)dot;
    return write_summary(t, out);
}

static int dot(const struct trace *t, const struct graph *g, const char *dot_path, FILE *out)
{
    (void)dot_path;
    return write_dot(t, g, out);
}

static int json(const struct trace *t, const struct graph *g, const char *dot_path, FILE *out)
{
    (void)dot_path;
    return write_json(t, g, out);
}

static const char *print_line(void *arg, long number, char *text, size_t length)
{
    (void)number;
    text[length] = '\n';
    return fwrite(text, 1, length + 1, arg) == length + 1 ? NULL : "cannot write it out";
}

/* --text FILE: its lines on stdout. Exit status 0 (a file cut short:
 * warned), 1 for what is not a trace. */
static int print_text(const char *path)
{
    struct sg_decode_problem problem;
    enum sg_decoded decoded = sg_trace_decode(path, print_line, stdout, &problem);
    if (decoded == SG_DECODED_ERROR) {
        if (problem.line > 0)
            fprintf(stderr, "scaleguard-trace: %s:%ld: %s\n", path, problem.line, problem.why);
        else
            fprintf(stderr, "scaleguard-trace: %s: %s\n", path, problem.why);
        return 1;
    }
    if (decoded == SG_DECODED_CUT)
        fprintf(stderr, "scaleguard-trace: %s: warning: the file ends inside a record (its "
                        "job was killed as it wrote)\n", path);
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--text") == 0)
        return print_text(argv[2]);
    const char *prefix = NULL, *dir = NULL, *otf2 = NULL;
    int with_json = 0, strict = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--output") == 0 || strcmp(argv[i], "--out") == 0) {
            if (i + 1 == argc)
                return bad_usage(argv[i], " needs a value");
            prefix = argv[++i];
        } else if (strcmp(argv[i], "--otf2") == 0) {
            if (i + 1 == argc)
                return bad_usage(argv[i], " needs a value");
            otf2 = argv[++i];
#ifndef SCALEGUARD_OTF2
            return bad_usage("--otf2: this scaleguard-trace was built without libotf2 "
                             "(Debian: libotf2-trace-dev)", "");
#endif
        } else if (strcmp(argv[i], "--json") == 0)
            with_json = 1;
        else if (strcmp(argv[i], "--strict") == 0)
            strict = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            puts("scaleguard-trace " SCALEGUARD_VERSION);
            return 0;
        } else if (strcmp(argv[i], "--text") == 0)
            return bad_usage("--text takes one FILE and nothing else", "");
        else if (argv[i][0] == '-')
            return bad_usage("unknown option ", argv[i]);
        else if (dir == NULL)
            dir = argv[i];
        else
            return bad_usage("more than one DIR: ", argv[i]);
    }
    if (dir == NULL)
        return bad_usage("no trace directory DIR given", "");
    char default_prefix[4096], dot_path[4200], path[4200];
    if (prefix == NULL) {
        snprintf(default_prefix, sizeof default_prefix, "%s/trace", dir);
        prefix = default_prefix;
    }
    struct trace t;
    if (trace_read(dir, strict, &t) != 0) {
        trace_free(&t);
        return 1;
    }
#ifdef SCALEGUARD_OTF2
    /* first: an archive refused (ARCHIVE exists) leaves no other output */
    if (otf2 != NULL && write_otf2(&t, otf2) != 0) {
        trace_free(&t);
        return 1;
    }
    if (otf2 != NULL)
        printf("scaleguard-trace: OTF2 archive %s: %d locations, %zu calls\n", otf2, t.procs,
               t.call_count);
#endif
    struct graph *g = graph_build(&t);
    int failed = g == NULL ||
                 output(prefix, ".md", path, sizeof path, summary, &t, g, NULL) != 0 ||
                 output(prefix, ".dot", dot_path, sizeof dot_path, dot, &t, g, NULL) != 0 ||
                 output(prefix, ".html", path, sizeof path, write_page, &t, g, dot_path) != 0 ||
                 (with_json && output(prefix, ".json", path, sizeof path, json, &t, g, NULL) != 0);
    if (!failed)
        printf("scaleguard-trace: %d ranks, %zu calls, %zu edges: %s.md, .dot, .html%s\n",
               t.procs, t.call_count, graph_edge_count(g), prefix, with_json ? ", .json" : "");
    graph_free(g);
    trace_free(&t);
    return failed ? 1 : 0;
}
