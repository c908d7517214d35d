/* The trace's clock: the processor's time-stamp counter where it runs at a
 * constant rate (x86 with an invariant TSC: a dozen nanoseconds a read, a
 * third of clock_gettime's), else CLOCK_REALTIME in nanoseconds. The file
 * dates ticks by pairs of (ticks, CLOCK_REALTIME) taken as it is written
 * (records.h: SG_RECORD_CLOCK). */
#ifndef SCALEGUARD_TRACE_TICKS_H
#define SCALEGUARD_TRACE_TICKS_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* Set once by sg_trace_start, before any call is traced. */
extern int sg_ticks_from_tsc;

static inline uint64_t sg_realtime_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uint64_t sg_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (sg_ticks_from_tsc)
        return __rdtsc();
#endif
    return sg_realtime_ns();
}

#endif
