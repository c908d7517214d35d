/* The workarounds' large temporaries (W1-A's partial results, W1-B's
 * packed rounds), kept between calls.
 *
 * glibc serves a request above its mmap threshold (at most 32 MiB) with
 * fresh pages and unmaps them at free: a temporary of tens of MiB made on
 * every call pays one page fault per 4 KiB on every call (MPICH, W1-B
 * Reduce_scatter_block, 64 MiB at P = 2, its packed rounds: 114-130 ms a
 * call, 93-97 ms with the buffer kept), and an MPI that registers the
 * buffer for its transport registers it again. A temporary given back
 * here is kept (at most SG_SCRATCH_KEPT of them, the largest, each at
 * least SG_SCRATCH_MIN bytes) for the next call that needs about as much,
 * and released at MPI_Finalize. Thread-safe. */
#ifndef SCALEGUARD_SCRATCH_H
#define SCALEGUARD_SCRATCH_H

#include <stddef.h>

/* Blocks kept between calls: a blocking call holds at most two large
 * temporaries at once; the rest is for I-calls in flight. */
#define SG_SCRATCH_KEPT 4
/* Below this glibc's own free lists serve a size again. */
#define SG_SCRATCH_MIN ((size_t)1 << 20)

/* A temporary of at least `bytes` bytes (aligned as malloc aligns), a kept
 * one of at most twice that where there is one; NULL when out of memory. */
void *sg_scratch_get(size_t bytes);

/* Give back what sg_scratch_get returned (NULL: nothing); the signature of
 * sg_keep's release. */
void sg_scratch_put(void *memory);

/* Free the kept blocks (MPI_Finalize). */
void sg_scratch_release_all(void);

/* How many blocks are kept now, and how many bytes they hold (tests). */
int sg_scratch_kept(size_t *bytes);

#endif
