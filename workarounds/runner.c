/* The sub-call runner: see runner.h. */
#include "runner.h"

#include "tuning.h"
#include "observe.h"

#include <stdlib.h>

static int grow(void **array, int *capacity, int needed, size_t size)
{
    if (needed <= *capacity)
        return 1;
    int wanted = *capacity ? 2 * *capacity : 8;
    while (wanted < needed)
        wanted *= 2;
    void *bigger = realloc(*array, (size_t)wanted * size);
    if (bigger == NULL)
        return 0;
    *array = bigger;
    *capacity = wanted;
    return 1;
}

/* Request by request: GCC 12 warns about MPICH's MPI_STATUSES_IGNORE. */
static int wait_all(struct sg_runner *runner)
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < runner->count; i++) {
        int e = PMPI_Wait(&runner->requests[i], MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS)
            err = e;
    }
    return err;
}

static void release_kept(struct sg_runner *runner)
{
    for (int i = 0; i < runner->kept_count; i++)
        runner->kept[i].release(runner->kept[i].memory);
    for (int i = 0; i < runner->copy_count; i++) { /* every request is done: each copy made */
        if (*runner->copies[i].handle != MPI_COMM_NULL)
            PMPI_Comm_free(runner->copies[i].handle);
        free(runner->copies[i].handle);
    }
    free(runner->kept);
    free(runner->requests);
    free(runner->queued);
    free(runner->copies);
    runner->kept = NULL;
    runner->requests = NULL;
    runner->queued = NULL;
    runner->copies = NULL;
    runner->kept_count = runner->kept_capacity = runner->count = runner->capacity = 0;
    runner->queued_count = runner->queued_capacity = runner->started = runner->fenced = 0;
    runner->copy_count = runner->copy_capacity = runner->fence_error = 0;
}

/* The copy of `comm` the queued sub-calls run on, started now (an index
 * into runner->copies), or -1 with *err set. */
static int copy_of(struct sg_runner *runner, MPI_Comm comm, int *err)
{
    for (int i = 0; i < runner->copy_count; i++)
        if (runner->copies[i].parent == comm)
            return i;
    MPI_Comm *handle = malloc(sizeof *handle);
    if (handle == NULL || !grow((void **)&runner->copies, &runner->copy_capacity,
                                runner->copy_count + 1, sizeof *runner->copies)) {
        free(handle);
        *err = MPI_ERR_NO_MEM;
        return -1;
    }
    *handle = MPI_COMM_NULL;
    MPI_Request request;
    if ((*err = PMPI_Comm_idup(comm, handle, &request)) != MPI_SUCCESS) {
        free(handle);
        return -1;
    }
    runner->copies[runner->copy_count] = (struct sg_copy){comm, handle};
    *err = sg_runner_add(runner, request);
    return runner->copy_count++;
}

static int queue(struct sg_runner *runner, const struct sg_call *sub, sg_prepare *prepare,
                 void *state)
{
    int err = MPI_SUCCESS, copy = copy_of(runner, sub->comm, &err);
    if (err != MPI_SUCCESS)
        return err;
    if (!grow((void **)&runner->queued, &runner->queued_capacity, runner->queued_count + 1,
              sizeof *runner->queued))
        return MPI_ERR_NO_MEM;
    runner->queued[runner->queued_count++] =
        (struct sg_queued){*sub, copy, runner->fenced, prepare, state};
    runner->fenced = 0;
    return MPI_SUCCESS;
}

static int start(struct sg_runner *runner, struct sg_call *sub)
{
    MPI_Request request = MPI_REQUEST_NULL;
    if (sg_is_nonblocking(sub->routine))
        sub->request = &request;
    sg_observe_sub_call(sg_routines[sub->routine].name);
    int err = sg_call_invoke(runner->mpi, sub);
    if (err != MPI_SUCCESS || request == MPI_REQUEST_NULL)
        return err;
    return sg_runner_add(runner, request);
}

/* Start the next stage of queued sub-calls: everything before is done. */
static int start_stage(struct sg_runner *runner)
{
    runner->count = 0; /* every request is done (MPI_REQUEST_NULL) */
    int err = MPI_SUCCESS;
    do {
        struct sg_queued *q = &runner->queued[runner->started++];
        struct sg_call sub = q->call;
        sub.comm = *runner->copies[q->copy].handle;
        if (q->prepare != NULL)
            err = q->prepare(q->state, &sub);
        if (err == MPI_SUCCESS)
            err = start(runner, &sub);
    } while (err == MPI_SUCCESS && runner->started < runner->queued_count &&
             !runner->queued[runner->started].stage_start);
    return err;
}

