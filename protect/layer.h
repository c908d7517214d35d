/* libscaleguard.so internals: configuration, logging and statistics. */
#ifndef SCALEGUARD_LAYER_H
#define SCALEGUARD_LAYER_H

#include <stdatomic.h>

#include "bounds.h"
#include "collective.h"

enum sg_log_level { SG_LOG_QUIET, SG_LOG_WARN, SG_LOG_INFO, SG_LOG_DEBUG };

/* The bound entries of one routine, from SCALEGUARD_CONFIG. */
struct sg_rules {
    const struct sg_bound_entry *const *entries;
    size_t count;
};

struct sg_layer {
    enum sg_log_level log_level;
    struct sg_bounds bounds;                 /* owns the entries */
    const struct sg_bound_entry **index;     /* entries grouped by routine, twice */
    struct sg_rules rules[SG_ROUTINE_COUNT]; /* views into `index`: every entry */
    /* The same without the inplace = yes entries of the routines whose ranks
     * all pass MPI_IN_PLACE together (sg_rules_of). */
    struct sg_rules rules_not_in_place[SG_ROUTINE_COUNT];
};

/* The configuration, loaded on the first intercepted call (thread-safe). */
const struct sg_layer *sg_layer(void);

/* The entries that apply to call c. An inplace = yes entry was measured on
 * the MPI_IN_PLACE form. Allgather(v), Alltoall(v), Allreduce,
 * Reduce_scatter(_block) and their I-forms take MPI_IN_PLACE on every rank
 * or none, so every rank knows: the entry applies to in-place calls only.
 * Where only the root passes it (Gather(v), Scatter(v), Reduce, I-forms),
 * the other ranks cannot tell, and all must decide alike: the entry applies
 * to every call (the conservative reading). Bcast has no in-place form. */
static inline const struct sg_rules *sg_rules_of(const struct sg_layer *layer,
                                                 const struct sg_call *c)
{
    return c->sendbuf == MPI_IN_PLACE ? &layer->rules[c->routine]
                                      : &layer->rules_not_in_place[c->routine];
}

/* printf-like, prefixed "scaleguard: ", to stderr, if level is enabled.
 * `once` non-NULL: print only the first time that flag is seen. */
void sg_log(enum sg_log_level level, atomic_flag *once, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* How a call was handled, for the MPI_Finalize summary. */
enum sg_outcome {
    SG_OUTCOME_PLAIN,       /* no trigger */
    SG_OUTCOME_W1A,
    SG_OUTCOME_W1B,
    SG_OUTCOME_W2,
    SG_OUTCOME_W3,
    SG_OUTCOME_LEFT_ALONE,  /* triggered, but no workaround could guarantee the result */
    SG_OUTCOME_COUNT
};

void sg_count(enum sg_routine routine, int triggered_class, enum sg_outcome outcome);

/* Set while a Fortran caller's call runs (fortran.c, Open MPI): its
 * MPI_WAIT goes to PMPI_Wait directly, past the layer, so its non-blocking
 * calls complete inside the call instead (see pending.h). */
extern _Thread_local int sg_fortran_caller;

#endif
