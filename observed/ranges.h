/* Sets of ranks written as ranges ("0-3,8"): how the layer's messages and
 * files name them. Pure C. */
#ifndef SCALEGUARD_RANGES_H
#define SCALEGUARD_RANGES_H

#include <stddef.h>

/* Write `count` ranks, in their order, into `out` (a NUL-terminated string
 * of at most `size` bytes): a run of consecutive ranks as "first-last",
 * runs separated by ",". As many whole runs as fit. Returns how many ranks
 * were written: `count` when all fit. */
int sg_ranges_format(const int *ranks, int count, char *out, size_t size);

/* Whether `rank` is in `ranges` (as sg_ranges_format writes them). */
int sg_ranges_contain(const char *ranges, int rank);

#endif
