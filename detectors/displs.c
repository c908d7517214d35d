/* Detector D and the recovery of wrapped displacement arrays (DESIGN.md,
 * "Class D"; the paper's eq. 4-6 with its typo corrected). */
#include "detectors.h"

static struct sg_displs_report unrecoverable(size_t index, const char *reason)
{
    return (struct sg_displs_report){SG_DISPLS_UNRECOVERABLE, index, reason};
}

struct sg_displs_report sg_displs_recover(const int *counts, const int *displs, size_t n,
                                          int64_t *intended)
{
    return sg_displs_recover_spans(counts, NULL, displs, n, intended);
}

struct sg_displs_report sg_displs_recover_spans(const int *counts, const int64_t *spans,
                                                const int *displs, size_t n, int64_t *intended)
{
    /* The true distance between two consecutive non-empty blocks is
     * count + gap; it is recovered modulo 2^32 from the stored ints. A wrap
     * is told apart from a genuinely descending layout by the gap: a real
     * layout keeps the gap under 2^31, while reading a descent as a wrap
     * produces a gap of at least 2^32 - 2^31 minus the count. */
    const int64_t max_gap = INT32_MAX;
    struct sg_displs_report report = {SG_DISPLS_INTACT, 0, 0};
    size_t previous = n; /* index of the previous non-empty block, none yet */

    for (size_t i = 0; i < n; i++)
        intended[i] = displs[i];
    if (!sg_displs_suspicious(counts, displs, n))
        return report; /* overlapping send blocks are legal: only judge what wrapped */

    for (size_t i = 0; i < n; i++) {
        if (counts[i] < 0)
            return unrecoverable(i, "negative count");
        if (counts[i] == 0)
            continue;
        if (previous == n) {
            if (displs[i] < 0)
                return unrecoverable(i, "the first non-empty block has a negative displacement");
        } else {
            uint32_t step = (uint32_t)displs[i] - (uint32_t)displs[previous];
            int64_t gap = (int64_t)step - (spans ? spans[previous] : counts[previous]);
            if (gap < 0)
                return unrecoverable(i, "blocks overlap");
            if (gap > max_gap)
                return unrecoverable(i, "the layout is not non-descending");
            intended[i] = intended[previous] + step;
            if (report.status == SG_DISPLS_INTACT && intended[i] != displs[i])
                report = (struct sg_displs_report){SG_DISPLS_RECOVERED, i, 0};
        }
        previous = i;
    }
    return report;
}
