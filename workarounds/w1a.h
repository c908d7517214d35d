/* W1-A: shrink P (paper V-A). The call runs as sub-calls over
 * sub-communicators of at most `members` processes each, so that each
 * sub-call's global buffer is at most `members` blocks. The sub-calls are
 * of the same routine, except where another routine moves the same data
 * faster (Allgather pairs as Allgatherv, the reductions by parts below), and
 * only where the configuration lets that routine take it (runner->allows).
 *
 * Rooted routines: Gather(v), Scatter(v), Bcast, Reduce and their I-forms.
 * The root is in every group, except that Bcast by a blocking runner runs as
 * a tree: ranks that have the data pass it on in groups of their own, in
 * ceil(log_members P) rounds. In a group that does not hold the root's own
 * block the root takes part with MPI_IN_PLACE (Gather(v)/Reduce sendbuf,
 * Scatter(v) recvbuf), so it moves nothing of its own, and its buffer
 * pointer is moved so that the members' blocks land where the original call
 * puts them. Reduce carries the root's partial result from group to group
 * (MPI_IN_PLACE), which is exact only for operations whose result does not
 * depend on the grouping.
 *
 * Groups: consecutive ranks; the root's own group is the run of `members`
 * ranks around it (Class G). With displacement windows (Class D) each
 * window's ranks form the groups (split further when more than `members`),
 * and each group's displacements are rebased to the group's lowest block
 * (paper eq. 14). Every rank must pass the same `members` and windows.
 *
 * Reduce, where P has a grid (below) and the configuration lets the other
 * routines take their steps, runs by parts like Allreduce: along each row
 * to each member's part of the vector, the parts down the columns to the
 * root's row, and Gatherv of the parts to the root.
 *
 * Routines without a root, where every rank gets the whole result:
 *  - Allgather(v) and I-forms: one sub-call per pair of groups of at most
 *    members / 2 ranks, into a temporary of the pair's blocks that each rank
 *    copies out (the elements of a receive type with holes through
 *    MPI_Pack and MPI_Unpack, which leave the holes alone; a receive type
 *    of positive extent). The blocks land
 *    by their 64-bit displacements: a Class D layout needs no windows.
 *  - Allreduce, Reduce_scatter(_block) and I-forms: the ranks as a grid
 *    whose rows and columns have at most `members` ranks (exact operations
 *    only, as for Reduce; P must have such a grid). Reduce_scatter(_block):
 *    one sub-call down each column, then one along each row (Open MPI: one
 *    Reduce per block in each step, where the configuration lets Reduce
 *    take a block; MPICH: both steps in rounds of 4 MiB pieces of every
 *    block, where it lets Ireduce_scatter take a piece). Allreduce by
 *    parts: along each row a Reduce_scatter of the vector (Open MPI: one
 *    Reduce per part), an Allreduce of each part down its column, an
 *    Allgatherv of the parts along the row; each element is moved and
 *    combined once per step, where two Allreduce steps would combine the
 *    whole vector twice. Where the configuration knows Reduce_scatter (or
 *    Reduce) or Allgatherv broken at those sizes (runner->allows), the two
 *    Allreduce steps.
 *
 * Never for Alltoall(v) (paper Table X) nor the prefixes (Scan, Exscan and
 * I-forms): a prefix over groups is not the prefix over the communicator.
 *
 * The sub-communicators are made once per parent communicator and partition
 * and cached on the parent (an attribute): a repeated call creates none, and
 * freeing the parent frees them. They are created with
 * MPI_Comm_create_group (only a group's members take part) from W1-A's own
 * copy of the parent, so the creations never meet the application's
 * messages. Creating them blocks until the group's ranks take part, so
 * only a blocking runner creates them: a non-blocking one (an I-form call)
 * runs over those made already, and where they are missing returns
 * SG_W1A_UNMADE before communicating. Every rank of the parent makes and
 * reuses them in the same blocking calls, so every rank of a valid call
 * finds them made, or not, alike. A blocking call of the routine on the
 * parent makes those its I-form uses too (Bcast: its tree's groups and the
 * flat ones Ibcast runs). */
#ifndef SCALEGUARD_W1A_H
#define SCALEGUARD_W1A_H

#include "workarounds.h"

/* Whether W1-A can run this call on this rank with groups of at most
 * `members` processes (root included); on 0, *why gets a short static
 * reason. The answer is the same on every rank of a valid call. */
int sg_w1a_applies(const struct sg_call *c, const struct sg_described *d, int members,
                   const char **why);

/* Run the call as sub-calls over sub-communicators of at most `members`
 * processes each (root included). `w`: for Class D the
 * displacement windows with w->of[] filled on every rank (the layer
 * broadcasts it), and the groups follow them; otherwise SG_WINDOWS_ONE and
 * the groups are consecutive rank ranges. Returns an MPI error code,
 * SG_W1A_UNMADE (below), or -1 before any communication when it cannot apply: on every rank when
 * sg_w1a_applies says so, windows come with a rooted routine without
 * displacements, Allgather(v) needs more than 65 groups or an Allgatherv
 * block has more than INT_MAX / 2 elements, or a grid row's Reduce_scatter
 * counts sum past INT_MAX; and on the root of
 * Gatherv/Scatterv alone when a group's blocks span 2^32 extents or more
 * (the layer must then pass the windows of sg_windows_plan, within which
 * every group fits). Routines without a root ignore `w`.
 *
 * With a non-blocking runner every sub-call is started and kept, or queued
 * behind a fence where it takes an earlier one's partial result (runner.h):
 * the groups after the first of a Reduce, the reductions to all's second
 * step (by pieces, each step of each round), by parts the second and third.
 * With a blocking runner such a step runs in the blocking routine where the
 * configuration lets that take it (every member of its sub-communicator
 * judges alike). Allgather(v)'s copies out run when its
 * sub-calls are done. A blocking runner with `together` set
 * starts Gather(v)'s and Scatter(v)'s groups at once in the I-form and
 * returns when all are done; so must every rank's runner be set. */
int sg_w1a(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
           int members, const struct sg_windows *w);

/* What sg_w1a returns, before communicating, when a non-blocking runner
 * finds the call's sub-communicators not made yet (see above). */
#define SG_W1A_UNMADE (-2)
/* Why an I-form's W1-A waits for a blocking call (the layer's words). */
#define SG_W1A_UNMADE_WORDS                                                                   \
    "its communicators are made by a blocking call of the routine, and this non-blocking " \
    "call does not wait for the other ranks to make them"

/* Why a persistent call's plan is never W1-A (the layer's words). */
#define SG_W1A_KEPT_WORDS                                                                     \
    "its communicators are a cache that a later call may free before an MPI_Start of this " \
    "persistent call"

/* Whether W1-A's groups can run the call the layer chooses for (its row in
 * w1a.c), whether or not its communicators are made. */
struct sg_choice;
int sg_w1a_groups_fit(const struct sg_choice *ch);

/* Whether sg_w1a over `runner` (its `allows` as the run's) would find this
 * call's sub-communicators made: the groups worked out and looked up in
 * the cache, nothing run or made, the cache's order unchanged. */
int sg_w1a_made(const struct sg_runner *runner, const struct sg_call *c,
                const struct sg_described *d, int members, const struct sg_windows *w);

/* For tests: communicators W1-A has created so far, and how many of them
 * are alive now (sub-communicators and each parent's private copy). */
long sg_w1a_created(void);
long sg_w1a_alive(void);

#endif
