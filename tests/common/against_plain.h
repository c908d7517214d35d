/* What the MPI tests that run a workaround against the plain call share
 * (tests/w1a, tests/w1b): this rank and P, `fail` (a message naming the
 * program and rank, then exit status 1), a small seeded
 * random generator, the margin each buffer has on either side so that a
 * stray write shows, the plain call, and where two buffers first differ. A
 * test defines TEST_PROGRAM before including it. */
#ifndef SCALEGUARD_AGAINST_PLAIN_H
#define SCALEGUARD_AGAINST_PLAIN_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "collective.h"

#define MARGIN 64

static int rank, procs;

static _Noreturn __attribute__((format(printf, 1, 2))) void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, TEST_PROGRAM ": rank %d: ", rank);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    /* exit, not MPI_Abort: the launcher ends the other ranks either way,
     * but an abort's kill can come before the launcher has forwarded the
     * message above (seen: every rank failing at once, no message left). */
    exit(1);
}

static uint64_t state;

static uint32_t next_random(void)
{
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(state >> 33);
}

/* Run `plain` through PMPI to completion (an I-form waited for). */
static void run_plain(struct sg_call *plain)
{
    MPI_Request request;
    plain->request = &request;
    int err = sg_call_invoke(&sg_pmpi, plain);
    if (err == MPI_SUCCESS && sg_is_nonblocking(plain->routine))
        err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS)
        fail("%s: the plain call failed (%d)", sg_routines[plain->routine].name, err);
}

/* The first byte where `got` differs from `plain`, counted from the end of
 * the leading margin, or PTRDIFF_MAX when none does. */
static ptrdiff_t first_difference(const unsigned char *plain, const unsigned char *got,
                                  size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (plain[i] != got[i])
            return (ptrdiff_t)i - MARGIN;
    return PTRDIFF_MAX;
}

#endif
