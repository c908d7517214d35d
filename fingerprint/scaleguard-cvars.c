/* scaleguard-cvars: the platform fingerprint of the running MPI (read_cvars.h),
 * for the tester to write into a bounds INI, or compared with one. Run as
 * one MPI process. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bounds.h"
#include "compare.h"
#include "read_cvars.h"

static const char usage[] =
    "usage: scaleguard-cvars [--against FILE | --algorithms MPI_ROUTINE]\n"
    "Run as one MPI process (mpiexec -n 1 scaleguard-cvars, or alone). Prints the\n"
    "control variables through which the running MPI chooses its collectives'\n"
    "algorithms (the rule: README, \"The platform fingerprint\"), as KEY=VALUE\n"
    "lines: cvars_rule and cvars_digest (the keys of an INI's [platform]), then\n"
    "one line per variable (the keys of [cvars]). With --against FILE: compares\n"
    "the running MPI's library and variables with FILE's and prints what differs.\n"
    "With --algorithms MPI_ROUTINE: the control variable that chooses the routine's\n"
    "algorithm (cvar=NAME; none: no choice) and its values other than the MPI's own\n"
    "choice, one 'VALUE NAME' line each.\n"
    "Exit status: 0 (--against: nothing differs), 1 something differs, 2 error.\n";

static int algorithms(const char *routine)
{
    int r = sg_routine_by_name(routine), provided;
    if (r < 0) {
        fprintf(stderr, "scaleguard-cvars: %s is not one of the 26 collectives\n", routine);
        return 2;
    }
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "scaleguard-cvars: the MPI tool interface did not start\n");
        return 2;
    }
    struct sg_algorithms a;
    sg_algorithms_of((enum sg_routine)r, &a);
    printf("cvar=%s\n", a.cvar[0] ? a.cvar : "none");
    /* the I-form that MPICH's "nb" runs, by its own algorithm */
    const char *nonblocking = sg_routines[sg_in_form_of((enum sg_routine)r, SG_MPI_Ibcast)].name;
    for (int i = 0; i < a.count; i++)
        printf("%d %s%s%s\n", a.items[i].value, a.items[i].name,
               a.items[i].runs_nonblocking ? " runs " : "",
               a.items[i].runs_nonblocking ? nonblocking : "");
    MPI_T_finalize();
    return 0;
}

static int against(const char *path)
{
    struct sg_bounds bounds;
    static char message[1 << 17];
    if (sg_bounds_load(path, &bounds, NULL, NULL, message, sizeof message) != 0) {
        fprintf(stderr, "scaleguard-cvars: %s\n", message);
        return 2;
    }
    int differing = sg_fingerprint_compare(&bounds, 1000, "\n  ", message, sizeof message);
    if (differing < 0)
        fprintf(stderr, "scaleguard-cvars: %s\n", message);
    else if (differing == 0)
        printf("scaleguard-cvars: the running MPI is the one %s was measured on (library%s)\n",
               path, bounds.cvar_count ? " and control variables" : "; no [cvars] to compare");
    else
        printf("scaleguard-cvars: %d differ%s from %s:\n  %s\n", differing,
               differing == 1 ? "s" : "", path, message);
    sg_bounds_free(&bounds);
    return differing < 0 ? 2 : differing > 0;
}

static int print(void)
{
    int provided;
    struct sg_cvars_read read;
    char why[128];
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "scaleguard-cvars: the MPI tool interface did not start\n");
        return 2;
    }
    if (sg_cvars_read(&read, why, sizeof why) != 0) {
        fprintf(stderr, "scaleguard-cvars: %s\n", why);
        MPI_T_finalize();
        return 2;
    }
    printf("cvars_rule=%s\ncvars_digest=%016llx\n", read.rule,
           (unsigned long long)sg_cvars_digest(read.cvars, read.count));
    for (size_t i = 0; i < read.count; i++)
        printf("%s=%s\n", read.cvars[i].name, read.cvars[i].value);
    free(read.cvars);
    MPI_T_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (!(argc == 1 || (argc == 3 && (strcmp(argv[1], "--against") == 0 ||
                                       strcmp(argv[1], "--algorithms") == 0)))) {
        fputs(usage, stderr);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int status = argc == 1                           ? print()
                 : strcmp(argv[1], "--against") == 0 ? against(argv[2])
                                                     : algorithms(argv[2]);
    sg_fingerprint_stop();
    MPI_Finalize();
    return status;
}
