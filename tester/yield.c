/* libscaleguard-yield.so: preloaded into every rank of the tester's jobs, it
 * lets a rank that waits inside the MPI give its CPU to the rank it waits for.
 *
 * MPICH 4.0.2 (ch4:ucx) waits by polling ucp_worker_progress in a loop that
 * never sleeps. With more ranks than cores (P = 3 to 8 on this 2-core node) a
 * waiting rank spins until the kernel's tick takes its CPU away, so every
 * exchange of a pipelined algorithm costs a tick: MPI_Allgatherv at P = 4 and
 * 2^25 bytes a block took 24.9 s, and a probe's job at 2^30, slower than its
 * limit, was taken for a hang. Here a rank whose poll found nothing for
 * SPIN_NS sleeps for the timer's slack (about 50 us), and the rank it waits
 * for runs: the same call takes 0.34 s (tester/README.md). The MPI's code and
 * data path are its own: the wrapper calls the real function and only decides
 * what the caller does between two polls.
 *
 * Built for MPICH only: Open MPI 4.1.4's poll, opal_progress, sums its
 * callbacks' returns, and one returns garbage (a rank waiting alone saw 45
 * million polls all "positive" in one run, all negative in the next), so
 * nothing tells its idle polls from the others. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

/* Below 20 us of fruitless polling a rank keeps spinning: without ranks in
 * excess the peer is running and answers within microseconds (MPICH's
 * Allgatherv at P = 2 lost 8x to a sleep at every empty poll, 2x at 20 us). */
enum { SPIN_NS = 20000 };

static _Thread_local int idle;
static _Thread_local struct timespec idle_since;

static long long ns_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000000000LL + (now.tv_nsec - start->tv_nsec);
}

/* After one poll that handled `events`. */
static void after_poll(long events)
{
    if (events) {
        idle = 0;
    } else if (!idle) {
        idle = 1;
        clock_gettime(CLOCK_MONOTONIC, &idle_since);
    } else if (ns_since(&idle_since) >= SPIN_NS) {
        const struct timespec shortest = {0, 1};
        nanosleep(&shortest, 0);
    }
}

typedef unsigned (*ucp_progress_fn)(void *worker);
unsigned ucp_worker_progress(void *worker);
unsigned ucp_worker_progress(void *worker)
{
    static ucp_progress_fn real; /* the one past this library */
    if (!real)
        real = (ucp_progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    unsigned events = real(worker);
    after_poll(events);
    return events;
}
