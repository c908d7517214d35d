/* A workaround as the layer chooses and runs it (protect.c): one row of
 * operations each, which the workaround's own file exports (sg_w3_op in
 * w3.c, ...). protect.c keeps only `auto`'s order of preference, a list of
 * the rows; a new workaround is a file with its row and one entry of that
 * list (protect/README.md). The rows are read only past the decision that
 * a call can trigger, never on the layer's hot path. */
#ifndef SCALEGUARD_WORKAROUND_H
#define SCALEGUARD_WORKAROUND_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "collective.h"
#include "runner.h"
#include "workarounds.h"

/* The plans every rank may run: the call as it is, a workaround of
 * SG_WORKAROUND_LIST, the call left alone, or W1-B point to point. */
enum sg_plan_kind {
    SG_PLAN_PLAIN,
#define SG_PLAN_ENUM(id, name) SG_PLAN_##id,
    SG_WORKAROUND_LIST(SG_PLAN_ENUM)
#undef SG_PLAN_ENUM
    SG_PLAN_LEFT_ALONE,
    SG_PLAN_W1B_P2P /* Gatherv/Scatterv/Alltoallv: sg_w1b_p2p, no plan sent */
};

/* What every rank must run alike; Gatherv/Scatterv's root sends it as is.
 * W1-A: `chunk` is the group size, `rounds` 1 when the root's windows
 * follow (W1-A's groups follow them, so every rank needs them all), and
 * `together` 1 when the routine's I-form may take the groups' sub-calls of
 * a blocking call (sg_runner.together). `why`: of a call left alone, the
 * root's enum left_reason + 1 (0: none), the non-roots' reason too (the
 * trace's why= word). */
struct sg_plan {
    int64_t kind, chunk, rounds, windows, together, why;
};
#define SG_PLAN_FIELDS 6

/* What the detectors found that triggers a call on this rank. */
struct sg_call_verdict {
    int cls;                            /* triggered class (enum sg_class), or -1 */
    const struct sg_bound_entry *entry; /* the entry that triggered (NULL for D) */
    uint64_t max_count;                 /* the largest n every entry allows, in basic elements */
    int w2_valid_trigger;               /* the trigger does not depend on s */
};

/* The most sub-calls W1-B makes of one call (rounds times windows). Past
 * it the call is left alone: a bound met by a tiny message would turn one
 * call into hundreds of thousands, each holding a request and its state in
 * an I-form. A real bound (2^31 bytes and up) reaches it at 2 TiB. The
 * count follows from facts every rank shares, so every rank stops alike. */
#define SG_W1B_MAX_SUBCALLS 1024

/* What W1-B would need on this rank, computed once per call for the
 * decision and the agreement: every rank derives the same chunk from the
 * same bounds; `rounds`, `cuts` and the windows depend on this rank's
 * layout. */
struct sg_w1b_fit {
    int64_t chunk, rounds;
    int cuts;     /* the chunk is > 0, this rank's layout can be cut, and not too often */
    int too_many; /* it would take more than SG_W1B_MAX_SUBCALLS sub-calls (protect.c) */
    struct sg_windows win;
};

/* A count of basic elements in elements of this rank's datatype (rounded
 * down): what W2 counts in on this rank, and W1-B of the reductions (one
 * datatype on every rank) and of Allgatherv (whose ranks compare theirs);
 * W1-B of the other routines counts basic elements (by_basic). */
static inline uint64_t sg_in_own_elements(uint64_t basic, const struct sg_shape *sh)
{
    return sh->elements > 1 ? basic / sh->elements : basic;
}

/* A count of basic elements in the units W1-B and W2 judge this call in:
 * basic elements where W1-B counts them (by_basic), else own elements. */
static inline uint64_t sg_in_units(uint64_t basic, const struct sg_described *d,
                                   const struct sg_shape *sh)
{
    return d->by_basic ? basic : sg_in_own_elements(basic, sh);
}

