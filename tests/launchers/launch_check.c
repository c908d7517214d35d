/* launch_check: what the launcher tests start on P ranks.
 *
 *   launch_check EXPECTED_SIZE VARIABLE MODE [CODE]
 *
 * Every rank checks that MPI_COMM_WORLD has EXPECTED_SIZE ranks (a launcher
 * that starts P separate 1-rank jobs must not pass), then prints one line
 *   launch_check: rank R of S: VARIABLE=VALUE preloaded=yes|no
 * where preloaded tells whether launch_preload.so is in the process. Then:
 *   ok       every rank exits 0
 *   exit     every rank exits CODE (after MPI_Finalize)
 *   segv     the last rank dies of SIGSEGV, the others wait in a barrier
 *   hang     rank 0 sleeps forever ignoring SIGTERM, the others wait in a barrier
 *   oom      every rank allocates and touches memory until it gets no more,
 *            then says "cannot allocate memory" and exits 1; it stops at
 *            CODE MiB (default 4096) with exit 6, so a limit that is not
 *            enforced cannot take the whole machine down
 * A wrong world size exits 7. */
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CHUNK = 16 << 20 };

/* The chunks stay reachable so the compiler cannot drop the allocations. */
struct chunk {
    struct chunk *next;
};

static int oom(int rank, size_t cap)
{
    struct chunk *head = NULL;
    size_t total = 0;
    while (total < cap) {
        struct chunk *c = malloc(CHUNK);
        if (c == NULL)
            break;
        memset(c, rank + 1, CHUNK); /* touch it: a cgroup limit counts resident pages */
        c->next = head;
        head = c;
        total += CHUNK;
    }
    if (total >= cap) {
        fprintf(stderr, "launch_check: rank %d: no limit met below %zu MiB\n", rank, cap >> 20);
        return 6;
    }
    fprintf(stderr, "launch_check: rank %d: cannot allocate memory after %zu MiB: %s\n", rank,
            total >> 20, strerror(ENOMEM));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s EXPECTED_SIZE VARIABLE ok|exit CODE|segv|hang|oom [MiB]\n",
                argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *value = getenv(argv[2]);
    void *self = dlopen(NULL, RTLD_NOW);
    int preloaded = self != NULL && dlsym(self, "launch_preload_marker") != NULL;
    printf("launch_check: rank %d of %d: %s=%s preloaded=%s\n", rank, size, argv[2],
           value ? value : "(unset)", preloaded ? "yes" : "no");
    fflush(stdout);
    if (size != atoi(argv[1])) {
        fprintf(stderr, "launch_check: rank %d: world size %d, expected %s\n", rank, size,
                argv[1]);
        return 7; /* no MPI_Finalize: the other "jobs" are singletons too */
    }

    const char *mode = argv[3];
    int code = 0;
    if (strcmp(mode, "exit") == 0 && argc == 5) {
        code = atoi(argv[4]);
    } else if (strcmp(mode, "segv") == 0) {
        if (rank == size - 1) {
            signal(SIGSEGV, SIG_DFL); /* past the MPI library's own backtrace handler */
            raise(SIGSEGV);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "abort") == 0) {
        /* as MPICH's internal assertion ends a rank, seen as SIGKILL in the
         * log (mpiexec's clean-up reports a killed rank), not the OOM killer */
        if (rank == size - 1) {
            fprintf(stderr, "Abort(1) on node %d: Internal error\n", rank);
            fflush(stderr);
            raise(SIGKILL);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "hang") == 0) {
        if (rank == 0) {
            signal(SIGTERM, SIG_IGN); /* only SIGKILL ends it */
            for (;;)
                pause();
        }
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "oom") == 0) {
        return oom(rank, (argc == 5 ? strtoull(argv[4], NULL, 10) : 4096) << 20);
    } else if (strcmp(mode, "ok") != 0) {
        fprintf(stderr, "launch_check: unknown mode %s\n", mode);
        code = 2;
    }
    MPI_Finalize();
    return code;
}