static int any_queued(const struct sg_runner *runner)
{
    return runner->started < runner->queued_count;
}

int sg_run_prepared(struct sg_runner *runner, struct sg_call *sub, sg_prepare *prepare,
                    void *state)
{
    if (runner->fence_error != MPI_SUCCESS)
        return runner->fence_error;
    if (runner->queued_count > 0 || runner->fenced)
        return queue(runner, sub, prepare, state);
    int err = prepare != NULL ? prepare(state, sub) : MPI_SUCCESS;
    return err != MPI_SUCCESS ? err : start(runner, sub);
}

int sg_run(struct sg_runner *runner, struct sg_call *sub)
{
    return sg_run_prepared(runner, sub, NULL, NULL);
}

int sg_runner_fence_waits(const struct sg_runner *runner)
{
    return !runner->nonblocking || !sg_tuning()->idup_beside_collectives;
}

void sg_runner_fence(struct sg_runner *runner)
{
    if (!runner->nonblocking)
        return;
    if (!sg_runner_fence_waits(runner))
        runner->fenced = 1;
    else if (runner->fence_error == MPI_SUCCESS)
        runner->fence_error = wait_all(runner); /* ends here, in the I-call */
}

int sg_runner_add(struct sg_runner *runner, MPI_Request request)
{
    if (!runner->nonblocking)
        return PMPI_Wait(&request, MPI_STATUS_IGNORE);
    if (!grow((void **)&runner->requests, &runner->capacity, runner->count + 1,
              sizeof *runner->requests)) {
        PMPI_Wait(&request, MPI_STATUS_IGNORE);
        return MPI_ERR_NO_MEM;
    }
    runner->requests[runner->count++] = request;
    return MPI_SUCCESS;
}

int sg_keep(struct sg_runner *runner, void (*release)(void *), void *memory)
{
    if (!runner->nonblocking || (runner->count == 0 && runner->queued_count == 0)) {
        release(memory);
        return MPI_SUCCESS;
    }
    if (!grow((void **)&runner->kept, &runner->kept_capacity, runner->kept_count + 1,
              sizeof *runner->kept)) {
        wait_all(runner);
        release(memory);
        return MPI_ERR_NO_MEM;
    }
    runner->kept[runner->kept_count++] = (struct sg_kept){release, memory};
    return MPI_SUCCESS;
}

int sg_runner_finish(struct sg_runner *runner)
{
    int err = wait_all(runner);
    while (err == MPI_SUCCESS && any_queued(runner)) {
        err = start_stage(runner);
        int waited = wait_all(runner);
        err = err != MPI_SUCCESS ? err : waited;
    }
    release_kept(runner);
    return err;
}

int sg_runner_test(struct sg_runner *runner, int *done)
{
    int err = MPI_SUCCESS;
    for (;;) {
        *done = 1;
        for (int i = 0; i < runner->count && err == MPI_SUCCESS; i++) {
            int flag = 1;
            if (runner->requests[i] != MPI_REQUEST_NULL) /* a done one is set to null */
                err = PMPI_Test(&runner->requests[i], &flag, MPI_STATUS_IGNORE);
            *done &= flag;
        }
        if (err != MPI_SUCCESS || !*done || !any_queued(runner))
            break;
        err = start_stage(runner);
    }
    if (err != MPI_SUCCESS) /* an error ends the operation: wait for the rest */
        wait_all(runner);
    if (err != MPI_SUCCESS || *done) {
        *done = 1;
        release_kept(runner);
    }
    return err;
}

int sg_runner_allows(const struct sg_runner *runner, enum sg_routine routine,
                     enum sg_routine like, MPI_Datatype type, int64_t n, int procs)
{
    int size;
    uint64_t elements, basic, s;
    if (runner->allows == NULL)
        return 1;
    if (sg_type_measure(type, &size, &elements) != MPI_SUCCESS)
        return 0; /* not measured: not allowed */
    sg_in_basic_elements((uint64_t)n, (uint64_t)size, elements, &basic, &s);
    return runner->allows(sg_in_form_of(routine, like), s, basic, (uint64_t)procs);
}
