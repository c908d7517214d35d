/* libscaleguard.so: the MPI_* collectives of the rows (routines.h), each
 * checked by the detectors and, when a trigger is reached, replaced by a
 * workaround.
 *
 * Every rank must take the same path. Regular routines see everything they
 * need locally. Where only the root sees the counts (Gatherv, Scatterv), or
 * each rank holds a layout of its own (Alltoallv's row; Allgatherv's
 * displacements may differ per rank, so W2's validity may too), the
 * cheapest agreement is used:
 *  - W2 changes only the datatypes of one rank's own side, and MPI matches
 *    type signatures, not types: a root may receive counts[i]/k elements of
 *    a k-element type where the sender sends counts[i]. So Class D (which
 *    the root detects alone) is fixed by the root alone, with no message.
 *  - W1-B changes every rank's messages, so the ranks must agree on rounds,
 *    or each must be able to work out its own part. Gatherv/Scatterv and
 *    Alltoallv: each rank sees whether its own blocks (all of them, at the
 *    root) exceed the bound's chunk, and so does the rank at each block's
 *    other end; those go point to point (sg_w1b_p2p): nothing is sent to
 *    agree. Allgatherv: one Allreduce of every rank's need (any rank's need
 *    for W1-B makes every rank cut), paid only on calls that meet a bound
 *    (class G or X), as every rank sees every count. W1-A's groups of
 *    Gatherv/Scatterv follow the root's plan, an Allreduce on every call, sent
 *    only where an entry names W1-A. Routines without a bound, the common
 *    case, and Class D entries never send anything extra.
 *  - W1-B of a Class D layout with no factor for W2 (see "Class D by
 *    windows" below): one window, moved by the deciding rank alone, is as
 *    local as W2; more windows need the agreement above. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"
#include "pending.h"
#include "persistent.h"
#include "plan.h"
#include "private_comm.h"
#include "spread.h"
#include "tuning.h"
#include "w1a.h"
#include "workaround.h"
#include "workarounds.h"

/* ---- Calls left as they are --------------------------------------------- */


#define LEFT_ALONE_SUFFIX "; the call is left as it is (reported once; counted at MPI_Finalize)"
#define LEFT_ONCE_OF_ROUTINE(...) \
    {ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, \
     ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT},
_Static_assert(LEFT_REASONS == 10, "one ATOMIC_FLAG_INIT per reported reason");
static atomic_flag left_once[SG_ROUTINE_COUNT][LEFT_REASONS] = {
    SG_ROUTINE_LIST(LEFT_ONCE_OF_ROUTINE)};

/* ---- Class D ------------------------------------------------------------ */

struct displs_view {
    int blocks; /* P, or the side's neighbours (routines.h: `blocks`) */
    const int *counts, *displs; /* an int form's, which Class D scans */
    struct sg_displs_array given; /* either form's, widened for the workarounds */
    const MPI_Datatype *types; /* Alltoallw's: displacements in bytes */
    int64_t *intended; /* allocated only when the layer needs them */
    int corrupted;
};

/* The displacement arrays this rank holds, on a communicator of `procs`
 * ranks: none off the root of Gatherv and Scatterv, where they are
 * insignificant (and may be junk), nor on a side given as MPI_IN_PLACE, nor
 * of a large-count form or Neighbor_alltoallw (the int arrays alone: MPI_Aint
 * displacements cannot wrap, so Class D cannot occur: sg_displs_are_aint);
 * a neighbourhood collective's have an entry
 * per neighbour (neighbours.h). (What sg_call_sides says of the V sides,
 * read straight from the call: the Class D scan is on the hot path.) */
static inline __attribute__((always_inline)) void
held_displs(const struct sg_call *c, int is_root, int procs, struct displs_view *recv,
            struct displs_view *send)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    *recv = (struct displs_view){0};
    *send = (struct displs_view){0};
    if (info->rooted && !is_root) /* a rooted routine's V side is the root's */
        return;
    int recv_blocks = procs, send_blocks = procs;
    if (info->neighbours) {
        const struct sg_neighbours *n = sg_comm_neighbours(c->comm);
        recv_blocks = n ? n->in : 0;
        send_blocks = n ? n->out : 0;
    }
    if ((info->displs & SG_DISPLS_RECV) && c->recvbuf != MPI_IN_PLACE)
        *recv = (struct displs_view){.blocks = recv_blocks, .counts = c->recvcounts.of_int,
                                     .displs = c->rdispls.of_int, .given = c->rdispls,
                                     .types = c->recvtypes};
    if ((info->displs & SG_DISPLS_SEND) && c->sendbuf != MPI_IN_PLACE)
        *send = (struct displs_view){.blocks = send_blocks, .counts = c->sendcounts.of_int,
                                     .displs = c->sdispls.of_int, .given = c->sdispls,
                                     .types = c->sendtypes};
}

static inline __attribute__((always_inline)) int suspicious(const struct displs_view *v)
{
    return v->displs != NULL && sg_displs_suspicious(v->counts, v->displs, (size_t)v->blocks);
}

/* Whether a displacement array this rank holds looks wrapped. */
static inline __attribute__((always_inline)) int
held_displs_suspicious(const struct sg_call *c, int procs, int is_root)
{
    struct displs_view recv, send;
    held_displs(c, is_root, procs, &recv, &send);
    return suspicious(&recv) || suspicious(&send);
}

/* ---- The wrappers ------------------------------------------------------- */

/* The facts of a call of a routine without displacements that decide
 * whether it can trigger: with its rules fixed from MPI_Init on (applied
 * once, sg_layer_apply; MPI_IN_PLACE in sendbuf tells which of its two
 * sets: sg_rules_of) and predefined types, whose handles never become
 * another type's, a call of the same facts as one that could not trigger
 * cannot either. Of Reduce_scatter's counts array only their total counts
 * (its n is the whole vector). */
struct quiet_call {
    MPI_Datatype sendtype, recvtype;
    int64_t total; /* the sum of recvcounts (Reduce_scatter), else 0 */
    MPI_Count sendcount, recvcount;
    int procs;
    int flags; /* is_root, sendbuf and recvbuf MPI_IN_PLACE */
};

/* Per routine, the last such call on this thread that could not trigger. */
static SG_THREAD_LOCAL struct quiet_call quiet_calls[SG_ROUTINE_COUNT];

/* The sum of a call's recvcounts, the only counts array of a routine
 * without displacements (Reduce_scatter's); -1 where a count is negative,
 * which MPI reports (no facts to remember). */
static inline int64_t counts_total(const struct sg_call *c, int procs)
{
    int64_t total = 0;
    for (int i = 0; sg_counts_given(c->recvcounts) && i < procs; i++) {
        MPI_Count count = sg_count_at(c->recvcounts, i);
        if (count < 0)
            return -1;
        total += count;
    }
    return total;
}

/* (A neighbourhood's P, the most blocks a rank holds, stands for the
 * communicator's size: it is what the call's reach follows.) */
static inline struct quiet_call quiet_call_of(const struct sg_call *c, int procs, int is_root)
{
    return (struct quiet_call){c->sendtype,
                               c->recvtype,
                               counts_total(c, procs),
                               c->sendcount,
                               c->recvcount,
                               sg_call_procs(c, procs),
                               is_root | (c->sendbuf == MPI_IN_PLACE) << 1 |
                                   (c->recvbuf == MPI_IN_PLACE) << 2};
}

static inline int same_quiet_call(const struct quiet_call *a, const struct quiet_call *b)
{
    return a->sendtype == b->sendtype && a->recvtype == b->recvtype &&
           a->total == b->total && a->sendcount == b->sendcount &&
           a->recvcount == b->recvcount && a->procs == b->procs && a->flags == b->flags;
}

