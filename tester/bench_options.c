/* scaleguard-bench's command line (bench.h): its usage text and its
 * checks, apart from the kernel (scaleguard-bench.c). */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " PROGRAM " -c ROUTINE -n COUNT[,COUNT...] [-s TYPE_SIZE] [-i ITERS]\n"
            "                        [--root R] [--inplace] [--sparse] [--reverse] [--pmpi]\n"
            "                        [--fatal] [--late SECONDS] [--blocking-first]\n"
            "                        [--error-grace SECONDS]\n"
            "       " PROGRAM " --predict-memory -c ROUTINE -n COUNT[,COUNT...] [-s TYPE_SIZE]\n"
            "                        --procs P [--root R] [--inplace] [--sparse]\n"
            "\n"
            "Runs one of the collectives (MPI_Bcast ... MPI_Iexscan, and MPI_Bcast_c ...\n"
            "MPI_Iexscan_c where the MPI has the large-count forms) at each COUNT in turn\n"
            "(ascending, each 0..INT_MAX, or past it for a large-count routine; it stops at\n"
            "the first that does not pass), validating every element delivered; rank 0\n"
            "prints one line per size.\n"
            "\n"
            "  -c, --routine ROUTINE   the collective, e.g. MPI_Gatherv\n"
            "  -n, --count COUNT,...   elements of one message (per rank; v-routines: each\n"
            "                          rank's block; Bcast and the reductions to the root,\n"
            "                          to all and prefixes: the vector)\n"
            "  -s, --type-size S       unsigned elements of 1, 2, 4 or 8 bytes (default 1)\n"
            "  -i, --iters I           calls per size, each validated (default 1)\n"
            "  -R, --root R            root of the rooted routines (default 0)\n"
            "      --inplace           MPI_IN_PLACE wherever the standard allows it\n"
            "      --sparse            data only in the first 4 KiB of every 256 KiB of a\n"
            "                          message, zero elsewhere: the send buffer's other\n"
            "                          pages are never touched (every element delivered\n"
            "                          is still checked)\n"
            "  -r, --reverse           the v-routines' blocks in reverse rank order\n"
            "  -p, --pmpi              call PMPI_* instead of MPI_*\n"
            "  -f, --fatal             keep MPI_ERRORS_ARE_FATAL (default: ERRORS_RETURN)\n"
            "      --late SECONDS      I-forms: the last rank enters each call SECONDS later;\n"
            "                          the line adds returned=R, the longest any other\n"
            "                          rank's I-call took to return (before MPI_Wait)\n"
            "      --blocking-first    I-forms: each size runs once in the blocking form\n"
            "                          first (its own line; no rank late)\n"
            "      --error-grace SECONDS  a rank whose call returned an MPI error waits at\n"
            "                          most SECONDS for the others (who may wait in the\n"
            "                          collective for it), then aborts the job with 4\n"
            "                          (MPI_Abort; default: wait as long as they do)\n"
            "      --cvar NAME=VALUE   write the MPI control variable NAME (MPI_T: an integer,\n"
            "                          or an enumeration item's name) on every rank, and run\n"
            "                          on a duplicate of MPI_COMM_WORLD made after it\n"
            "      --predict-memory    print bytes_total=N bytes_max_rank=M, the buffer bytes\n"
            "                          of that call over --procs P ranks and on the largest\n"
            "                          rank, without running MPI; a line per COUNT\n"
            "  -h, --help              this text\n"
            "      --version           the version of ScaleGuard\n"
            "\n"
            "Exit status: 0 pass, 2 usage error, 3 wrong data, 4 MPI error, 5 out of memory.\n");
}

__attribute__((format(printf, 1, 2))) static int bad_usage(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, PROGRAM ": ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n(" PROGRAM " --help for usage)\n");
    va_end(args);
    return BENCH_USAGE;
}

