/* The per-call trace (SCALEGUARD_TRACE=DIR): each rank appends a binary
 * record of every call the layer observes (observe.h) to a buffer in
 * memory, written as it is to DIR/rank-N.sgtrace (FORMAT.md) when it fills
 * and at MPI_Finalize; scaleguard-trace makes the text. Calling it costs a
 * few stores. Times are ticks (ticks.h). Thread-safe: under
 * MPI_THREAD_MULTIPLE a lock guards the buffer (at lower levels the
 * program's calls do not overlap). */
#ifndef SCALEGUARD_TRACE_H
#define SCALEGUARD_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "comm_identity.h"
#include "observed_call.h"
#include "ticks.h"

/* What the layer did to a call, and the times, as the observer resolved them. */
struct sg_trace_call {
    const struct sg_observed_call *call;
    struct sg_comm_identity *identity;
    uint64_t number; /* a collective's number on its communicator */
    uint64_t index;  /* this rank's call count (sg_trace_next_index) */
    uint64_t start, end; /* ticks */
    const char *did; /* "plain", "W1-B", "left"; NULL: not a protected call */
    const char *why; /* "left": a word for the reason */
    int subs;
    int has_signature;
    uint64_t signature; /* sg_observe_signature */
};

/* At MPI_Init, on every rank tracing (after the ranks agreed on the
 * setting): the buffer, the directory (made 0700 when missing) and the
 * rank's file (0600), made safely (files/safe_file.h). Returns 0, or -1
 * with what failed or was refused in `why` (nothing printed). Then every
 * rank either begins (all could start; `job` names the job in the header)
 * or discards (some could not: its file and the directory it made go). */
int sg_trace_start(const char *dir, char *why, size_t why_size);
void sg_trace_begin(const char *job);
void sg_trace_discard(void);

/* The number of the call entered now: 1, 2, ... */
uint64_t sg_trace_next_index(void);

/* A sub-call of the call `index` started (a workaround's j-th). */
void sg_trace_sub_call(uint64_t index, int j, const char *routine, uint64_t start);

/* Before a completion call: the requests it may complete; after it, which
 * did (observe.h). */
void sg_trace_completing(int count, const MPI_Request *requests);
void sg_trace_completed(int completed, const int *indices, const MPI_Status *statuses,
                        uint64_t now);

/* The call left: its record (a non-blocking call's request is kept until
 * completed). A Test that completed nothing leaves none. */
void sg_trace_call(const struct sg_trace_call *t);

/* At MPI_Finalize (before PMPI_Finalize): the buffer and the `end` line. */
void sg_trace_stop(void);

#endif