static inline __attribute__((always_inline)) enum sg_pass pass_of(enum sg_routine r)
{
    return (enum sg_pass)atomic_load_explicit(&sg_passes[r], memory_order_relaxed);
}

/* A call's pass (SG_PASS_UNWRAPPED or SG_PASS_REPEATS) on a communicator of
 * `procs` ranks in which this process is `rank` (read only where the call
 * has a root). */
static inline __attribute__((always_inline)) int passes_in(const struct sg_call *c,
                                                           enum sg_pass pass, int procs, int rank)
{
    int is_root = c->root < 0 || c->root == rank;
    if (pass == SG_PASS_UNWRAPPED)
        return !held_displs_suspicious(c, procs, is_root);
    struct quiet_call facts = quiet_call_of(c, procs, is_root);
    return same_quiet_call(&facts, &quiet_calls[c->routine]);
}

/* What a wrapper sees before it builds the call for the handler
 * (sg_passes): a routine that nothing can trigger; a v-routine without a
 * bound whose held displacements show no wrap; a call with a bound of a
 * routine without displacements that repeats the facts of its routine's
 * last quiet one.
 * These are nothing_can_trigger's answers for those calls, without the
 * handler's call. Asked only after passes_at_entry said no, which has
 * answered for every call that needs no MPI call to look at. */
static inline __attribute__((always_inline)) int passes_at_once(const struct sg_call *c)
{
    enum sg_pass pass = pass_of(c->routine);
    int inter = 0, procs, rank = -1;
    if (pass == SG_PASS_NEVER || pass == SG_PASS_ALWAYS ||
        (!sg_routines[c->routine].neighbours && sg_comm_size_rank_held(c->comm, &procs, &rank)))
        return 0;
    /* a v-routine's arrays have an entry per rank of the remote group */
    if ((pass == SG_PASS_UNWRAPPED &&
         (sg_comm_test_inter(c->comm, &inter) != MPI_SUCCESS || inter)) ||
        sg_comm_size_rank(c->comm, &procs, c->root >= 0 ? &rank : NULL) != MPI_SUCCESS)
        return 0;
    return passes_in(c, pass, procs, rank);
}

/* passes_at_once's answer where it needs no call: every call of a routine
 * that nothing can trigger, and the others' on MPI_COMM_WORLD or
 * MPI_COMM_SELF (whose size and rank the layer holds), but a
 * neighbourhood collective's, whose blocks are its communicator's topology. */
static inline __attribute__((always_inline)) int passes_at_entry(const struct sg_call *c)
{
    enum sg_pass pass = pass_of(c->routine);
    if (pass == SG_PASS_NEVER || pass == SG_PASS_ALWAYS)
        return pass == SG_PASS_ALWAYS;
    if (sg_routines[c->routine].neighbours)
        return 0;
    int procs, rank;
    return sg_comm_size_rank_held(c->comm, &procs, &rank) && passes_in(c, pass, procs, rank);
}

static int sg_protect(struct sg_call *c);
#define SG_WRAPPER_HANDLER sg_protect
#define SG_WRAPPER_PASSES_AT_ENTRY(c) passes_at_entry(c)
#define SG_WRAPPER_PASSES(c) passes_at_once(c)
SG_COLLECTIVES(SG_DEFINE_PASSING_WRAPPER)

/* Check one displacement array this rank holds. Returns -1 when it is
 * corrupted beyond recovery (the call must then be left alone). */
static int check_displs(struct displs_view *v, enum sg_routine routine)
{
    int procs = v->blocks;
    if (!suspicious(v))
        return 0;
    v->intended = malloc((size_t)procs * sizeof *v->intended);
    if (v->intended == NULL)
        return -1;
    /* Alltoallw's displacements count bytes: each block spans its count
     * times its own datatype's extent (Neighbor_alltoallw's W sides are
     * MPI_Aint: never scanned) */
    int64_t *spans = v->types ? malloc((size_t)procs * sizeof *spans) : NULL;
    if (v->types && spans == NULL)
        return -1;
    for (int i = 0; spans && i < procs; i++)
        spans[i] = v->counts[i] > 0 ? (int64_t)v->counts[i] * sg_extent_of(v->types[i]) : 0;
    struct sg_displs_report r =
        sg_displs_recover_spans(v->counts, spans, v->displs, (size_t)procs, v->intended);
    free(spans);
    if (r.status == SG_DISPLS_UNRECOVERABLE) {
        /* Only a rank that holds the array gets here: the one deciding. An
         * int array that wrapped always recovers (DESIGN.md, "Class D"), so
         * this is a layout MPI allows (blocks in any order, overlapping
         * send blocks), not a wrap: nothing to warn about. */
        sg_log(SG_LOG_INFO, &left_once[routine][LEFT_DISPLS],
               "%s: displacement %zu is below an earlier one, which a wrapped int array "
               "cannot explain (%s): a legal layout (MPI allows blocks in any order), not a "
               "wrapped one" LEFT_ALONE_SUFFIX,
               sg_routines[routine].name, r.index, r.reason);
        return -1;
    }
    v->corrupted = r.status == SG_DISPLS_RECOVERED;
    return 0;
}

/* The intended displacements of a side, widened when they were intact. */
static const int64_t *widened(struct displs_view *v)
{
    if (!sg_displs_given(v->given))
        return NULL;
    if (v->intended == NULL) {
        v->intended = malloc((size_t)(v->blocks > 0 ? v->blocks : 1) * sizeof *v->intended);
        if (v->intended == NULL)
            return NULL;
        for (int i = 0; i < v->blocks; i++)
            v->intended[i] = sg_displ_at(v->given, i);
    }
    return v->intended;
}

/* ---- Class G and X ------------------------------------------------------ */

static atomic_flag x_off_point_once = ATOMIC_FLAG_INIT;

/* The call against every entry in `rules` (for a call: those that apply to
 * it, sg_rules_of): the first that triggers decides, and each limits n. */
static void judge(const struct sg_rules *rules, const struct sg_shape *sh, const char *routine,
                  struct sg_call_verdict *v)
{
    *v = (struct sg_call_verdict){.cls = -1, .max_count = UINT64_MAX, .w2_valid_trigger = 1};
    for (size_t i = 0; i < rules->count; i++) {
        const struct sg_bound_entry *e = rules->entries[i];
        const struct sg_class_info *cls = &sg_classes[e->cls];
        uint64_t allowed;
        int exact = 1;
        if (!cls->bounded)
            continue;
        if (cls->scales)
            allowed = sg_trigger_max_count(e->trigger, sh->s, sh->procs, e->bound);
        else
            allowed = sg_x_effective_bound(e->bound, e->type_size, e->procs, sh->s, sh->procs,
                                           &exact);
        if (allowed < v->max_count)
            v->max_count = allowed;
        if (sh->n > allowed && v->cls < 0) {
            v->cls = e->cls;
            v->entry = e;
            v->w2_valid_trigger = cls->scales && !sg_trigger_depends_on_type_size(e->trigger);
            if (!exact)
                sg_log(SG_LOG_WARN, &x_off_point_once,
                       "%s: Class %s bound measured at s=%" PRIu64 " P=%" PRIu64
                       " applied at s=%" PRIu64 " P=%" PRIu64 " as %" PRIu64
                       " (the most restrictive form)",
                       routine, cls->name, e->type_size, e->procs, sh->s, sh->procs, allowed);
        }
    }
}

/* Whether any entry in `rules` triggers for the call: judge's class, with
 * no division for class G (sg_trigger_exceeds is exactly n > its largest
 * count): what the hot path asks on every call of a routine with a bound. */
