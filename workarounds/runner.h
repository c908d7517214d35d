/* How a workaround runs its sub-calls.
 *
 * A blocking call runs each sub-call to completion, one after the other. A
 * non-blocking call (MPI_Igatherv, ...) starts them, in order, and keeps
 * their requests and whatever their arguments point to (counts arrays,
 * packed buffers): the layer hands the caller one request that completes
 * when all of them have, and releases the kept memory then (protect/).
 *
 * Where a sub-call takes another's result (W1-A's steps over a grid), the
 * workaround sets a fence between them (sg_runner_fence). A non-blocking
 * runner then queues every later sub-call, and the caller's request starts
 * them stage by stage, each once everything before its fence is done,
 * from the layer's MPI_Test / MPI_Wait: the I-call returns at once. A
 * queued sub-call runs on this call's own copy of its communicator
 * (MPI_Comm_idup, started in the call, so in the order of every other
 * collective on it), as it starts at a moment that differs between ranks
 * and other calls' sub-calls may use that communicator meanwhile. Every
 * member of a communicator must therefore queue its sub-calls there alike:
 * the fences of a workaround stand where every rank has them. Queued
 * sub-calls run on the layer's own communicators only, whose copies carry
 * no attribute of the application's. Where the MPI cannot run a collective
 * beside an idup of its communicator (tuning.h), a fence instead waits for
 * what was started before it, inside the I-call. */
#ifndef SCALEGUARD_RUNNER_H
#define SCALEGUARD_RUNNER_H

#include "collective.h"

struct sg_kept {
    void (*release)(void *);
    void *memory;
};

/* Fills in what a sub-call reads from memory that only its start may
 * write (a packed input that reuses an earlier stage's buffer). Returns an
 * MPI error code. */
typedef int sg_prepare(void *state, struct sg_call *sub);

struct sg_queued {
    struct sg_call call;
    int copy;        /* its communicator's copy: an index into `copies` */
    int stage_start; /* a fence stands before it */
    sg_prepare *prepare; /* NULL, or called with `state` just before it starts */
    void *state;
};

struct sg_copy {
    MPI_Comm parent;
    MPI_Comm *handle; /* where MPI_Comm_idup puts the copy (not moved: MPI may write it late) */
};

/* Whether routine `r` may take a call of `n` basic elements of `s` bytes
 * (sg_in_basic_elements) over `procs` processes without meeting a bound of
 * the configuration: the same answer on ranks whose types differ but whose
 * signatures match. A
 * workaround asks before it moves part of a call onto another routine
 * (W1-A: Allgather onto Allgatherv, Allreduce onto Reduce_scatter and
 * Allgatherv, ...): that routine may be broken at that size too. */
typedef int sg_routine_allows(enum sg_routine r, uint64_t s, uint64_t n, uint64_t procs);

struct sg_runner;

/* Whether `routine` (in the blocking or non-blocking form of `like`) may
 * take a sub-call of n elements of `type` over `procs` processes: asks
 * runner->allows (yes where it is NULL; no for a type it cannot measure).
 * The same on every rank when its arguments are. */
int sg_runner_allows(const struct sg_runner *runner, enum sg_routine routine,
                     enum sg_routine like, MPI_Datatype type, int64_t n, int procs);

struct sg_runner {
    const struct sg_entry_points *mpi;
    sg_routine_allows *allows; /* NULL: every routine takes every call */
    int nonblocking;       /* start the sub-calls and collect their requests */
    /* blocking: the workaround may start sub-calls that do not depend on
     * each other at once, in the routine's I-form, and wait for them
     * together (the configuration lets the I-form take them) */
    int together;
    int looks_only; /* W1-A: run nothing, only look its communicators up (sg_w1a_made) */
    MPI_Request *requests; /* nonblocking: the started sub-calls */
    int count, capacity;
    struct sg_kept *kept;  /* nonblocking: released when every request is done */
    int kept_count, kept_capacity;
    /* nonblocking, after a fence: the sub-calls not yet started, the
     * number started, and the communicators' copies they run on */
    int fenced;
    int fence_error; /* a fence that waited (tuning.h) met this error */
    struct sg_queued *queued;
    int queued_count, queued_capacity, started;
    struct sg_copy *copies;
    int copy_count, copy_capacity;
};

/* A blocking runner over `mpi`; a non-blocking one with `nonblocking` set.
 * Neither asks before it moves a call onto another routine (allows). */
#define SG_RUNNER(table, is_nonblocking) \
    ((struct sg_runner){.mpi = (table), .nonblocking = (is_nonblocking)})

/* Run one sub-call: blocking, to completion (an I-form is started and
 * waited for); non-blocking, started in its I-form (sub->routine must be
 * one) with the request kept, or queued after a fence. Returns an MPI
 * error code. */
int sg_run(struct sg_runner *runner, struct sg_call *sub);

/* The same with `prepare(state, sub)` called just before the sub-call
 * starts: at once, or when its stage starts. */
int sg_run_prepared(struct sg_runner *runner, struct sg_call *sub, sg_prepare *prepare,
                    void *state);

/* The sub-calls after this point take the results of those before it. A
 * blocking runner has finished those already: nothing to do. An error of
 * a fence that waits is what the next sg_run returns. */
void sg_runner_fence(struct sg_runner *runner);

/* Whether what is started before a fence is done when the fence returns:
 * in a blocking runner, and in a non-blocking one whose fence waits inside
 * the I-call (tuning.h). A step before a fence may then run in its
 * blocking form. */
int sg_runner_fence_waits(const struct sg_runner *runner);

/* A started sub-call's request: waited for at once by a blocking runner,
 * kept by a non-blocking one (what sg_run does after starting a call). */
int sg_runner_add(struct sg_runner *runner, MPI_Request request);

/* Keep `memory` until the sub-calls are done, then `release(memory)`. In a
 * blocking runner (or when keeping fails, which returns MPI_ERR_NO_MEM and
 * releases the memory after waiting for what was started) it is released
 * at once. */
int sg_keep(struct sg_runner *runner, void (*release)(void *), void *memory);

/* Wait for every started sub-call, start and wait for the queued ones,
 * and release everything kept (the error path, and the runner's end when
 * the caller asked for no request or waits for it). */
int sg_runner_finish(struct sg_runner *runner);

/* Whether every sub-call is done (releasing what was kept when so):
 * MPI_Testall over the requests, and where all are done and some are
 * queued, the next stage started. `*done` is set. */
int sg_runner_test(struct sg_runner *runner, int *done);

#endif
