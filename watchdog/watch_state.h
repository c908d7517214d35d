/* What one rank is doing, as the hang watchdog sees it: the record each
 * rank's helper thread writes to its state file, and every rank's reads
 * back to diagnose a hang. Plain C, no MPI (unit-tested under the
 * sanitizers). Ranks are world ranks throughout. */
#ifndef SCALEGUARD_WATCH_STATE_H
#define SCALEGUARD_WATCH_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "watch_kind.h"

struct sg_watch_view {
    int rank, pid;
    char host[64];
    enum sg_watch_kind kind;
    char routine[32];
    char sub[96];       /* a workaround's sub-call: "W1-B, sub-call 3: MPI_Gatherv" */
    uint64_t comm;      /* the communicator's id (its members); 0: none */
    int comm_size;
    char members[1024]; /* world ranks as ranges ("0-3,8"); "" when cut */
    uint64_t call;      /* the collective's number on its communicator, from 1 */
    int root;           /* world rank, or SG_WATCH_NONE */
    int dest, dest_tag;     /* the send side, or SG_WATCH_NONE */
    int source, source_tag; /* the receive side: a rank, SG_WATCH_ANY or SG_WATCH_NONE */
    int held;           /* an MPI_Send the watchdog holds until received (watch.h) */
    /* the collective it left last: its communicator's id, number, routine */
    uint64_t last_comm, last_call;
    char last_routine[32];
    double since;       /* when the state began: seconds since the epoch */
    uint64_t serial;    /* one more for every call entered */
};

/* Whether the kind is a call that blocks the rank (what a hang is in). */
int sg_watch_kind_blocks(enum sg_watch_kind kind);

/* The state file's text ("key value" lines). Returns the length written
 * (snprintf's: >= size when cut). */
int sg_watch_format(const struct sg_watch_view *v, char *out, size_t size);

/* Parse a state file's text. Returns 0, or -1 with a message in `error`
 * naming the line. */
int sg_watch_parse(const char *text, struct sg_watch_view *v, char *error, size_t error_size);

/* A cycle of waits reachable from `start`: its ranks in cycle[] (room for
 * procs), their number returned (0: none, or no memory). */
int sg_watch_cycle(const struct sg_watch_view *views, int procs, int start, int *cycle);

/* The report of a hang seen by `reporter` (views[reporter]), which has
 * been in its call past `limit` seconds at `now`: what every rank is
 * doing, then the cause where the states show one. `views` has one entry
 * per world rank. Returns the length written (as snprintf). */
int sg_watch_diagnose(const struct sg_watch_view *views, int procs, int reporter, double now,
                      double limit, char *out, size_t size);

#endif
