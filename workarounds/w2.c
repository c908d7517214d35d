/* W2 over the side description of workarounds.h: big datatypes. */
#include "workarounds.h"

#include <stdio.h>
#include <stdlib.h>

#include "sides.h"
#include "workaround.h"

/* The factor W2 divides a V side by: the gcd of its non-zero counts and
 * their displacements. 0 when the side has no data at all. */
static int64_t v_factor(const struct sg_side *side)
{
    int64_t k = 0;
    for (int i = 0; i < side->blocks; i++)
        if (sg_count_at(side->counts, i) > 0)
            k = sg_gcd(sg_gcd(k, sg_count_at(side->counts, i)), side->displs[i]);
    return k;
}

/* Whether a V side must change: a displacement beyond int, or a block above
 * the bound. */
static int v_side_needs(const struct sg_side *side, uint64_t max_count)
{
    return !v_side_fits(side) || (uint64_t)largest_block(side) > max_count;
}

static int v_side_w2_ok(const struct sg_side *side, uint64_t max_count)
{
    if (!v_side_needs(side, max_count))
        return 1;
    int64_t k = v_factor(side);
    if (k <= 1)
        return 0;
    for (int i = 0; !side->large && i < side->blocks; i++) /* a large-count form's are MPI_Aint */
        if (sg_count_at(side->counts, i) > 0 &&
            (side->displs[i] / k > INT_MAX || side->displs[i] / k < INT_MIN))
            return 0;
    return (uint64_t)(largest_block(side) / k) <= max_count;
}

/* How many elements of Allgatherv's own message W2 makes one: as many as
 * make one of its receive side's elements, so that the send element's size
 * is the receive element's on every rank. Open MPI 4.1.4 (coll_tuned)
 * picks Allgatherv's algorithm by the send type's size times the sum of
 * recvcounts, on each rank: with the message as it is, that size shrinks by
 * the receive side's factor (at 64 MiB over 4 ranks a gatherv and a bcast,
 * twice the bare call), and where the ranks' factors differ, so do their
 * algorithms (a hang: 1 x contiguous(c) sent where the others receive c
 * elements). With it, every rank sees the bare call's size. 0 (the message
 * as it is) in place, where the receive side stays as it is, or where the
 * send side cannot be cut so: the ranks' types then differ, and so may
 * their sizes, as without the layer (refusing W2 instead could part the
 * ranks' choices where they do not talk, Class D). */
static int64_t own_message_factor(const struct sg_described *d, uint64_t max_count)
{
    if (d->send.in_place || d->send.layout != SG_SIDE_SINGLE || d->recv.layout != SG_SIDE_V ||
        !v_side_needs(&d->recv, max_count))
        return 0;
    MPI_Count send_size = type_size(d->send.type);
    int64_t bytes = v_factor(&d->recv) * (int64_t)type_size(d->recv.type);
    if (send_size <= 0 || bytes % send_size != 0)
        return 0;
    int64_t m = bytes / send_size;
    return m <= INT_MAX && d->send.count % m == 0 ? m : 0;
}

int sg_w2_applies(const struct sg_call *c, const struct sg_described *d, uint64_t max_count,
                  const char **why)
{
    const char *refusal = NULL;
    if (is_reduction(c->routine))
        refusal = "an op is not defined on W2's larger elements";
    else if (max_count == 0)
        refusal = "the bound leaves no element of the call whole";
    else if (d->send.layout == SG_SIDE_W || d->recv.layout == SG_SIDE_W)
        refusal = "its displacements count bytes (Alltoallw, Neighbor_alltoallw), which "
                  "larger elements do not shrink";
    else if ((d->send.layout == SG_SIDE_V && !v_side_w2_ok(&d->send, max_count)) ||
             (d->recv.layout == SG_SIDE_V && !v_side_w2_ok(&d->recv, max_count)))
        refusal = "the counts and displacements share no factor that brings them under the "
                  "bound";
    if (refusal != NULL && why != NULL)
        *why = refusal;
    return refusal == NULL;
}