static int meets_a_bound(const struct sg_rules *rules, const struct sg_shape *sh)
{
    for (size_t i = 0; i < rules->count; i++) {
        const struct sg_bound_entry *e = rules->entries[i];
        const struct sg_class_info *cls = &sg_classes[e->cls];
        if (cls->bounded &&
            (cls->scales ? sg_trigger_exceeds(e->trigger, sh->s, sh->n, sh->procs, e->bound)
                         : sh->n > sg_x_effective_bound(e->bound, e->type_size, e->procs, sh->s,
                                                        sh->procs, NULL)))
            return 1;
    }
    return 0;
}

/* ---- The plan ----------------------------------------------------------- */


#define FLAG_OF_ROUTINE(...) ATOMIC_FLAG_INIT,
static atomic_flag unavailable_once[SG_ROUTINE_COUNT] = {SG_ROUTINE_LIST(FLAG_OF_ROUTINE)};
static atomic_flag inter_once = ATOMIC_FLAG_INIT;
static atomic_flag missing_once[SG_ROUTINE_COUNT] = {SG_ROUTINE_LIST(FLAG_OF_ROUTINE)};

/* Whether an entry of the routine names W1-A: its groups follow the root's
 * plan, which Gatherv/Scatterv's root then sends on every call. */
static int names_w1a(const struct sg_rules *rules)
{
    for (size_t i = 0; i < rules->count; i++)
        if (rules->entries[i]->workaround == SG_WORKAROUND_W1A)
            return 1;
    return 0;
}

static enum sg_workaround preferred(const struct sg_rules *rules, const struct sg_call_verdict *v)
{
    if (v->entry)
        return v->entry->workaround;
    /* a D entry may name the workaround for D */
    for (size_t i = 0; i < rules->count; i++)
        if (sg_classes[rules->entries[i]->cls].from_displs)
            return rules->entries[i]->workaround;
    return SG_WORKAROUND_AUTO;
}

/* Whether the verdict's class has a bound that holds at the measured P only
 * (Class X): no group size follows from it. */
static int bound_at_measured_only(const struct sg_call_verdict *v)
{
    return v->cls >= 0 && sg_classes[v->cls].bounded && !sg_classes[v->cls].scales;
}

/* W1-A's group size: the most processes any entry whose bound scales
 * (Class G) lets one sub-call have at this n and s (P when none limits
 * it); 0 under a bound that holds at the measured P only (Class X). */
static int w1a_members(const struct sg_rules *rules, const struct sg_call_verdict *v,
                       const struct sg_shape *sh)
{
    if (bound_at_measured_only(v))
        return 0;
    uint64_t members = sh->procs;
    for (size_t i = 0; i < rules->count; i++) {
        const struct sg_bound_entry *e = rules->entries[i];
        if (!sg_classes[e->cls].scales)
            continue;
        uint64_t m = sg_trigger_max_procs(e->trigger, sh->s, sh->n, e->bound);
        if (m < members)
            members = m;
    }
    return (int)members;
}

/* ---- Class D by windows ------------------------------------------------
 *
 * A Class D layout whose counts and displacements share no factor > 1 (so
 * W2 cannot shrink them into int) is cut by W1-B into displacement windows
 * (workarounds.h): per window one sub-call of the same routine, the buffer
 * moved to the window's base, the displacements rebased into int, counts 0
 * outside the window. A window may use negative displacements, so it spans
 * up to 2^32 - 1 extents.
 *
 * Who must learn what, and what it costs:
 *  - One window, one round (every layout that spans < 2^32 extents, e.g.
 *    P = 4 x 768 Mi chars): the sub-call moves every rank's block exactly as
 *    the call would, only described from another base on the rank that
 *    holds the displacements. It is local, like W2: the root of
 *    Gatherv/Scatterv fixes it alone, with no message, and the non-roots
 *    make the call they always make.
 *  - More windows (a span of 2^32 extents or more): every rank's block moves
 *    in the sub-call of its window, so each non-root of Gatherv/Scatterv
 *    must learn which sub-call that is, and only the root can know: there
 *    is no way around a message from the root, and a non-root learns that
 *    one is coming only if it waits for one on every call. So this is done
 *    only where that message is sent anyway: for a routine whose entry
 *    names W1-A, whose plan the root broadcasts on every call. Class D
 *    never costs a message: the tester writes a `class = D` entry for a
 *    routine that failed so, and every call of Scatterv would pay for the
 *    rare one. (Past a bound, every block over the chunk goes point to
 *    point, wherever it lies: sg_w1b_p2p.) The plan (kind, chunk, rounds,
 *    windows: 32 bytes) tells
 *    every rank the number of windows, and only when there is more than one
 *    does a second collective follow: a Scatter of one int per rank, its
 *    window. A Scatter rather than a Bcast of all P windows: each rank gets
 *    4 bytes and the root sends 4P, where a Bcast would move 4P bytes to
 *    every rank; either is paid only on calls that move >= 4 Gi elements at
 *    the root. Otherwise the call is left alone (where the MPI has the
 *    large-count functions, W3 takes it: the root alone).
 *  - Allgatherv: every rank holds counts and displacements and computes the
 *    same windows from them with no message. This assumes the ranks pass
 *    the same displs (they may legally differ; codes whose displs wrap build
 *    them alike, from the same counts). Where a call meets a bound of the
 *    routine, its Allreduce checks the assumption: the ranks compare their
 *    windows (count and a digest), and if they differ no rank cuts.
 *  - Alltoallv: each rank's block for rank i meets rank i's block for it,
 *    in whatever window each puts it, so its sides are never split; a side
 *    spanning under 2^32 extents is rebased whole (one window), a local
 *    change like W2 that no other rank needs to know. A wider side (more
 *    than 4 Gi elements received or sent by one rank) is left alone. */

/* Routines whose ranks compute the same windows alone: see above. (Not the
 * neighbourhood v-routines: each rank holds its own neighbours' blocks.) */
static int windows_computed_alike(enum sg_routine r)
{
    const struct sg_routine_info *info = &sg_routines[r];
    return info->knows == SG_KNOWS_OWN && !info->pairwise && !info->neighbours; /* Allgatherv */
}


/* A reduction's sub-calls reduce at most this many bytes: the MPI's own
 * temporaries grow with a sub-call's vector, and the call's buffers already
 * fill the node (MPICH 4.0.2's Reduce_scatter of 3 Gi chars at P = 3, cut
 * into two halves, ran out of 24 GiB). Far above where a call's own cost
 * stops mattering. */
#define REDUCTION_PIECE_BYTES ((uint64_t)256 << 20)

/* W1-B's chunk in basic elements (by_basic) is a multiple of this where it
 * is at least WHOLE_CHUNKS of them, so that pieces are whole elements of
 * any datatype of up to 16 basic elements (lcm(1..16) = 720720, lost: at
 * most 1/WHOLE_CHUNKS of the chunk): a type of its own only past that, or
 * for a small bound. */
#define WHOLE_ELEMENTS 720720
#define WHOLE_CHUNKS 64

