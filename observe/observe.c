#include "observe.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "collective.h" /* SG_THREAD_LOCAL */
#include "comm_identity.h"
#include "trace.h"

atomic_int sg_observing;

/* The call this thread is in, as its observers see it. A call made inside
 * an observed one (from a user's reduction op, say) is not observed apart. */
static SG_THREAD_LOCAL struct {
    int depth, observers;
    struct sg_observed_call call;
    struct sg_comm_identity *identity;
    uint64_t number, index;
    uint64_t start; /* ticks (trace/ticks.h) */
    const char *did, *why;
    int subs, has_signature;
    uint64_t signature;
} current;

/* The time in seconds, as the watchdog reads it. */
static double now_seconds(void) { return 1e-9 * (double)sg_realtime_ns(); }

/* The job's name on rank 0: Slurm's job and step, or its host, process and
 * start time. */
static void name_job(char *job, size_t size)
{
    const char *id = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
    char host[64] = "?";
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    if (id && *id)
        snprintf(job, size, "slurm-%s.%s", id, step && *step ? step : "0");
    else
        snprintf(job, size, "%s-%d-%ld", host, (int)getpid(), (long)time(NULL));
}

void sg_observe_start(double watch_seconds, enum sg_watch_action action, const char *trace_dir)
{
    char job[128] = "";
    if (watch_seconds <= 0 && trace_dir == NULL)
        return;
    /* Each rank starts what it can; a failure (a directory refused, no
     * memory) is told once, by the lowest rank that had it, and then that
     * observer runs on no rank: the watchdog needs every rank's state, the
     * trace's reader every rank's file. Rank 0 starts the watchdog before
     * it sends the job's name (one Bcast), so that the others can check
     * they see its state (watch.h). */
    char watch_why[512] = "", trace_why[512] = "";
    int rank = 0, procs = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &procs);
    int watch_failed = 0;
    if (rank == 0) {
        name_job(job, sizeof job);
        watch_failed = watch_seconds > 0 &&
                       sg_watch_start(watch_seconds, action, job, watch_why, sizeof watch_why) != 0;
    }
    if (PMPI_Bcast(job, (int)sizeof job, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        if (rank == 0 && watch_seconds > 0 && !watch_failed)
            sg_watch_discard();
        return;
    }
    /* before the program's first duplicate of it, whose id follows from it */
    sg_comm_identity(MPI_COMM_WORLD);
    if (rank != 0)
        watch_failed = watch_seconds > 0 &&
                       sg_watch_start(watch_seconds, action, job, watch_why, sizeof watch_why) != 0;
    int trace_failed = trace_dir != NULL &&
                       sg_trace_start(trace_dir, trace_why, sizeof trace_why) != 0;
    int mine[2] = {watch_failed ? rank : procs, trace_failed ? rank : procs}, first[2];
    if (PMPI_Allreduce(mine, first, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        first[0] = first[1] = -1; /* not known alike: neither runs */
    if (first[0] == rank)
        fprintf(stderr, "scaleguard: watchdog: rank %d: %s; no rank is watched\n", rank,
                watch_why);
    if (first[1] == rank)
        fprintf(stderr, "scaleguard: trace: rank %d: %s; no rank is traced\n", rank, trace_why);
    int observers = 0;
    if (watch_seconds > 0 && !watch_failed && first[0] != procs)
        sg_watch_discard();
    else if (watch_seconds > 0 && first[0] == procs && sg_watch_run() == 0)
        observers |= SG_OBSERVE_WATCHDOG;
    if (trace_dir != NULL && !trace_failed && first[1] != procs)
        sg_trace_discard();
    else if (trace_dir != NULL && first[1] == procs) {
        sg_trace_begin(job);
        observers |= SG_OBSERVE_TRACE;
    }
    atomic_store(&sg_observing, observers);
}

void sg_observe_enter(const struct sg_observed_call *call)
{
    int observers = atomic_load_explicit(&sg_observing, memory_order_relaxed);
    if (observers == 0 || current.depth++ > 0)
        return;
    current.observers = observers;
    current.call = *call;
    current.identity = sg_comm_identity(call->comm);
    current.number =
        call->kind == SG_WATCH_COLLECTIVE ? sg_comm_identity_next_call(current.identity) : 0;
    current.did = call->collective != NULL ? "plain" : NULL;
    current.why = NULL;
    current.subs = current.has_signature = 0;
    if ((observers & SG_OBSERVE_WATCHDOG) && call->kind != SG_WATCH_OUTSIDE)
        sg_watch_enter(call, current.identity, current.number, now_seconds());
    if (observers & SG_OBSERVE_TRACE) {
        current.index = sg_trace_next_index();
        current.start = sg_ticks();
    }
}

int sg_observe_leave(int err)
{
    if (current.depth == 0 || --current.depth > 0)
        return err;
    if (current.observers & SG_OBSERVE_TRACE)
        sg_trace_call(&(struct sg_trace_call){&current.call, current.identity, current.number,
                                              current.index, current.start, sg_ticks(),
                                              current.did, current.why, current.subs,
                                              current.has_signature, current.signature});
    if ((current.observers & SG_OBSERVE_WATCHDOG) && current.call.kind != SG_WATCH_OUTSIDE)
        sg_watch_leave(now_seconds());
    return err;
}

void sg_observe_left_alone(const char *why)
{
    if (current.depth > 0) {
        current.did = "left";
        current.why = why;
    }
}

void sg_observe_workaround(const char *name)
{
    if (current.depth == 0)
        return;
    current.did = name;
    current.subs = 0;
    if (current.observers & SG_OBSERVE_WATCHDOG)
        sg_watch_workaround(name);
}

void sg_observe_sub_call(const char *routine)
{
    if (current.depth == 0)
        return;
    current.subs++;
    if (current.observers & SG_OBSERVE_WATCHDOG)
        sg_watch_sub_call(routine);
    if (current.observers & SG_OBSERVE_TRACE)
        sg_trace_sub_call(current.index, current.subs, routine, sg_ticks());
}

void sg_observe_signature(uint64_t hash)
{
    if (current.depth > 0) {
        current.has_signature = 1;
        current.signature = hash;
    }
}

void sg_observe_completing(int count, const MPI_Request *requests)
{
    if (current.depth > 0 && (current.observers & SG_OBSERVE_TRACE))
        sg_trace_completing(count, requests);
}

void sg_observe_completed(int completed, const int *indices, const MPI_Status *statuses)
{
    if (current.depth > 0 && (current.observers & SG_OBSERVE_TRACE))
        sg_trace_completed(completed, indices, statuses, sg_ticks());
}

void sg_observe_finalizing(void)
{
    int observers = atomic_load(&sg_observing);
    if (observers & SG_OBSERVE_WATCHDOG)
        sg_watch_finalizing();
    if (observers & SG_OBSERVE_TRACE) {
        atomic_store(&sg_observing, observers & ~SG_OBSERVE_TRACE);
        sg_trace_stop();
    }
}

void sg_observe_stop(void)
{
    atomic_store(&sg_observing, 0);
    sg_watch_stop();
}