struct big_side {
    MPI_Datatype type;
    int *counts, *displs; /* a V side of an int form */
    MPI_Count *wide_counts; /* a V side of a large-count form */
    MPI_Aint *wide_displs;
};

/* k elements of `type` as one, in b->type (k past INT_MAX: a block of a
 * large-count form's call, made one element by the large-count
 * constructor of the MPI that has those forms). */
static int big_element(struct big_side *b, int64_t k, MPI_Datatype type)
{
#if SCALEGUARD_LARGE_COUNT
    int err = k <= INT_MAX ? PMPI_Type_contiguous((int)k, type, &b->type)
                           : PMPI_Type_contiguous_c(k, type, &b->type);
#else
    int err = k <= INT_MAX ? PMPI_Type_contiguous((int)k, type, &b->type) : MPI_ERR_COUNT;
#endif
    return err == MPI_SUCCESS ? PMPI_Type_commit(&b->type) : err;
}

/* `single`: how many elements of a SINGLE side become one (0: the side as
 * it is, its count elements). */
static int enlarge(struct big_side *b, const struct sg_side *side, int64_t single,
                   uint64_t max_count, MPI_Count *count, MPI_Datatype *type,
                   struct sg_counts *counts, struct sg_displs_array *displs)
{
    *b = (struct big_side){.type = MPI_DATATYPE_NULL};
    switch (side->layout) {
    case SG_SIDE_NONE:
    case SG_SIDE_PACKED:
    case SG_SIDE_W: /* never: sg_w2_applies refuses a W side */
        return MPI_SUCCESS;
    case SG_SIDE_SINGLE:
    case SG_SIDE_REGULAR: {
        /* A REGULAR side's n elements become one: its extent is n extents,
         * so block i still starts at i*n. */
        int64_t k = side->layout == SG_SIDE_REGULAR ? side->count : single;
        if (k == 0 || side->count == 0)
            return MPI_SUCCESS;
        int err = big_element(b, k, side->type);
        if (err != MPI_SUCCESS)
            return err;
        *count = side->count / k;
        *type = b->type;
        return MPI_SUCCESS;
    }
    case SG_SIDE_V: {
        /* unchanged (k = 1) still from the intended displacements */
        int procs = side->blocks;
        int64_t k = v_side_needs(side, max_count) ? v_factor(side) : 1;
        size_t blocks = (size_t)(procs > 0 ? procs : 1);
        if (side->large) {
            b->wide_counts = malloc(blocks * sizeof *b->wide_counts);
            b->wide_displs = malloc(blocks * sizeof *b->wide_displs);
            if (b->wide_counts == NULL || b->wide_displs == NULL)
                return MPI_ERR_NO_MEM;
        } else if ((b->counts = malloc(2 * blocks * sizeof *b->counts)) == NULL) {
            return MPI_ERR_NO_MEM;
        } else {
            b->displs = b->counts + procs;
        }
        for (int i = 0; i < procs; i++) {
            MPI_Count count = sg_count_at(side->counts, i);
            int64_t displ = count ? side->displs[i] / k : 0;
            if (side->large) {
                b->wide_counts[i] = count / k;
                b->wide_displs[i] = displ;
            } else { /* both fit: v_side_w2_ok */
                b->counts[i] = (int)(count / k);
                b->displs[i] = (int)displ;
            }
        }
        if (k > 1) {
            int err = big_element(b, k, side->type);
            if (err != MPI_SUCCESS)
                return err;
            *type = b->type;
        }
        *counts = side->large ? SG_COUNTS(b->wide_counts) : SG_COUNTS(b->counts);
        *displs = side->large ? SG_DISPLS(b->wide_displs) : SG_DISPLS(b->displs);
        return MPI_SUCCESS;
    }
    }
    return MPI_SUCCESS;
}

