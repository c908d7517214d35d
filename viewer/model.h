/* scaleguard-trace's model of a trace directory (trace/FORMAT.md): every
 * rank's calls, communicators and the rest, as read (read.c). */
#ifndef SCALEGUARD_VIEWER_MODEL_H
#define SCALEGUARD_VIEWER_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NONE INT64_MIN /* a field the record does not have */

struct call {
    int rank;
    int64_t index;
    char routine[40];
    uint64_t comm;
    double start, duration;
    /* exactly, for the OTF2 archive: start (ns since the epoch) and duration
     * (ns); a nonblocking call's completion (`completed` below) in ns, a
     * receive's bytes from its status, whether cancelled */
    int64_t start_ns, duration_ns, completed_ns, completed_bytes;
    int cancelled;
    int64_t number, root, peer, tag, source, source_tag, count, bytes, sent, received, subs,
        request;
    char signature[17], did[16], why[32];
    char *fields; /* the record's text after its routine, for the page */
    /* a non-blocking call's completion (its request's `done` line): time
     * (-1: none seen), and a receive's status source and tag (NONE: none) */
    double completed;
    int64_t completed_source, completed_tag;
    size_t first_sub, sub_count; /* its sub-calls: trace.subs[first_sub...] */
};

struct sub {
    int rank;
    int64_t index, j;
    char routine[40];
    double start, duration;
};

struct comm {
    uint64_t id, parent; /* parent 0: none given */
    int size;
    char members[1024]; /* as written ("0-3,8"; "-": too many to list) */
};

struct rank_file {
    char path[4096];
    char job[128];
    char host[64];  /* where the rank ran (its header's host) */
    int size;
    int64_t calls;  /* `call` lines read */
    int whole;      /* ends with its `end` line */
    int64_t pvars, events, lost;
};

struct trace {
    int procs;
    char mpi[256];
    struct rank_file *files;
    struct call *calls;
    size_t call_count, call_capacity;
    struct sub *subs;
    size_t sub_count, sub_capacity;
    struct comm *comms;
    size_t comm_count, comm_capacity;
    double first_start;
};

/* Reads DIR. Returns 0, or -1 after telling what is wrong on stderr
 * (file:line where there is one); a rank file without its end is told as
 * a warning, and an error where `strict`. */
int trace_read(const char *dir, int strict, struct trace *trace);
void trace_free(struct trace *trace);

/* Whether a routine sends point to point (its peer= is the destination). */
int routine_sends(const char *routine);
/* The collective `routine` is a form of, named as its blocking int-count
 * form without MPI_ ("Gather" for MPI_Gather, MPI_Igather, MPI_Gather_c,
 * MPI_Igather_c, MPI_Gather_init, MPI_Gather_init_c), in `family` (at most
 * `size` bytes with its NUL). Returns whether it is a persistent form's
 * `_init`. */
int routine_family(const char *routine, char *family, size_t size);

/* The outputs (summary.c, graph.c, page.c). Each returns 0 or -1 (told). */
int write_summary(const struct trace *trace, FILE *out);
struct graph;
struct graph *graph_build(const struct trace *trace);
void graph_free(struct graph *graph);
size_t graph_edge_count(const struct graph *graph);
int write_dot(const struct trace *trace, const struct graph *graph, FILE *out);
int write_page(const struct trace *trace, const struct graph *graph, const char *dot_path,
               FILE *out);
int write_json(const struct trace *trace, const struct graph *graph, FILE *out);

/* The OTF2 archive (otf2.c, where the build found libotf2): the directory
 * `dir`, made new. Returns 0 or -1 (told; nothing left behind). */
int write_otf2(const struct trace *trace, const char *dir);

/* The edges as a JSON array: id, ranks, communicator, routine, and the
 * indices (in trace->calls) of the calls each stands for. */
void write_edges_json(const struct graph *graph, FILE *out);

/* A string as a JSON string literal. */
void put_json_string(FILE *out, const char *s);

#endif
