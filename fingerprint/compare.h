/* The running MPI against the bounds INI loaded (issue 21): its library
 * version and the fingerprint's control variables (read_cvars.h) against the
 * INI's [platform] mpi_library and [cvars]. The bounds hold for the MPI
 * they were measured on; a difference does not stop them (the layer warns,
 * naming what differs, and goes on protecting). */
#ifndef SCALEGUARD_FINGERPRINT_COMPARE_H
#define SCALEGUARD_FINGERPRINT_COMPARE_H

#include <stddef.h>

#include "bounds.h"

/* After MPI_Init. Writes into `message` (when something differs) what
 * differs: the library's first line, each control variable with the
 * value measured and the value now (up to `listed` of them, then how many
 * more; where the library differs and they are more, only how many),
 * `separator` between them, and returns how many things differ; 0: none, or
 * nothing to compare (no mpi_library, no [cvars]); -1: the tool interface failed
 * (`message` says how). Starts the tool interface when [cvars] is there,
 * and keeps it started until sg_fingerprint_stop (MPICH 4.0.2 cannot start
 * it again once stopped). */
int sg_fingerprint_compare(const struct sg_bounds *bounds, int listed, const char *separator,
                           char *message, size_t size);

/* Before MPI_Finalize: stops the tool interface if compare started it. */
void sg_fingerprint_stop(void);

#endif