/* A decimal in [min, max], the whole of text[0..length); 0 or -1. */
static int parse_long_long(const char *text, size_t length, long long min, long long max,
                           long long *out)
{
    char digits[32];
    if (length == 0 || length >= sizeof digits)
        return -1;
    memcpy(digits, text, length);
    digits[length] = '\0';
    char *end;
    long long v = strtoll(digits, &end, 10);
    if (*end != '\0' || digits[0] == '+' || digits[0] == ' ' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *text, size_t length, int min, int max, int *out)
{
    long long v;
    if (parse_long_long(text, length, min, max, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_counts(const char *text, struct options *o)
{
    size_t commas = 0;
    for (const char *c = text; *c; c++)
        commas += *c == ',';
    free(o->counts);
    o->counts = calloc(commas + 1, sizeof *o->counts);
    if (o->counts == NULL)
        return bad_usage("out of memory reading -n \"%s\"", text);
    o->ncounts = 0;
    for (const char *start = text;; ) {
        size_t length = strcspn(start, ",");
        long long v;
        if (parse_long_long(start, length, 0, LLONG_MAX, &v) != 0)
            return bad_usage("bad COUNT \"%.*s\" in -n \"%s\": an integer in 0..%lld",
                             (int)length, start, text, LLONG_MAX);
        if (o->ncounts > 0 && v <= o->counts[o->ncounts - 1])
            return bad_usage("bad COUNT \"%.*s\" in -n \"%s\": the COUNTs must be ascending",
                             (int)length, start, text);
        o->counts[o->ncounts++] = v;
        if (start[length] == '\0')
            break;
        start += length + 1;
    }
    return 0;
}

int parse_options(int argc, char **argv, struct options *o)
{
    enum {
        OPT_INPLACE = 256,
        OPT_SPARSE,
        OPT_PREDICT,
        OPT_PROCS,
        OPT_LATE,
        OPT_BLOCKING_FIRST,
        OPT_CVAR,
        OPT_ERROR_GRACE,
        OPT_VERSION
    };
    static const struct option longs[] = {
        {"routine", required_argument, NULL, 'c'},
        {"count", required_argument, NULL, 'n'},
        {"type-size", required_argument, NULL, 's'},
        {"iters", required_argument, NULL, 'i'},
        {"root", required_argument, NULL, 'R'},
        {"inplace", no_argument, NULL, OPT_INPLACE},
        {"sparse", no_argument, NULL, OPT_SPARSE},
        {"reverse", no_argument, NULL, 'r'},
        {"pmpi", no_argument, NULL, 'p'},
        {"fatal", no_argument, NULL, 'f'},
        {"predict-memory", no_argument, NULL, OPT_PREDICT},
        {"procs", required_argument, NULL, OPT_PROCS},
        {"late", required_argument, NULL, OPT_LATE},
        {"blocking-first", no_argument, NULL, OPT_BLOCKING_FIRST},
        {"cvar", required_argument, NULL, OPT_CVAR},
        {"error-grace", required_argument, NULL, OPT_ERROR_GRACE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int option, err;
    o->routine = -1;
    o->type_size = 1;
    o->iters = 1;
    o->procs = -1;
    opterr = 0; /* the messages below name the argument */
    while ((option = getopt_long(argc, argv, ":c:n:s:i:R:rpfh", longs, NULL)) != -1) {
        switch (option) {
        case 'c':
            o->routine = sg_routine_by_name(optarg);
            if (o->routine < 0)
                return bad_usage("unknown ROUTINE \"%s\" in -c (one of the 32, e.g. MPI_Gatherv)",
                                 optarg);
            break;
        case 'n':
            if ((err = parse_counts(optarg, o)) != 0)
                return err;
            break;
        case 's':
            if (parse_int(optarg, strlen(optarg), 1, 8, &o->type_size) != 0 ||
                (o->type_size & (o->type_size - 1)) != 0)
                return bad_usage("bad TYPE_SIZE \"%s\" in -s: 1, 2, 4 or 8", optarg);
            break;
        case 'i':
            if (parse_int(optarg, strlen(optarg), 1, INT_MAX, &o->iters) != 0)
                return bad_usage("bad ITERS \"%s\" in -i: an integer >= 1", optarg);
            break;
        case 'R':
            if (parse_int(optarg, strlen(optarg), 0, INT_MAX, &o->root) != 0)
                return bad_usage("bad root \"%s\" in --root: an integer >= 0", optarg);
            break;
        case OPT_PROCS:
            if (parse_int(optarg, strlen(optarg), 1, INT_MAX, &o->procs) != 0)
                return bad_usage("bad P \"%s\" in --procs: an integer >= 1", optarg);
            break;
        case OPT_LATE: {
            char *end;
            o->late = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(o->late > 0 && o->late <= 3600))
                return bad_usage("bad SECONDS \"%s\" in --late: a number in (0, 3600]", optarg);
            break;
        }
        case OPT_ERROR_GRACE:
            if (parse_int(optarg, strlen(optarg), 1, 86400, &o->error_grace) != 0)
                return bad_usage("bad SECONDS \"%s\" in --error-grace: an integer in 1..86400",
                                 optarg);
            break;
        case OPT_INPLACE: o->inplace = 1; break;
        case OPT_SPARSE: o->sparse = 1; break;
        case 'r': o->reversed = 1; break;
        case 'p': o->use_pmpi = 1; break;
        case 'f': o->fatal = 1; break;
        case OPT_PREDICT: o->predict = 1; break;
        case OPT_BLOCKING_FIRST: o->blocking_first = 1; break;
        case OPT_CVAR: {
            char **more = realloc(o->cvars, (size_t)(o->ncvars + 1) * sizeof *more);
            if (more == NULL || strchr(optarg, '=') == NULL || optarg[0] == '=') {
                free(more == NULL ? o->cvars : more);
                o->cvars = NULL;
                return bad_usage("--cvar '%s' is not NAME=VALUE", optarg);
            }
            o->cvars = more;
            o->cvars[o->ncvars++] = optarg;
            break;
        }
        case 'h': usage(stdout); return -1;
        case OPT_VERSION: puts(PROGRAM " " SCALEGUARD_VERSION); return -1;
        case ':':
            if (strncmp(argv[optind - 1], "--", 2) == 0)
                return bad_usage("option %s needs an argument", argv[optind - 1]);
            return bad_usage("option -%c needs an argument", optopt);
        default:
            if (optopt == 0 || strncmp(argv[optind - 1], "--", 2) == 0)
                return bad_usage("unknown option \"%s\"", argv[optind - 1]);
            return bad_usage("unknown option -%c", optopt);
        }
    }
    if (optind < argc)
        return bad_usage("unexpected argument \"%s\"", argv[optind]);
    if (o->routine < 0)
        return bad_usage("missing -c ROUTINE");
    if (o->ncounts == 0)
        return bad_usage("missing -n COUNT");
    const char *name = sg_routines[o->routine].name;
    if (!bench_has_case((enum sg_routine)o->routine))
        return bad_usage("%s: the benchmark has no case for it (what fills its buffers and "
                         "checks its result: tester/scaleguard-bench.c, step), so it cannot "
                         "run it",
                         name);
    if (!sg_is_large_count((enum sg_routine)o->routine) &&
        o->counts[o->ncounts - 1] > INT_MAX)
        return bad_usage("COUNT %lld: %s takes at most INT_MAX (%d); past it, its large-count "
                         "form (_c) where the MPI has one",
                         o->counts[o->ncounts - 1], name, INT_MAX);
    if (o->inplace && !sg_routines[o->routine].in_place)
        return bad_usage("--inplace: %s has no MPI_IN_PLACE", name);
    if (o->late > 0 && !sg_is_nonblocking((enum sg_routine)o->routine))
        return bad_usage("--late: %s is not an I-form", name);
    if (o->blocking_first && !sg_is_nonblocking((enum sg_routine)o->routine))
        return bad_usage("--blocking-first: %s is not an I-form", name);
    if (o->predict) {
        if (o->procs < 0)
            return bad_usage("--predict-memory needs --procs P");
        if (o->root >= o->procs)
            return bad_usage("bad --root %d: not a rank of --procs %d", o->root, o->procs);
    } else if (o->procs >= 0) {
        return bad_usage("--procs only goes with --predict-memory");
    }
    return 0;
}

