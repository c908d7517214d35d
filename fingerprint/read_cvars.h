/* The platform fingerprint (issue 21): the control variables through which
 * the running MPI selects and tunes its collectives' algorithms, read
 * through the MPI tool interface by a rule per MPI, not a list by hand:
 *  - MPICH: the variables of the MPI_T category COLLECTIVE (228 in 4.0.2:
 *    each collective's _INTRA_ALGORITHM, _INTER_ALGORITHM and
 *    _DEVICE_COLLECTIVE, their thresholds and parameters);
 *  - Open MPI: those of the category ompi_coll and its subcategories, the
 *    coll framework's components (coll_tuned_*_algorithm and the rest);
 *  - on both, without the verbosity variables (names ending in _verbose),
 *    and without those bound to an object, or of a type other than an
 *    integer, a double or a string (none here); another MPI: none.
 * Values as text: integers in decimal (an enumeration's by its number),
 * doubles as %.17g, strings as they are, cut to SG_CVAR_VALUE_MAX - 1
 * bytes with control characters and ';' replaced (they fit an INI line). */
#ifndef SCALEGUARD_FINGERPRINT_READ_CVARS_H
#define SCALEGUARD_FINGERPRINT_READ_CVARS_H

#include <stddef.h>

#include "cvars.h"

struct sg_cvars_read {
    struct sg_cvar *cvars; /* in the MPI's order; free() */
    size_t count;
    char rule[128];        /* which rule chose them, as [platform] cvars_rule says */
};

/* Reads them; the tool interface must be started (MPI_T_init_thread).
 * Returns 0, or -1 with what failed in `why`. */
int sg_cvars_read(struct sg_cvars_read *out, char *why, size_t why_size);

#endif
