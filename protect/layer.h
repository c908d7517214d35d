/* libscaleguard.so internals: configuration, logging and statistics. */
#ifndef SCALEGUARD_LAYER_H
#define SCALEGUARD_LAYER_H

#include <stdatomic.h>

#include "bounds.h"
#include "collective.h"
#include "collective_check.h"
#include "observe.h"

enum sg_log_level { SG_LOG_QUIET, SG_LOG_WARN, SG_LOG_INFO, SG_LOG_DEBUG };

/* The bound entries of one routine, from SCALEGUARD_CONFIG. */
struct sg_rules {
    const struct sg_bound_entry *const *entries;
    size_t count;
    int bounded; /* some entry has a bound (class G or X): its problem is inside the MPI */
    /* The smallest of those bounds: no entry triggers for a call whose reach
     * (sg_call_reach) is at most this, which needs no shape of the call. */
    uint64_t quiet_reach;
    unsigned spreads; /* how many spreads its entries were measured on (`nodes`) */
};

/* The rules of every routine: views into the loaded entries, grouped by
 * routine in file order; `not_in_place` without the inplace = yes entries of
 * the routines whose ranks all pass MPI_IN_PLACE together (sg_rules_of). */
struct sg_rule_set {
    struct sg_rules all[SG_ROUTINE_COUNT];
    struct sg_rules not_in_place[SG_ROUTINE_COUNT];
};

struct sg_layer {
    enum sg_log_level log_level;
    struct sg_bounds bounds;             /* owns the entries */
    const struct sg_bound_entry **index; /* entries grouped by routine, twice */
    struct sg_rule_set loaded;           /* what this process read */
    /* What the calls use: empty (Class D protection only) until every
     * process of MPI_COMM_WORLD has loaded the same rules (agree.c). */
    struct sg_rule_set rules;
    uint64_t fingerprint; /* digest of `loaded`: every field a decision reads */
    const char *path;     /* the INI the rules came from, NULL when none */
    /* The collective checks (SCALEGUARD_CHECK, SCALEGUARD_CHECK_ACTION,
     * SCALEGUARD_CHECK_BATCH): as this process read them, and in force once
     * every rank read the same. */
    struct sg_checks_setting {
        int collectives;
        struct sg_check_options options;
    } checks_loaded, checks;
    /* The hang watchdog (SCALEGUARD_WATCHDOG=SECONDS,
     * SCALEGUARD_WATCHDOG_ACTION): likewise. seconds 0: off. */
    struct sg_watchdog_setting {
        double seconds;
        enum sg_watch_action action;
    } watchdog_loaded, watchdog;
    /* The trace (SCALEGUARD_TRACE=DIR): on or off likewise; the directory
     * is each process's own reading. */
    struct sg_trace_setting {
        int on;
        char dir[2048];
    } trace_loaded, trace;
    char source[600];     /* what this process loaded, for the ranks' report */
};

/* The configuration, loaded on first use (thread-safe): at MPI_Init, where
 * the ranks agree on it (agree.c). */
const struct sg_layer *sg_layer(void);

/* The layer off (foreign.h: the process runs another MPI): nothing loaded,
 * no MPI asked; only SCALEGUARD_LOG's level, for the message saying so. */
void sg_layer_off(void);

/* Put the loaded rules in force (agreed) or leave Class D protection only;
 * the loaded checks, watchdog and trace settings where the ranks agreed on
 * them (SG_AGREED_* in `settings_agreed`), or none. */
#define SG_AGREED_CHECKS 1u
#define SG_AGREED_WATCHDOG 2u
#define SG_AGREED_TRACE 4u
void sg_layer_apply(int agreed, unsigned settings_agreed);

/* Per routine, which of its calls protect.c's wrappers send straight to
 * PMPI, before the handler, where no summary counts the calls: without a
 * bound in force every call (SG_PASS_ALWAYS), or for a routine with
 * displacements those whose held arrays show no wrap (SG_PASS_UNWRAPPED:
 * Class D's scan); with one, of a routine without displacements, a call
 * that repeats the facts of its routine's last quiet call
 * (SG_PASS_REPEATS).
 * SG_PASS_NEVER until the rules take effect at MPI_Init: until then every
 * call takes the full path. */