static struct sg_w1b_fit fit_w1b(const struct sg_call_verdict *v, const struct sg_described *d,
                              const struct sg_shape *sh, int reduction)
{
    uint64_t chunk = sg_in_units(v->max_count, d, sh) / (uint64_t)d->per_block_factor;
    uint64_t element_bytes = sh->s * (sh->elements ? sh->elements : 1);
    uint64_t piece =
        REDUCTION_PIECE_BYTES / (element_bytes ? element_bytes : 1) / (uint64_t)d->per_block_factor;
    /* the Reduce_scatter family (P blocks to a chunk) in the MPI's faster
     * pieces (tuning.h), where that keeps the sub-calls few */
    uint64_t faster = sg_tuning()->reduce_scatter_piece_bytes /
                      (element_bytes ? element_bytes : 1) / (uint64_t)d->per_block_factor;
    if (d->per_block_factor > 1 && faster > 0 && faster < piece &&
        sg_w1b_rounds(d, faster) <= SG_W1B_MAX_SUBCALLS / 8)
        piece = faster;
    if (reduction && chunk > piece && piece > 0)
        chunk = piece;
    if (chunk > INT_MAX && !d->send.large && !d->recv.large) /* a `_c` call's pieces may pass it */
        chunk = INT_MAX;
    if (d->by_basic && chunk >= (uint64_t)WHOLE_ELEMENTS * WHOLE_CHUNKS)
        chunk -= chunk % WHOLE_ELEMENTS;
    struct sg_w1b_fit f = {.chunk = (int64_t)chunk};
    f.rounds = f.chunk > 0 ? (int64_t)sg_w1b_rounds(d, (uint64_t)f.chunk) : 0;
    int planned = sg_windows_plan(d, sh->rank, &f.win);
    f.too_many = f.chunk > 0 && planned == MPI_SUCCESS &&
                 (uint64_t)f.rounds * (uint64_t)f.win.count > SG_W1B_MAX_SUBCALLS;
    f.cuts = f.chunk > 0 && planned == MPI_SUCCESS && !f.too_many;
    return f;
}

/* Whether no entry of routine r triggers for a call of n basic elements of
 * s bytes over `procs` (sg_routine_allows, for the workarounds). Its
 * inplace = yes entries count too: whether the sub-call is in place is not
 * asked (the conservative reading). */
static int allows_basic(enum sg_routine r, uint64_t s, uint64_t n, uint64_t procs)
{
    struct sg_shape sh = {.n = n, .s = s, .procs = procs, .is_root = 1};
    struct sg_call_verdict v;
    judge(&sg_layer()->rules.all[r], &sh, sg_routines[r].name, &v);
    return v.cls < 0;
}


/* ---- What a call yields, and what runs it -------------------------------- */

/* The most entries of one routine that its calls choose among by their
 * communicator's spread; a routine with more (no INI comes near) has all of
 * them judge every call, on every rank alike (the count is the INI's). */
#define SPREAD_ROOM 64

/* What the detectors found in a call on this rank. */
struct findings {
    struct sg_shape sh;
    int procs;                     /* the communicator's size (sh.procs: the triggers' P) */
    struct displs_view recv, send; /* Class D, on the arrays this rank holds */
    int spread;                    /* the communicator's nodes (spread.h); 0: not known */
    struct sg_rules at;            /* the entries that judge it (sg_rules_at_spread) */
    const struct sg_bound_entry *room[SPREAD_ROOM]; /* `at`'s, where it is a selection */
    struct sg_call_verdict v;              /* class G or X from `at`, or D from the arrays */
    int meets_bound;               /* class G or X, from facts every rank of Allgatherv has */
    int displs_lost;               /* an array is corrupted beyond recovery (LEFT_DISPLS) */
};

/* What this rank runs, the same plan as every other rank's. */
struct decision {
    struct sg_plan plan;
    int why;            /* the enum left_reason this rank reports, or -1 */
    int reports;        /* this rank reports the decision */
    int triggered_here; /* this rank's own facts meet a trigger */
    struct sg_described d;
    struct sg_w1b_fit fit;
    struct sg_windows told;            /* the root's windows, off the root */
    const struct sg_windows *windows;  /* what W1-B runs over: fit.win, or told */
    MPI_Comm copy;                     /* W1-B point to point's private communicator */
};

/* The runner of a plan: an I-form's starts its sub-calls, except for a
 * Fortran caller on Open MPI (whose MPI_WAIT passes the layer by). */
static struct sg_runner runner_of(const struct sg_call *c)
{
    struct sg_runner runner = SG_RUNNER(&sg_pmpi, c->request != NULL && !sg_fortran_caller);
    runner.allows = allows_basic;
    return runner;
}

/* The workarounds in `auto`'s order of preference (each row in its own
 * file: workarounds/workaround.h): W3, then W2 (one call each), then W1-B
 * (rounds), then W1-A (groups: its communicators cost a creation on first
 * use), then W4 (another algorithm: the tester checked it up to a size
 * only), except that a row whose `first` says so for the call comes before
 * all; W1-B point to point, without `applies`, is never chosen here
 * (decide() takes it past a bound of Gatherv/Scatterv/Alltoallv). */
static const struct sg_workaround_op *const workarounds[] = {
    &sg_w3_op, &sg_w2_op, &sg_w1b_op, &sg_w1a_op, &sg_w4_op, &sg_w1b_p2p_op,
};
#define WORKAROUNDS (sizeof workarounds / sizeof *workarounds)

static const struct sg_workaround_op *workaround_named(enum sg_workaround name)
{
    for (size_t i = 0; i < WORKAROUNDS; i++)
        if (workarounds[i]->name == name && workarounds[i]->applies != NULL)
            return workarounds[i];
    return NULL;
}

static const struct sg_workaround_op *workaround_of(enum sg_plan_kind kind)
{
    for (size_t i = 0; i < WORKAROUNDS; i++)
        if (workarounds[i]->kind == kind)
            return workarounds[i];
    return NULL;
}

static struct sg_plan plan_of(const struct sg_workaround_op *op, const struct sg_choice *ch)
{
    struct sg_plan p = op->plan(ch);
    p.kind = op->kind;
    return p;
}

/* Where an entry names a workaround that cannot run the call: why, once
 * per routine, and that `auto` chooses instead (or, where this MPI lacks
 * what it needs, that the next valid one runs). */
static void tell_unavailable(const struct sg_choice *ch, const struct sg_workaround_op *op)
{
    char why[512] = "";
    const char *routine = sg_routines[sg_called(ch->c)].name;
    if (op->unavailable(ch, why, sizeof why) == SG_UNAVAILABLE_HERE)
        sg_log(SG_LOG_INFO, &missing_once[sg_called(ch->c)], "%s: %s", routine, why);
    else
        sg_log(SG_LOG_WARN, &unavailable_once[sg_called(ch->c)],
               "%s: workaround %s cannot apply to this call (%s); using auto", routine,
               sg_workaround_name(op->name), why);
}

/* `reports`: this rank reports the decision (see decide). `*why` gets the
 * reason when the call is left alone. */
static struct sg_plan choose(const struct sg_call *c, const struct sg_rules *rules,
                          const struct sg_call_verdict *v, const struct sg_shape *sh,
                          const struct sg_described *d, const struct sg_w1b_fit *fit, int agreed,
                          int reports, int *why)
{
    /* a reduction whose bits could change when split: neither W1-B nor W1-A */
    struct sg_runner runner = runner_of(c);
    struct sg_choice ch = {c,      rules->bounded, v, sh, d, fit, &runner, agreed,
                           sg_split_risk(c) == NULL, w1a_members(rules, v, sh)};
    enum sg_workaround want = preferred(rules, v);
    if (want == SG_WORKAROUND_NONE)
        return (struct sg_plan){SG_PLAN_PLAIN, 0, 0, 1, 0, 0};
    if (want != SG_WORKAROUND_AUTO) {
        const struct sg_workaround_op *named = workaround_named(want);
        if (named != NULL && named->applies(&ch))
            return plan_of(named, &ch);
        if (reports && named != NULL)
            tell_unavailable(&ch, named);
    }
    for (int pass = 0; pass < 2; pass++) /* those measured faster first, then in order */
        for (size_t i = 0; i < WORKAROUNDS; i++)
            if (workarounds[i]->applies != NULL &&
                (pass == 1 || (workarounds[i]->first != NULL && workarounds[i]->first(&ch))) &&
                workarounds[i]->applies(&ch))
                return plan_of(workarounds[i], &ch);
    *why = !ch.exact                 ? LEFT_SPLIT_RISK
           : fit->too_many           ? LEFT_TOO_MANY_ROUNDS
           : fit->cuts && !ch.agreed ? LEFT_NEEDS_MESSAGE
           : sg_w1a_groups_fit(&ch)
               ? LEFT_W1A_UNMADE /* W1-A fits, its communicators not made (an I-form)
                                  * or not kept (a persistent call) */
               : LEFT_NO_WORKAROUND;
    return (struct sg_plan){SG_PLAN_LEFT_ALONE, fit->chunk, 0, 1, 0, 0};
}

