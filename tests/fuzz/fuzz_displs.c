/* Fuzz detector D: the input is a little-endian array of (count, displ) int
 * pairs. Whatever it holds, recovery must not crash, and what it accepts must
 * be a layout that the stored ints really are a truncation of. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "detectors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size / (2 * sizeof(int));
    int *counts = malloc((n ? n : 1) * sizeof *counts);
    int *displs = malloc((n ? n : 1) * sizeof *displs);
    int64_t *intended = malloc((n ? n : 1) * sizeof *intended);
    for (size_t i = 0; i < n; i++) {
        memcpy(&counts[i], data + 2 * i * sizeof(int), sizeof(int));
        memcpy(&displs[i], data + (2 * i + 1) * sizeof(int), sizeof(int));
    }

    int suspicious = sg_displs_suspicious(counts, displs, n);
    struct sg_displs_report r = sg_displs_recover(counts, displs, n, intended);
    if ((r.status == SG_DISPLS_INTACT) == suspicious)
        abort(); /* the cheap check and the full one must agree */
    if (r.status == SG_DISPLS_UNRECOVERABLE && (r.reason == NULL || r.index >= n))
        abort();
    if (r.status != SG_DISPLS_UNRECOVERABLE) {
        int64_t end = INT64_MIN;
        for (size_t i = 0; i < n; i++) {
            if ((uint32_t)intended[i] != (uint32_t)displs[i])
                abort(); /* not a truncation of the stored value */
            if (counts[i] == 0)
                continue;
            if (r.status == SG_DISPLS_RECOVERED && (intended[i] < end || intended[i] < 0))
                abort(); /* overlapping or descending blocks accepted */
            end = intended[i] + counts[i];
        }
    }
    free(counts);
    free(displs);
    free(intended);
    return 0;
}
