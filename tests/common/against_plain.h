/* What the MPI tests that run a workaround against the plain call share
 * (tests/w1a, tests/w1b): this rank and P, `fail` (a message naming the
 * program and rank, then MPI_Abort with exit status 1), a small seeded
 * random generator, and the margin each buffer has on either side so that a
 * stray write shows. A test defines TEST_PROGRAM before including it. */
#ifndef SCALEGUARD_AGAINST_PLAIN_H
#define SCALEGUARD_AGAINST_PLAIN_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static uint64_t state;

static uint32_t next_random(void)
{
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(state >> 33);
}

#endif