static void shrink(struct big_side *b)
{
    if (b->type != MPI_DATATYPE_NULL)
        PMPI_Type_free(&b->type);
}

int sg_w2(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
          uint64_t max_count)
{
    if (!sg_w2_applies(c, d, max_count, NULL))
        return -1;
    struct sg_call sub = *c;
    struct big_side send, recv;
    int64_t single = sg_blocking_form(c->routine) == SG_MPI_Allgatherv
                         ? own_message_factor(d, max_count)
                         : d->send.count;
    int err = enlarge(&send, &d->send, single, max_count, &sub.sendcount,
                      &sub.sendtype, &sub.sendcounts, &sub.sdispls);
    if (err == MPI_SUCCESS)
        err = enlarge(&recv, &d->recv, d->recv.count, max_count, &sub.recvcount,
                      &sub.recvtype, &sub.recvcounts, &sub.rdispls);
    else
        recv = (struct big_side){.type = MPI_DATATYPE_NULL};
    if (err == MPI_SUCCESS)
        err = sg_run(runner, &sub);
    /* MPI keeps a datatype that a started operation uses; the counts and
     * displacements must live until it is done */
    shrink(&send);
    shrink(&recv);
    void *arrays[] = {send.counts, send.wide_counts, send.wide_displs,
                      recv.counts, recv.wide_counts, recv.wide_displs};
    int kept = MPI_SUCCESS;
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
        int k = sg_keep(runner, free, arrays[i]);
        kept = kept == MPI_SUCCESS ? k : kept;
    }
    return err != MPI_SUCCESS ? err : kept;
}

/* ---- W2's row (workaround.h) ---------------------------------------------- */

/* Not for a reduction (an op on a k-element type is not defined), nor
 * where the trigger depends on s. Where W1-B counts in basic elements
 * (by_basic: the ranks' datatypes may differ), whether W2 is chosen must
 * not depend on this rank's datatype, or some ranks would cut in rounds
 * while others make one call: it is judged in basic elements, and a rank
 * whose one element holds more basic elements than the bound allows makes
 * the call as it is (run_w2: sg_w2 refuses), which is one call too. */
static int w2_fits(const struct sg_choice *ch, const char **why)
{
    if (!ch->v->w2_valid_trigger) {
        *why = "the bound's trigger depends on s, which W2 changes";
        return 0;
    }
    return sg_w2_applies(ch->c, ch->d, sg_in_units(ch->v->max_count, ch->d, ch->sh), why);
}

static int w2_applies(const struct sg_choice *ch)
{
    const char *why;
    return w2_fits(ch, &why);
}

static enum sg_unavailable w2_unavailable(const struct sg_choice *ch, char *why, size_t size)
{
    const char *words = "";
    w2_fits(ch, &words);
    snprintf(why, size, "%s", words);
    return SG_UNAVAILABLE_CANNOT_APPLY;
}

static int run_w2(struct sg_runner *runner, const struct sg_call *c, const struct sg_run_with *r)
{
    return sg_w2(runner, c, r->d, sg_in_own_elements(r->v->max_count, r->sh));
}

static void refused_w2(char *words, size_t size, const struct sg_call *c,
                       const struct sg_run_with *r)
{
    (void)c;
    (void)r;
    snprintf(words, size,
             "cannot cut this rank's layout (one element of its datatype is over the bound)");
}

static void how_w2(char *how, size_t size, const struct sg_call *c, const struct sg_run_with *r)
{
    (void)c;
    (void)r;
    snprintf(how, size, "W2");
}

const struct sg_workaround_op sg_w2_op = {
    .name = SG_WORKAROUND_W2, .kind = SG_PLAN_W2, .local = 1, .applies = w2_applies,
    .plan = sg_one_call_plan, .unavailable = w2_unavailable, .run = run_w2,
    .refused = refused_w2, .how = how_w2};
