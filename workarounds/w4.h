/* W4: another of the MPI's own algorithms. An entry's avoid_with names
 * control variables (MPI_T) that choose an algorithm with which the tester
 * checked every byte of the call past the bound, up to avoid_checked. For a
 * call that entry triggers, inside what was checked (its P, its trigger
 * value up to avoid_checked's; class X: its s too), the variables hold those
 * values during the call:
 *  - where the MPI reads them at every call (fingerprint/algorithms.h:
 *    MPICH, Open MPI's libnbc), written through MPI_T just before the call
 *    and restored after it (an I-form's after its start, when the MPI has
 *    built its schedule). Another thread's call meanwhile sees them too:
 *    calls under the bound come out the same with any algorithm;
 *  - where it reads them only at startup (Open MPI's coll_tuned, fixed
 *    when a communicator is made), only if the job was started with them:
 *    rank 0 tells at MPI_Init which environment setting would do.
 * The variables are scoped alike on every rank (MPI_T_SCOPE_ALL_EQ), so
 * every rank of the call sets them; whether W4 can run is agreed at
 * MPI_Init (protect/agree.c). */
#ifndef SCALEGUARD_W4_H
#define SCALEGUARD_W4_H

#include <stdint.h>

#include "bounds.h"
#include "workarounds.h"

/* At MPI_Init, after PMPI_Init, on every rank: when some entry has
 * avoid_with, starts the tool interface, finds each entry's variables and
 * whether W4 can set them. Returns a digest of what it found (0: no entry
 * has avoid_with), which the ranks must agree on. */
uint64_t sg_w4_start(const struct sg_bounds *bounds);

/* After the agreement: `agreed` 0 turns W4 off on every rank. Where `tells`
 * (rank 0), calls tell(message) once per entry whose W4 cannot run: why,
 * and where a setting of the job would let it, which; `path` names the INI. */
void sg_w4_settle(int agreed, int tells, const char *path, void (*tell)(const char *message));

/* Whether W4 can run a call of this shape (the layer's n, s, P) that entry
 * `e` triggered: same answer on every rank of the call. */
int sg_w4_applies(const struct sg_bound_entry *e, const struct sg_shape *sh);

/* "NAME=VALUE ...": what W4 sets for entry `e`, for the summary line. */
const char *sg_w4_settings(const struct sg_bound_entry *e);

/* The call itself with e's variables set. Returns an MPI error code, or -1
 * before communicating when it cannot set them. */
int sg_w4(struct sg_runner *runner, const struct sg_call *c, const struct sg_bound_entry *e);

/* Before MPI_Finalize: stops the tool interface if sg_w4_start started it. */
void sg_w4_stop(void);

#endif