/* ---- Reports and the hot path ------------------------------------------ */

/* Say once per routine and reason why a call is left as it is, where it
 * was decided: the root's plan arrives at the non-roots of
 * Gatherv/Scatterv without a reason (why < 0). `windows`: the W1-B windows
 * this rank's layout needs. */
static void report_left_alone(const struct sg_call *c, const struct sg_shape *sh, int why,
                              int reports, int windows)
{
    const char *name = sg_routines[sg_called(c)].name;
    if (why == LEFT_NO_WORKAROUND && reports)
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_NO_WORKAROUND],
               "%s: no workaround can guarantee the result (n=%" PRIu64 ", s=%" PRIu64
               ", P=%d)" LEFT_ALONE_SUFFIX, name, sh->n, sh->s, (int)sh->procs);
    else if (why == LEFT_SPLIT_RISK && reports)
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_SPLIT_RISK],
               "%s: no workaround can guarantee the result (n=%" PRIu64 ", s=%" PRIu64
               ", P=%d): splitting this reduction could change it, as %s"
               LEFT_ALONE_SUFFIX,
               name, sh->n, sh->s, (int)sh->procs, sg_split_risk(c));
    else if (why == LEFT_TOO_MANY_ROUNDS && reports)
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_TOO_MANY_ROUNDS],
               "%s: W1-B would cut this call (n=%" PRIu64 ", s=%" PRIu64 ", P=%d) into more "
               "than %d sub-calls" LEFT_ALONE_SUFFIX,
               name, sh->n, sh->s, (int)sh->procs, SG_W1B_MAX_SUBCALLS);
    else if (why == LEFT_MIXED_TYPES && reports)
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_MIXED_TYPES],
               "%s: the ranks pass different datatypes for the same data (e.g. 12 doubles "
               "against 1 vector of 12), which no workaround cuts alike (n=%" PRIu64
               ", s=%" PRIu64 ", P=%d)" LEFT_ALONE_SUFFIX,
               name, sh->n, sh->s, (int)sh->procs);
    else if (why == LEFT_CANNOT_CUT)
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_CANNOT_CUT],
               "%s: W1-B cannot cut this rank's layout (n=%" PRIu64 ", s=%" PRIu64
               ", P=%d), so no rank cuts" LEFT_ALONE_SUFFIX,
               name, sh->n, sh->s, (int)sh->procs);
    else if (why == LEFT_NEEDS_MESSAGE && reports)
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_NEEDS_MESSAGE],
               "%s: this Class D layout has no common factor for W2 and needs W1-B over "
               "%d displacement windows, which the non-roots could learn only from a "
               "message of the root on every call (sent only for a routine with a "
               "bound, class G or X)" LEFT_ALONE_SUFFIX,
               name, windows);
    else if (why == LEFT_WINDOWS_DIFFER)
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_WINDOWS_DIFFER],
               "%s: the ranks' displacement arrays need different W1-B windows (%d on "
               "this rank), so no rank cuts" LEFT_ALONE_SUFFIX,
               name, windows);
    else if (why == LEFT_W1A_UNMADE && reports)
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_W1A_UNMADE],
               "%s: only W1-A applies to this call (n=%" PRIu64 ", s=%" PRIu64 ", P=%d), and "
               "%s" LEFT_ALONE_SUFFIX,
               name, sh->n, sh->s, (int)sh->procs,
               c->persistent_plan ? SG_W1A_KEPT_WORDS : SG_W1A_UNMADE_WORDS);
}

/* Whether a call of routine r under `rules` moves its blocks over the chunk
 * point to point (sg_w1b_p2p), on a private copy of its communicator. */
static int moves_blocks_p2p(enum sg_routine r, const struct sg_rules *rules)
{
    if (!rules->bounded)
        return 0;
    const struct sg_routine_info *info = &sg_routines[r];
    return info->knows == SG_KNOWS_ROOT ? !names_w1a(rules) : info->irregular && info->pairwise;
}

/* Whether a routine's calls under these rules may run on the private copy
 * of their communicator: blocks point to point, or W1-B's rounds in stages. */
static int needs_private_comm(enum sg_routine r, const struct sg_rules *rules)
{
    return moves_blocks_p2p(r, rules) || (rules->bounded && sg_w1b_staged(r));
}

/* The private copy of MPI_COMM_WORLD, made at MPI_Init where a routine's
 * rules will need it: made at a call instead, it would hold the first
 * I-form call there until every rank has entered it. */
int sg_protect_prepare_world(void)
{
    const struct sg_layer *layer = sg_layer();
    for (int r = 0; r < SG_ROUTINE_COUNT; r++)
        if (needs_private_comm((enum sg_routine)r, &layer->rules.all[r]) ||
            needs_private_comm((enum sg_routine)r, &layer->rules.not_in_place[r])) {
            MPI_Comm copy;
            return sg_private_comm(MPI_COMM_WORLD, &copy);
        }
    return MPI_SUCCESS;
}

/* The hot path: this rank's own facts say nothing can trigger, so it makes
 * the call as it is, as the full path would. Without a bound only a
 * v-routine looks, at the displacements it holds (Class D's cheap scan);
 * with one, the call's n, s and P also meet no entry (all of them under
 * the smallest bound: sg_call_reach; or, without displacements, the same
 * facts as the routine's last such call: quiet_calls). With no trigger on
 * this rank, a rank talks only to follow a root's W1-A plan (excluded
 * here), and the private copy that blocks over the chunk travel on is made
 * here too, on every rank alike. Returns FULL_LOOK when the call needs the
 * full look (a trigger, a wrapped array, an intercommunicator's v-routine,
 * an MPI error in the look), else MPI_SUCCESS or the error of making that
 * copy. */
#define FULL_LOOK (-1)

static int nothing_can_trigger(const struct sg_call *c, const struct sg_rules *rules)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    if (!rules->bounded && !info->irregular)
        return MPI_SUCCESS;
    if (rules->bounded && info->knows == SG_KNOWS_ROOT && names_w1a(rules))
        return FULL_LOOK;
    /* A neighbourhood v-routine's ranks each hold their own neighbours'
     * blocks, and none sees whether another's meet a bound: under a bound
     * every call takes the full look, where the ranks agree (one Allreduce
     * of 11 words per call, plan_agreement.c; as Allgatherv's past a bound) */
    if (rules->bounded && info->neighbours && info->irregular)
        return FULL_LOOK;
    int inter = 0;
    /* a v-routine's arrays have an entry per rank of the remote group */
    if (info->irregular && (sg_comm_test_inter(c->comm, &inter) != MPI_SUCCESS || inter))
        return FULL_LOOK;
    struct sg_shape sh;
    int procs, rank = -1;
    if (sg_comm_size_rank(c->comm, &procs, c->root >= 0 ? &rank : NULL) != MPI_SUCCESS)
        return FULL_LOOK;
    if (procs == 1) /* nothing to scale: no trigger, no workaround */
        return MPI_SUCCESS;
    sh.procs = (uint64_t)procs;
    sh.is_root = c->root < 0 || c->root == rank;
    if (rules->bounded) {
        /* only a routine without displacements has facts to remember */
        struct quiet_call facts = {0};
        int scalar = !info->irregular;
        if (scalar) {
            facts = quiet_call_of(c, procs, sh.is_root);
            scalar = facts.total >= 0;
            if (scalar && same_quiet_call(&facts, &quiet_calls[c->routine]))
                return MPI_SUCCESS;
        }
        uint64_t reach;
        if (sg_call_reach(c, procs, sh.is_root, &reach) != MPI_SUCCESS)
            return FULL_LOOK;
        /* Under the smallest bound no entry can trigger, whatever the shape;
         * past it the shape decides (which the full look computes again). */
        if (reach > rules->quiet_reach &&
            (sg_call_shape(c, &sh) != MPI_SUCCESS || meets_a_bound(rules, &sh)))
            return FULL_LOOK;
        if (scalar && sg_type_met_predefined(c->sendtype) &&
            sg_type_met_predefined(c->recvtype))
            quiet_calls[c->routine] = facts;
    }
    if (!info->irregular)
        return MPI_SUCCESS;
    if (held_displs_suspicious(c, procs, sh.is_root))
        return FULL_LOOK;
    MPI_Comm copy; /* only v-routines move their blocks point to point */
    return moves_blocks_p2p(c->routine, rules) ? sg_private_comm(c->comm, &copy) : MPI_SUCCESS;
}

