#include "ranges.h"

#include <stdio.h>
#include <stdlib.h>

int sg_ranges_format(const int *ranks, int count, char *out, size_t size)
{
    size_t at = 0;
    if (size > 0)
        out[0] = '\0';
    int i = 0;
    while (i < count) {
        int j = i;
        while (j + 1 < count && ranks[j + 1] == ranks[j] + 1)
            j++;
        int n = j > i ? snprintf(out + at, size - at, "%s%d-%d", at ? "," : "", ranks[i], ranks[j])
                      : snprintf(out + at, size - at, "%s%d", at ? "," : "", ranks[i]);
        if (n < 0 || (size_t)n >= size - at) {
            out[at] = '\0'; /* the run that does not fit goes */
            break;
        }
        at += (size_t)n;
        i = j + 1;
    }
    return i;
}

int sg_ranges_contain(const char *ranges, int rank)
{
    for (const char *p = ranges; *p;) {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p)
            return 0;
        if (*end == '-') {
            const char *q = end + 1;
            last = strtol(q, &end, 10);
            if (end == q)
                return 0;
        }
        if (rank >= first && rank <= last)
            return 1;
        if (*end != ',')
            return 0;
        p = end + 1;
    }
    return 0;
}