enum sg_pass { SG_PASS_NEVER, SG_PASS_ALWAYS, SG_PASS_UNWRAPPED, SG_PASS_REPEATS };
extern atomic_uchar sg_passes[SG_ROUTINE_COUNT];

/* Whether the `_init` of persistent routine r has its ranks agree whether
 * any runs a workaround (protect.c, prepare): where some rank could under
 * the rules in force (r has int displacements, Class D, or a bound); no
 * wrapper passes such a call. Never for another form. */
static inline int sg_persistent_agrees(enum sg_routine r, const struct sg_rule_set *rules)
{
    return sg_is_persistent(r) &&
           ((sg_routines[r].irregular && !sg_displs_are_aint(r)) || rules->all[r].bounded);
}

/* Whether MPI initialisation went through the layer (agree.c). */
extern int sg_init_seen;

/* At MPI_Init, once the rules are in force, on every rank alike: what the
 * rules' workarounds need on MPI_COMM_WORLD before its first call (protect.c). */
int sg_protect_prepare_world(void);

/* The entries that apply to call c. An inplace = yes entry was measured on
 * the MPI_IN_PLACE form. Allgather(v), Alltoall(v), Allreduce,
 * Reduce_scatter(_block) and their I-forms take MPI_IN_PLACE on every rank
 * or none (in_place_alike), so every rank knows: the entry applies to
 * in-place calls only. Where only the root passes it (Gather(v),
 * Scatter(v), Reduce, I-forms) or each rank for itself (Scan, Exscan,
 * I-forms), a rank cannot tell what the others pass, and all must decide
 * alike: the entry applies to every call (the conservative reading). Bcast
 * has no in-place form. */
static inline const struct sg_rules *sg_rules_of(const struct sg_layer *layer,
                                                 const struct sg_call *c)
{
    return c->sendbuf == MPI_IN_PLACE ? &layer->rules.all[c->routine]
                                      : &layer->rules.not_in_place[c->routine];
}

/* The spread rule (README, "The bounds INI"): of `rules` (sg_rules_of's,
 * for one call), the entries that judge a call on a communicator whose
 * ranks are on `spread` nodes: those measured on that many nodes, else on
 * the nearest number (on a tie, of both). Between nodes the MPI runs other
 * code (its network transport, node-aware algorithms), so a bound measured
 * on one spread may not hold on another; the nearest is the best evidence
 * there is, and a bound applied where the MPI would not have failed costs
 * time, never a wrong result (every workaround gives the same bytes). With
 * `spread` 0 (not known) every entry judges the call, as on the hot path
 * (protect.c, nothing_can_trigger: a call that no entry at any spread
 * triggers needs no spread). The selection goes to *at, its pointers to
 * `room`, which has rules->count of them; where all the entries were
 * measured on one spread it is `rules` itself. */
void sg_rules_at_spread(const struct sg_rules *rules, int spread, struct sg_rules *at,
                        const struct sg_bound_entry **room);

/* printf-like, prefixed "scaleguard: ", to stderr, if level is enabled.
 * `once` non-NULL: print only the first time that flag is seen. */
void sg_log(enum sg_log_level level, atomic_flag *once, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* How a call was handled, for the MPI_Finalize summary: plainly (no
 * trigger), by one of the workarounds, or left alone (triggered, but no
 * workaround could guarantee the result). */
enum sg_outcome {
    SG_OUTCOME_PLAIN,
#define SG_OUTCOME_ENUM(id, name) SG_OUTCOME_##id,
    SG_WORKAROUND_LIST(SG_OUTCOME_ENUM)
#undef SG_OUTCOME_ENUM
    SG_OUTCOME_LEFT_ALONE,
    SG_OUTCOME_COUNT
};

/* The outcome of a call that workaround w ran. */
static inline enum sg_outcome sg_outcome_of(enum sg_workaround w)
{
    _Static_assert((int)SG_OUTCOME_W1A == (int)SG_WORKAROUND_W1A, "the same list");
    return (enum sg_outcome)w;
}

void sg_count(enum sg_routine routine, int triggered_class, enum sg_outcome outcome);

/* Set while a Fortran caller's call runs (fortran.c, Open MPI): its
 * MPI_WAIT goes to PMPI_Wait directly, past the layer, so its non-blocking
 * calls complete inside the call instead (see pending.h). */
extern SG_THREAD_LOCAL int sg_fortran_caller;

#endif