/* ---- Detect ------------------------------------------------------------- */

/* Returns 0, or -1 when the call passes through as it is: an
 * intercommunicator, or an argument that MPI itself will report. */
static int detect(const struct sg_call *c, const struct sg_rules *rules, struct findings *f)
{
    *f = (struct findings){0};
    int inter = 0;
    if (sg_comm_test_inter(c->comm, &inter) != MPI_SUCCESS || inter) {
        sg_log(SG_LOG_INFO, &inter_once, "intercommunicators pass through unprotected");
        return -1;
    }
    if (sg_call_shape(c, &f->sh) != MPI_SUCCESS ||
        sg_comm_size_rank(c->comm, &f->procs, NULL) != MPI_SUCCESS)
        return -1;
    held_displs(c, f->sh.is_root, f->procs, &f->recv, &f->send);
    /* Past the hot path (which judged the call by every entry, at any
     * spread), the entries of the communicator's spread judge it. */
    f->spread = rules->count > 0 ? sg_comm_spread(c->comm) : 0;
    sg_rules_at_spread(rules, rules->count <= SPREAD_ROOM ? f->spread : 0, &f->at, f->room);
    judge(&f->at, &f->sh, sg_routines[sg_called(c)].name, &f->v);
    f->meets_bound = f->v.cls >= 0;
    if (check_displs(&f->recv, c->routine) != 0 || check_displs(&f->send, c->routine) != 0)
        f->displs_lost = 1;
    else if ((f->recv.corrupted || f->send.corrupted) && f->v.cls < 0)
        f->v.cls = SG_CLASS_D;
    return 0;
}

/* ---- Decide ------------------------------------------------------------- */

/* Ranks may describe the same data with different datatypes (12 x
 * MPI_DOUBLE at the root, 1 x a vector of 12 doubles elsewhere). Where
 * every rank decides alone (the regular routines, Bcast), what each
 * chooses is a function of what they share -- the trigger and W1-B's
 * chunk and rounds count basic elements (sg_call_shape, by_basic in
 * workarounds.h), W2 is judged in them, W1-A's groups follow n, s and P --
 * so the ranks choose alike with no message, in the blocking forms and the
 * I-forms: a rank whose datatype W2 cannot shrink makes the call as it is,
 * one call like the others' W2; W1-B cuts every rank's blocks at the same
 * basic element (sg_type_range). Reductions pass one datatype on every rank
 * (the standard). Allgatherv's agreement and Gatherv/Scatterv's W1-A plan
 * compare the ranks' signature lengths (plan_agreement.c); the other
 * v-routines' blocks over the chunk move whole. */

/* The spread rule (sg_rules_at_spread) applied a bound measured on another
 * spread than the communicator's: said once per routine, at info level, by
 * the rank that reports the routine's decisions. */
static atomic_flag other_spread_once[SG_ROUTINE_COUNT] = {SG_ROUTINE_LIST(FLAG_OF_ROUTINE)};

static void tell_other_spread(const struct sg_call *c, const struct findings *f)
{
    const struct sg_bound_entry *e = f->v.entry;
    const char *name = sg_routines[sg_called(c)].name, *path = sg_layer()->path;
    char entry[96], where[192];
    if (e->ordinal > 1)
        snprintf(entry, sizeof entry, "[%s#%u]", name, e->ordinal);
    else
        snprintf(entry, sizeof entry, "[%s]", name);
    if (f->spread > 0)
        snprintf(where, sizeof where, "a communicator of %d ranks on %d node%s, a spread no entry "
                 "of the routine was measured at: the nearest spread's entries apply",
                 f->procs, f->spread, f->spread == 1 ? "" : "s");
    else
        snprintf(where, sizeof where, "a communicator whose ranks' nodes are not known (a "
                 "process of another MPI_COMM_WORLD): the entries of every spread apply");
    sg_log(SG_LOG_INFO, &other_spread_once[sg_called(c)],
           "%s: applying the bound of %s (%s:%u), measured on %" PRIu64 " node%s, to %s "
           "(said once per routine; README, \"The bounds INI\")",
           name, entry, path ? path : "?", e->line, e->nodes, e->nodes == 1 ? "" : "s", where);
}

/* Returns an MPI error code (of making the private communicator, or of the
 * agreement): MPI's own failure, on a collective call, as MPI reports it. */