/* What the layer knows of a triggered call when it chooses, for a row's
 * `first`, `applies`, `plan` and `unavailable`. `agreed`: the ranks can
 * agree on rounds and windows (all see the same, or a bound is configured
 * so that they talk); without it W1-B may run only as a local change: one
 * window, one round. */
struct sg_choice {
    const struct sg_call *c;
    int bounded;          /* the routine has an entry with a bound (class G or X) */
    const struct sg_call_verdict *v;
    const struct sg_shape *sh;
    const struct sg_described *d;
    const struct sg_w1b_fit *fit;
    const struct sg_runner *runner; /* what the plan would run on (its `allows`, I-form) */
    int agreed;
    int exact;   /* splitting cannot change the bits (sg_split_risk) */
    int members; /* W1-A's group size */
};

/* What a plan runs with, for a row's `run`, `refused` and `how`. */
struct sg_run_with {
    const struct sg_call_verdict *v;
    const struct sg_shape *sh;
    const struct sg_described *d;
    const struct sg_plan *plan;
    const struct sg_windows *windows; /* W1-B's and W1-A's: this rank's, or the root's */
    MPI_Comm copy;                    /* W1-B point to point's private communicator */
};

/* How a row says why it cannot run a call an entry names it for. */
enum sg_unavailable {
    SG_UNAVAILABLE_CANNOT_APPLY, /* `why`: the reason; said as a warning, `auto` chooses */
    SG_UNAVAILABLE_HERE,         /* `why`: the whole sentence; this MPI lacks what it needs
                                  * (said at info level), the next valid one runs */
};

/* One workaround's operations.
 *   name        what the INI calls it (`workaround = NAME`); the outcome in
 *               the summary is the same one (layer.h)
 *   kind        the plan it runs
 *   local       it changes this rank's own description only (W2, W3), so a
 *               rank whose own facts meet no trigger makes the plain call
 *   first       NULL, or whether `auto` takes it before the others here
 *   applies     whether it can guarantee the result of this call (NULL: never
 *               chosen by `auto` or an entry; W1-B point to point, which
 *               decide() takes past a bound of Gatherv/Scatterv/Alltoallv)
 *   plan        what every rank runs (the kind is the row's)
 *   unavailable why not, where an entry names it
 *   run         returns an MPI error code, or -1 when it refused before
 *               communicating
 *   refused     its words for that refusal, after its name ("could not
 *               set its control variables"): the call is then left as it is;
 *               with refusal_fails, the whole sentence: the call fails
 *               (MPI_ERR_ARG), as the other ranks take their part
 *   how         its words in the summary line */
struct sg_workaround_op {
    enum sg_workaround name;
    enum sg_plan_kind kind;
    int local;
    int (*first)(const struct sg_choice *ch);
    int (*applies)(const struct sg_choice *ch);
    struct sg_plan (*plan)(const struct sg_choice *ch);
    enum sg_unavailable (*unavailable)(const struct sg_choice *ch, char *why, size_t size);
    int (*run)(struct sg_runner *runner, const struct sg_call *c, const struct sg_run_with *r);
    void (*refused)(char *words, size_t size, const struct sg_call *c,
                    const struct sg_run_with *r);
    int refusal_fails;
    void (*how)(char *how, size_t size, const struct sg_call *c, const struct sg_run_with *r);
};

/* The rows, each in its workaround's file. */
extern const struct sg_workaround_op sg_w3_op, sg_w2_op, sg_w1b_op, sg_w1a_op, sg_w4_op,
    sg_w1b_p2p_op;

/* A plan of one call with the chunk the fit gives (W3, W2, W4). */
static inline struct sg_plan sg_one_call_plan(const struct sg_choice *ch)
{
    return (struct sg_plan){0, ch->fit->chunk, 0, 1, 0, 0}; /* the kind from the row */
}

#endif
