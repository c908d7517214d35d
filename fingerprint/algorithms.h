/* A collective's algorithms, as the running MPI offers them through the
 * MPI tool interface (issue 21, W4): the control variable that chooses the
 * routine's algorithm, by a rule per MPI, and its values other than the
 * MPI's own choice:
 *  - MPICH: MPIR_CVAR_<ROUTINE>_INTRA_ALGORITHM (MPIR_CVAR_BCAST_..., an
 *    integer: 0 is auto); MPI_T gives no enumeration, so the values are the
 *    items its description lists ("name - what"), 1 to items - 1, each
 *    named by the word before its " - ", which may run into the previous
 *    item's text (scaleguard-cvars --algorithms finds the exact name); the
 *    "nb" one runs the I-form, whose own variable then chooses
 *    (runs_nonblocking);
 *  - Open MPI: coll_tuned_<routine>_algorithm for the blocking routines,
 *    coll_libnbc_<routine>_algorithm for the I-forms, whose enumeration
 *    names the values (0, "ignore", is the MPI's own choice); a routine
 *    without such a variable has no choice here.
 * The tool interface must be started. */
#ifndef SCALEGUARD_FINGERPRINT_ALGORITHMS_H
#define SCALEGUARD_FINGERPRINT_ALGORITHMS_H

#include <stddef.h>

#include "bounds.h"
#include "routines.h"

#define SG_ALGORITHMS_MAX 32

struct sg_algorithms {
    char cvar[96]; /* "": the MPI offers no choice */
    int count;
    struct {
        int value;
        char name[64];
        int runs_nonblocking; /* MPICH's "nb": the I-form runs, by its own algorithm */
    } items[SG_ALGORITHMS_MAX];
};

void sg_algorithms_of(enum sg_routine routine, struct sg_algorithms *out);

/* Whether the MPI takes `value` for its integer control variable `name`, by
 * what MPI_T says of the variable's values, as above (an enumeration, or
 * MPICH's description of an *_ALGORITHM variable): 1 where it takes it, or
 * nothing tells (no such variable, no values listed); 0 where not, with
 * `values` the ones it takes ("0-8"). A value out of them makes MPICH
 * assert in the call. */
int sg_cvar_value_offered(const char *name, int value, char *values, size_t size);

/* For `scaleguard-ini check`: starts the tool interface (no MPI_Init), and
 * for each avoid_with value of `bounds` that this MPI does not take, calls
 * report("FILE:LINE: ..."), `path` naming the file. Returns their number. */
int sg_avoid_values_check(const struct sg_bounds *bounds, const char *path,
                          void (*report)(const char *message));

/* When the MPI reads an algorithm variable `name`, and so whether W4 may
 * write it around one call, by a rule per MPI:
 *  - MPICH (MPIR_CVAR_*): at every call (MPIR_<Coll>_impl switches on it);
 *    a non-blocking call builds its schedule when it starts;
 *  - Open MPI coll_libnbc_*: at every call of the I-form;
 *  - Open MPI coll_tuned_*: when a communicator is made, and only where
 *    coll_tuned_use_dynamic_rules was set at startup;
 *  - any other: not known, so not written during a call.
 * Returns 1 where a write takes effect on the next call. Else 0, with
 * `environment` the setting of `value` for the whole job ("VAR=VALUE ...",
 * what mpiexec's environment must hold) and `needed` the boolean variable
 * that must hold 1 for it to count ("" where none). */
int sg_cvar_per_call(const char *name, const char *value, char *environment,
                     size_t environment_size, char *needed, size_t needed_size);

#endif