static int decide(const struct sg_call *c, const struct sg_rules *rules, struct findings *f,
                  struct decision *dc)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    const struct sg_shape *sh = &f->sh;
    enum sg_knows who = info->knows;
    *dc = (struct decision){.plan = {.kind = SG_PLAN_PLAIN, .windows = 1}, .why = -1,
                            .fit = {.win = SG_WINDOWS_ONE}, .told = SG_WINDOWS_ONE,
                            .copy = MPI_COMM_NULL};
    dc->windows = &dc->fit.win;
    /* The rank that says why, once per routine and reason: the root of
     * Gatherv/Scatterv (the only one that sees the counts); elsewhere world
     * rank 0 alone, once per job (the ranks decide alike, or on layouts of
     * their own, which the agreement compares). */
    dc->reports = who == SG_KNOWS_ROOT ? sh->is_root : sg_world.rank == 0;
    if (f->displs_lost) {
        dc->plan.kind = SG_PLAN_LEFT_ALONE;
        dc->why = LEFT_DISPLS;
    }

    /* Gatherv, Scatterv and Alltoallv under a bound: each rank sees whether
     * its own blocks (all of them, at the root) exceed the bound's chunk, as
     * does the rank at each block's other end, and those go point to point
     * (sg_w1b_p2p) on a private copy of the communicator, which every rank
     * makes on the first call of the routine on it (blocking, also in an
     * I-form): no plan is sent, and a rank without such a block makes the
     * call itself. Only an entry of Gatherv/Scatterv that names W1-A, whose
     * groups every rank must learn, keeps the root's plan. */
    int err, by_blocks = moves_blocks_p2p(c->routine, rules);
    if (by_blocks && (err = sg_private_comm(c->comm, &dc->copy)) != MPI_SUCCESS)
        return err;
    if (by_blocks && f->meets_bound) {
        if (dc->why == LEFT_DISPLS) { /* not a wrap: the layout as it is given */
            free(f->recv.intended);
            free(f->send.intended);
            f->recv.intended = f->send.intended = NULL;
            dc->why = -1;
        }
        dc->plan.kind = SG_PLAN_W1B_P2P;
        dc->plan.chunk = f->v.max_count > INT64_MAX ? INT64_MAX : (int64_t)f->v.max_count;
        enum sg_workaround named = preferred(&f->at, &f->v);
        if (named != SG_WORKAROUND_AUTO && named != SG_WORKAROUND_W1B && dc->reports)
            sg_log(SG_LOG_WARN, &unavailable_once[sg_called(c)],
                   "%s: workaround %s cannot apply to this call (past a bound each rank moves "
                   "its blocks over the chunk point to point, which needs no message); using "
                   "W1-B",
                   sg_routines[sg_called(c)].name, sg_workaround_name(named));
    }

    dc->triggered_here = f->v.cls >= 0 && dc->plan.kind != SG_PLAN_LEFT_ALONE;
    if (f->v.entry != NULL && f->v.entry->nodes != (uint64_t)f->spread && dc->reports)
        tell_other_spread(c, f);
    /* A message only for a routine with a bound (never for Class D, which the
     * deciding rank fixes alone, or leaves), and only where the ranks cannot
     * work out their part alone: Gatherv/Scatterv whose entry names W1-A
     * (its groups are the root's plan, on every call), and Allgatherv's
     * calls that meet the bound (every rank sees every count, but the
     * displacements, and so the windows, may differ per rank). */
    int alike = windows_computed_alike(c->routine);
    int talks = rules->bounded && who != SG_KNOWS_ALL && !by_blocks && (!alike || f->meets_bound);
    /* Off the root of Gatherv/Scatterv the root's plan arrives below. */
    int decides = dc->triggered_here && (who != SG_KNOWS_ROOT || sh->is_root) &&
                  dc->plan.kind != SG_PLAN_W1B_P2P;
    if (dc->triggered_here || talks) {
        sg_describe(c, f->procs, sh->rank, widened(&f->send), widened(&f->recv), &dc->d);
        if (decides || (talks && who == SG_KNOWS_OWN)) /* for choose, the Allreduce */
            dc->fit = fit_w1b(&f->v, &dc->d, sh, info->reduction);
    }
    if (decides) {
        int agreed = talks || who == SG_KNOWS_ALL || alike;
        dc->plan = choose(c, &f->at, &f->v, sh, &dc->d, &dc->fit, agreed, dc->reports, &dc->why);
    }
    /* Agreement, only where a bound is configured (see the top of the file). */
    if (talks)
        return sg_agree_on_plan(c, sh, &dc->fit, &dc->plan, &dc->why, &dc->told, &dc->windows);
    return MPI_SUCCESS;
}

/* ---- Run ---------------------------------------------------------------- */

/* Run the plan (SG_PLAN_PLAIN and SG_PLAN_LEFT_ALONE: the call as it is). An
 * I-form's workaround starts its sub-calls and returns a request over them
 * (pending.h), except for a Fortran caller on Open MPI. */
static int run(const struct sg_call *c, const struct findings *f, const struct decision *dc,
               enum sg_outcome *outcome)
{
    const struct sg_workaround_op *w = workaround_of((enum sg_plan_kind)dc->plan.kind);
    *outcome = SG_OUTCOME_PLAIN;
    if (dc->plan.kind == SG_PLAN_LEFT_ALONE) {
        report_left_alone(c, &f->sh, dc->why, dc->reports, dc->fit.win.count);
        /* why < 0: another rank decided, and reports the reason */
        sg_observe_left_alone(dc->why >= 0 ? left_reason_words[dc->why] : NULL);
        *outcome = SG_OUTCOME_LEFT_ALONE;
        return sg_call_invoke(&sg_pmpi, c);
    }
    if (w == NULL || (w->local && !dc->triggered_here))
        return sg_call_invoke(&sg_pmpi, c); /* keeps the real request */
    struct sg_runner runner = runner_of(c);
    runner.together = (int)dc->plan.together; /* set for W1-A alone */
    sg_observe_workaround(sg_workaround_name(w->name));
    const struct sg_run_with with = {&f->v, &f->sh, &dc->d, &dc->plan, dc->windows, dc->copy};
    int err = w->run(&runner, c, &with);
    char words[256] = "cannot cut this rank's layout";
    if (err == -1 && w->refused != NULL)
        w->refused(words, sizeof words, c, &with);
    if (err == -1 && w->refusal_fails) { /* the other ranks take their part */
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_REFUSED], "%s: %s",
               sg_routines[sg_called(c)].name, words);
        err = MPI_ERR_ARG;
    }
    if (err == -1) { /* the workaround refused before communicating */
        sg_log(SG_LOG_WARN, &left_once[sg_called(c)][LEFT_REFUSED],
               "%s: %s %s, so this rank makes the call as it is "
               "(reported once; counted at MPI_Finalize)",
               sg_routines[sg_called(c)].name, sg_workaround_name(w->name), words);
        sg_observe_left_alone(left_reason_words[LEFT_REFUSED]);
        *outcome = SG_OUTCOME_LEFT_ALONE;
        return sg_call_invoke(&sg_pmpi, c);
    }
    *outcome = sg_outcome_of(w->name);
    if (c->request == NULL)
        return err;
    /* A blocking runner has finished its sub-calls: its request is complete
     * at once. What was started ends before an error returns. */
    if (err != MPI_SUCCESS) {
        sg_runner_finish(&runner);
        return err;
    }
    return sg_pending_start(&runner, c->request);
}

/* The summary line of a workaround that ran (by the root, or rank 0), and
 * the count for MPI_Finalize, of `routine`: the call's own, or the
 * persistent routine whose Start runs it. */
static void report(enum sg_routine routine, const struct sg_call *c, const struct findings *f,
                   const struct decision *dc, enum sg_outcome outcome)
{
    const struct sg_shape *sh = &f->sh;
    if (outcome != SG_OUTCOME_PLAIN && outcome != SG_OUTCOME_LEFT_ALONE &&
        sg_layer()->log_level >= SG_LOG_INFO && sh->is_root && (c->root >= 0 || sh->rank == 0)) {
        char how[256];
        const struct sg_run_with with = {&f->v, &f->sh, &dc->d, &dc->plan, dc->windows,
                                         dc->copy};
        workaround_of((enum sg_plan_kind)dc->plan.kind)->how(how, sizeof how, c, &with);
        sg_log(SG_LOG_INFO, NULL, "%s: class %s, n=%" PRIu64 " s=%" PRIu64 " P=%d: %s",
               sg_routines[routine].name,
               f->v.cls >= 0 ? sg_class_name((enum sg_class)f->v.cls) : "-", sh->n, sh->s,
               (int)sh->procs, how);
    }
    sg_count(routine, f->v.cls, outcome);
}

/* What detect found and decide chose that a call's plan holds in memory
 * (the recovered displacements, the windows), freed once the plan has run. */
static void release(struct findings *f, struct decision *dc)
{
    sg_windows_free(&dc->fit.win);
    free(dc->told.of);
    free(f->recv.intended);
    free(f->send.intended);
}

/* ---- The handler -------------------------------------------------------- */

#if SCALEGUARD_PERSISTENT
/* ---- Persistent calls ----------------------------------------------------
 *
 * A persistent call's plan is made at its `_init` (collective, so every
 * rank detects and decides as for the I-form, with the same agreement,
 * and then agrees whether any rank runs a workaround: prepare) and run at
 * each MPI_Start as the I-form's call runs (persistent.h).
 * What lives where: the call (its buffers and arrays are the
 * application's, fixed until MPI_Request_free), what detect found (the
 * recovered or widened displacements: f.recv.intended, f.send.intended)
 * and what decide chose (W1-B's windows: dc.fit.win, or the root's told
 * ones: dc.told; W2's and W1-B's described sides: dc.d, pointing into
 * those; W1-B point to point's private communicator: dc.copy, cached on
 * the communicator like every private copy) stay in one struct sg_plan_kept
 * until MPI_Request_free (sg_plan_free); no plan of W1-A is kept (its
 * communicators are a cache: w1a.c's w1a_ready); what a Start's sub-calls keep
 * (W2's types, W1-B's rounds' arrays, W3's widened arrays) is the runner's,
 * released when that Start's sub-calls are done (pending.h). */
