/* The sub-call runner: see runner.h. */
#include "runner.h"

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
    free(runner->kept);
    free(runner->requests);
    runner->kept = NULL;
    runner->requests = NULL;
    runner->kept_count = runner->kept_capacity = runner->count = runner->capacity = 0;
}

int sg_run(struct sg_runner *runner, struct sg_call *sub)
{
    MPI_Request request = MPI_REQUEST_NULL;
    if (sg_is_nonblocking(sub->routine))
        sub->request = &request;
    int err = sg_call_invoke(runner->mpi, sub);
    if (err != MPI_SUCCESS || request == MPI_REQUEST_NULL)
        return err;
    return sg_runner_add(runner, request);
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
    if (!runner->nonblocking || runner->count == 0) {
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
    release_kept(runner);
    return err;
}

int sg_runner_test(struct sg_runner *runner, int *done)
{
    int err = MPI_SUCCESS;
    *done = 1;
    for (int i = 0; i < runner->count && err == MPI_SUCCESS; i++) {
        int flag = 1;
        if (runner->requests[i] != MPI_REQUEST_NULL) /* a done one is set to null */
            err = PMPI_Test(&runner->requests[i], &flag, MPI_STATUS_IGNORE);
        *done &= flag;
    }
    if (err != MPI_SUCCESS) /* an error ends the operation: wait for the rest */
        wait_all(runner);
    if (err != MPI_SUCCESS || *done) {
        *done = 1;
        release_kept(runner);
    }
    return err;
}
