/* The plan of one protected call: what every rank must run alike, why a
 * call is left as it is, and the agreement where the ranks cannot work out
 * their part alone (plan_agreement.c). Internal to protect/. */
#ifndef SCALEGUARD_PLAN_H
#define SCALEGUARD_PLAN_H

#include <stdint.h>

#include "bounds.h"
#include "collective.h"
#include "workaround.h"


/* Why a triggered call is left as it is. Each reason is reported once per
 * routine and process, by the rank that decided; MPI_Finalize counts the
 * calls (sg_count). */
enum left_reason {
    LEFT_DISPLS,        /* Class D: the displacements cannot be recovered */
    LEFT_NO_WORKAROUND, /* no workaround can guarantee the result */
    LEFT_CANNOT_CUT,    /* W1-B cannot cut this rank's layout, so no rank cuts */
    LEFT_REFUSED,       /* the engine refused the plan */
    LEFT_NEEDS_MESSAGE, /* W1-B needs windows the non-roots could learn only from the root */
    LEFT_WINDOWS_DIFFER, /* the ranks' layouts need different windows */
    LEFT_SPLIT_RISK,    /* a reduction whose split could change its bits (sg_split_risk) */
    LEFT_TOO_MANY_ROUNDS, /* W1-B would make more sub-calls than SG_W1B_MAX_SUBCALLS */
    LEFT_MIXED_TYPES,   /* the ranks' datatypes differ so that they would not cut alike */
    LEFT_W1A_UNMADE,    /* a W1-A plan whose communicators an I-form has not made yet, or a
                         * persistent call would keep (w1a.h) */
    LEFT_REASONS
};

/* Each reason as a word, for the trace's records (trace/FORMAT.md: why=). */
static const char *const left_reason_words[LEFT_REASONS] = {
    [LEFT_DISPLS] = "displs",           [LEFT_NO_WORKAROUND] = "no-workaround",
    [LEFT_CANNOT_CUT] = "cannot-cut",   [LEFT_REFUSED] = "refused",
    [LEFT_NEEDS_MESSAGE] = "needs-message", [LEFT_WINDOWS_DIFFER] = "windows-differ",
    [LEFT_SPLIT_RISK] = "split-risk",   [LEFT_TOO_MANY_ROUNDS] = "too-many-rounds",
    [LEFT_MIXED_TYPES] = "mixed-types", [LEFT_W1A_UNMADE] = "w1a-unmade",
};

/* The agreement of a call whose ranks cannot work out their part alone
 * (`talks` in decide, protect.c), so never for Class D alone: Gatherv/Scatterv's
 * root sends its plan in an Allreduce (and windows after it); Allgatherv's
 * ranks compare their needs and windows in one Allreduce. Both compare the
 * ranks' datatypes' signature lengths too (sg_shape). Updates *plan and *why; off the
 * root of Gatherv/Scatterv, *told gets what the root said and *windows
 * points to it. Returns an MPI error code. */
int sg_agree_on_plan(const struct sg_call *c, const struct sg_shape *sh,
                     const struct sg_w1b_fit *fit, struct sg_plan *plan, int *why,
                     struct sg_windows *told, const struct sg_windows **windows);

#endif