struct sg_plan_kept {
    struct sg_call call;     /* in the I-form of its width: what each Start runs */
    enum sg_routine routine; /* the persistent routine: its summary line and counts */
    MPI_Request started;     /* where decide's runner sees an I-form's request */
    struct findings f;       /* not moved: f.at may point into f.room */
    struct decision dc;      /* not moved: dc.windows points into it */
};

void sg_plan_free(struct sg_plan_kept *k)
{
    release(&k->f, &k->dc);
    free(k);
}

int sg_plan_start(struct sg_plan_kept *k, MPI_Request *request)
{
    k->call.request = request;
    enum sg_outcome outcome;
    int err = run(&k->call, &k->f, &k->dc, &outcome);
    report(k->routine, &k->call, &k->f, &k->dc, outcome);
    return err;
}

/* Whether this rank's plan runs a workaround (then a carrier keeps it),
 * else the call as it is (never W1-A: sg_call's persistent_plan). */
static int runs_a_workaround(struct sg_plan_kept *k)
{
    struct decision *dc = &k->dc;
    const struct sg_workaround_op *w = workaround_of((enum sg_plan_kind)dc->plan.kind);
    return dc->plan.kind != SG_PLAN_LEFT_ALONE && w != NULL && (!w->local || dc->triggered_here);
}

/* A persistent call: its plan, kept behind a carrier (persistent.h) where
 * a workaround runs it on some rank, else the MPI's own persistent request
 * (SG_CALL_AS_MADE), which costs nothing at Start. A rank's plan may be
 * its own (W2, W3 and Class D's one window are local, the root's alone),
 * and MPICH 4.0.2 matches no I-form of a Start against a persistent
 * request's (it hangs): so the ranks agree, one Allreduce on the private
 * copy of the communicator where any could (sg_persistent_agrees), and if
 * any carries every rank does, the others' Starts running the call as it
 * is in its I-form. `quick`: nothing_can_trigger's answer. */
static int prepare(struct sg_call *c, const struct sg_rules *rules, int quick)
{
    int inter = 0, err = quick == FULL_LOOK ? MPI_SUCCESS : quick;
    if (err == MPI_SUCCESS && (err = sg_comm_test_inter(c->comm, &inter)) == MPI_SUCCESS &&
        inter)
        return SG_CALL_AS_MADE; /* on every rank (detect) */
    struct sg_plan_kept *k = calloc(1, sizeof *k);
    if (k == NULL)
        return MPI_ERR_NO_MEM;
    k->routine = c->routine;
    k->call = *c;
    k->call.routine =
        (enum sg_routine)sg_form_with(c->routine, 1, sg_is_large_count(c->routine));
    k->call.info = MPI_INFO_NULL;
    k->call.request = &k->started;
    k->call.persistent_plan = 1;
    k->f.v.cls = -1;
    k->dc = (struct decision){.plan = {.kind = SG_PLAN_PLAIN, .windows = 1}, .why = -1,
                              .fit = {.win = SG_WINDOWS_ONE}, .told = SG_WINDOWS_ONE,
                              .copy = MPI_COMM_NULL};
    k->dc.windows = &k->dc.fit.win;
    if (quick == FULL_LOOK && err == MPI_SUCCESS && detect(&k->call, rules, &k->f) == 0)
        err = decide(&k->call, rules, &k->f, &k->dc);
    int carries = err == MPI_SUCCESS && runs_a_workaround(k), any = carries;
    MPI_Comm copy;
    if (sg_persistent_agrees(c->routine, &sg_layer()->rules)) {
        int agreed = sg_private_comm(c->comm, &copy);
        if (agreed == MPI_SUCCESS)
            agreed = PMPI_Allreduce(&carries, &any, 1, MPI_INT, MPI_MAX, copy);
        if (err == MPI_SUCCESS)
            err = agreed;
    }
    if (err == MPI_SUCCESS && !any) {
        if (k->dc.plan.kind == SG_PLAN_LEFT_ALONE)
            report_left_alone(&k->call, &k->f.sh, k->dc.why, k->dc.reports,
                              k->dc.fit.win.count);
        sg_count(c->routine, k->f.v.cls,
                 k->dc.plan.kind == SG_PLAN_LEFT_ALONE ? SG_OUTCOME_LEFT_ALONE
                                                       : SG_OUTCOME_PLAIN);
        err = SG_CALL_AS_MADE;
    } else if (err == MPI_SUCCESS) {
        if (carries)
            sg_observe_workaround(
                sg_workaround_name(workaround_of((enum sg_plan_kind)k->dc.plan.kind)->name));
        err = sg_persistent_carry(k, c->request);
        if (err == MPI_SUCCESS)
            return MPI_SUCCESS; /* the carrier owns k now */
    }
    sg_plan_free(k);
    return err;
}
#endif

/* Returns an MPI error code, or SG_CALL_AS_MADE: the wrapper then calls its
 * PMPI function with the application's arguments. */
static int protect(struct sg_call *c)
{
    const struct sg_layer *layer = sg_layer();
    /* The checks first: before the layer decides anything about the call. */
    int checked;
    if (layer->checks.collectives && (checked = sg_check_collective(c)) != MPI_SUCCESS)
        return checked;
    /* The entries that apply, at every spread: what the hot path judges by,
     * and what shapes the path of a call every rank must take alike (who
     * talks, the private copies); the entries of its communicator's spread
     * judge it past the hot path (detect: f.at). */
    const struct sg_rules *rules = sg_rules_of(layer, c);
    int quick = nothing_can_trigger(c, rules);
#if SCALEGUARD_PERSISTENT
    if (sg_is_persistent(c->routine))
        return prepare(c, rules, quick);
#endif
    if (quick != FULL_LOOK) {
        if (quick != MPI_SUCCESS)
            return quick; /* MPI's own failure, on a collective call: as MPI reports it */
        if (layer->log_level >= SG_LOG_INFO)
            sg_count(c->routine, -1, SG_OUTCOME_PLAIN);
        return SG_CALL_AS_MADE; /* nothing can trigger: straight through */
    }

    struct findings f;
    if (detect(c, rules, &f) != 0)
        return SG_CALL_AS_MADE;
    struct decision dc;
    int err = decide(c, rules, &f, &dc);
    if (err == MPI_SUCCESS) {
        enum sg_outcome outcome;
        err = run(c, &f, &dc, &outcome);
        report(c->routine, c, &f, &dc, outcome);
    }
    release(&f, &dc);
    return err;
}

/* Observed (the watchdog, the trace: observe.h), the call is made here,
 * between its entry and exit. */
static int sg_protect(struct sg_call *c)
{
    if (!atomic_load_explicit(&sg_observing, memory_order_relaxed))
        return protect(c);
    const struct sg_routine_info *info = &sg_routines[c->routine];
    sg_observe_enter(&(struct sg_observed_call){
        .kind = SG_WATCH_COLLECTIVE, .routine = info->name, .comm = c->comm,
        .root = info->rooted ? c->root : SG_WATCH_NONE, .dest = SG_WATCH_NONE,
        .source = SG_WATCH_NONE, .collective = c});
    int err = protect(c);
    if (err == SG_CALL_AS_MADE)
        err = sg_call_invoke(&sg_pmpi, c);
    return sg_observe_leave(err);
}
