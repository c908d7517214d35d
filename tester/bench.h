/* scaleguard-bench (scaleguard-bench.c: the kernel and its header comment):
 * what its options (bench_options.c) and its kernel share. */
#ifndef SCALEGUARD_BENCH_H
#define SCALEGUARD_BENCH_H

#include <stddef.h>

#include "routines.h"

#define PROGRAM "scaleguard-bench"

/* The exit status, the same on every rank. */
enum result {
    BENCH_PASS = 0,
    BENCH_USAGE = 2,
    BENCH_WRONG_DATA = 3,
    BENCH_MPI_ERROR = 4,
    BENCH_OOM = 5,
};

/* What the command line asks for. */
struct options {
    int routine;
    long long *counts; /* past INT_MAX only for a large-count (`_c`) routine */
    size_t ncounts;
    int type_size, iters, root, procs;
    int inplace, sparse, reversed, use_pmpi, fatal, predict, blocking_first;
    double late;
    int error_grace; /* 0: wait for the peers as long as they take */
    char **cvars; /* --cvar NAME=VALUE, in order */
    int ncvars;
};

/* Read the command line into `o`. Returns 0, BENCH_USAGE (said on stderr),
 * or -1 where it printed what was asked (--help, --version). A routine
 * whose family the kernel has no case for is a usage error naming it. */
int parse_options(int argc, char **argv, struct options *o);

/* Whether the kernel has a case for `routine`'s family (its buffers filled
 * and its result checked): a routine of SG_FAMILY_LIST without one is
 * refused before MPI starts, never run as an MPI error. */
int bench_has_case(enum sg_routine routine);

#endif
