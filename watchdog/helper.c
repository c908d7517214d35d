/* The watchdog's helper thread: see watch.h. It makes no MPI call.
 *
 * Every `period` (a quarter of the limit's half, at most 1 s) it looks at
 * the record. A state that has held a quarter of the limit is written to
 * DIR/<job>/rank-N (write, then rename: a reader sees a whole file), so a
 * busy rank writes nothing and a stuck one within a fraction of the limit.
 * When its rank has been in one call past the limit, the first rank to
 * take DIR/<job>/report (O_EXCL) reads every rank's file, tells, and keeps
 * what it read in DIR/<job>/hang-K (the K-th report of the job), which
 * MPI_Finalize leaves; the others stay quiet. The report is taken again
 * only after that call ends (report: a later hang is told too). Every file
 * and directory is made through files/safe_file.h: the directories 0700,
 * the files 0600, never through a link. */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_file.h"

static struct {
    double limit, period;
    enum sg_watch_action action;
    char dir[PATH_MAX - 64];   /* DIR/<job>, absolute; room left for a file's name */
    char base[PATH_MAX - 256]; /* DIR; room left for <job> */
    char job[128];
    int base_fd, dir_fd;       /* the checked directories (safe_file.h) */
    int default_base;          /* DIR is the layer's own, removed when empty */
    int rank, procs, pid;
    char host[64];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop, running;
} helper = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
          .base_fd = -1, .dir_fd = -1};

static void rank_file(int rank, char *name, size_t size)
{
    snprintf(name, size, "rank-%d", rank);
}

/* Written whole (write, then rename): returns 0, or -1 with `why`. */
static int write_state(struct sg_watch_view *v, char *why, size_t why_size)
{
    char text[2048], name[32];
    int length = sg_watch_format(v, text, sizeof text);
    if (length < 0 || (size_t)length >= sizeof text) {
        snprintf(why, why_size, "its state does not fit %zu bytes", sizeof text);
        return -1;
    }
    rank_file(helper.rank, name, sizeof name);
    return sg_safe_replace(helper.dir_fd, name, text, (size_t)length, 0600, 0, why, why_size);
}

/* Rank `rank`'s state as its file tells it (SG_WATCH_MISSING without one). */
static void read_state(int rank, struct sg_watch_view *v)
{
    char name[32], text[2048], error[128];
    rank_file(rank, name, sizeof name);
    int fd = sg_safe_open_read(helper.dir_fd, name);
    ssize_t got = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0)
        close(fd);
    text[got > 0 ? got : 0] = '\0';
    if (got <= 0 || sg_watch_parse(text, v, error, sizeof error) != 0) {
        memset(v, 0, sizeof *v);
        v->kind = SG_WATCH_MISSING;
    }
    v->rank = rank;
}

/* Keep what a report read: the report, then every rank's state as read,
 * in hang-K (the first K free). Returns 0 with its name, or -1. */
static int keep_states(const char *report, const struct sg_watch_view *views, char *name,
                       size_t name_size)
{
    int fd = -1;
    for (int k = 1; k <= 1000 && fd < 0; k++) {
        snprintf(name, name_size, "hang-%d", k);
        fd = sg_safe_create(helper.dir_fd, name, 0600);
        if (fd < 0 && errno != EEXIST)
            return -1;
    }
    if (fd < 0)
        return -1;
    int failed = sg_safe_write_all(fd, report, strlen(report)) != 0;
    for (int r = 0; r < helper.procs && !failed; r++) {
        char text[2048];
        int length = sg_watch_format(&views[r], text, sizeof text);
        failed = length < 0 || (size_t)length >= sizeof text ||
                 sg_safe_write_all(fd, "\n", 1) != 0 ||
                 sg_safe_write_all(fd, text, (size_t)length) != 0;
    }
    return close(fd) == 0 && !failed ? 0 : -1;
}

/* Its rank has been in one call past the limit: read every rank's state
 * and, unless another rank is telling already, tell. A held send is told
 * only where it closes a cycle (a potential deadlock); otherwise it goes
 * on as if buffered, as the MPI would have let it. Returns whether it
 * told. */
static int take_report(void);

static int look(const struct sg_watch_view *own, double now)
{
    struct sg_watch_view *views = calloc((size_t)helper.procs, sizeof *views);
    int *cycle = malloc((size_t)helper.procs * sizeof *cycle);
    size_t size = 4096 + (size_t)(helper.procs < 64 ? helper.procs : 64) * 512;
    char *text = malloc(size);
    int told = 0;
    if (views == NULL || cycle == NULL || text == NULL) {
        if (!own->held && (told = take_report()))
            fprintf(stderr, "scaleguard: watchdog: rank %d has been in %s for %.1f s (limit %g "
                            "s); no memory to read the other ranks' states\n",
                    helper.rank, own->routine, now - own->since, helper.limit);
    } else {
        for (int r = 0; r < helper.procs; r++)
            if (r == helper.rank)
                views[r] = *own;
            else
                read_state(r, &views[r]);
        if ((!own->held || sg_watch_cycle(views, helper.procs, helper.rank, cycle) > 0) &&
            (told = take_report())) {
            int length = sg_watch_diagnose(views, helper.procs, helper.rank, now, helper.limit,
                                           text, size);
            const char *cut = (size_t)length >= size ? "\n" : "";
            char kept[32];
            if (keep_states(text, views, kept, sizeof kept) == 0)
                fprintf(stderr, "%s%sscaleguard: watchdog: the states it read are kept in "
                                "%s/%s\n", text, cut, helper.dir, kept);
            else
                fprintf(stderr, "%s%sscaleguard: watchdog: the states it read could not be "
                                "kept in %s (%s)\n", text, cut, helper.dir, strerror(errno));
        }
    }
    fflush(stderr);
    free(views);
    free(cycle);
    free(text);
    return told;
}

/* The right to report (one rank of the job at a time). */
static int take_report(void)
{
    int fd = sg_safe_create(helper.dir_fd, "report", 0600);
    if (fd < 0)
        return 0;
    dprintf(fd, "rank %d\n", helper.rank);
    close(fd);
    return 1;
}

static void give_report_back(void) { unlinkat(helper.dir_fd, "report", 0); }

static void *watch(void *unused)
{
    (void)unused;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* the application's signals are not ours */
    uint64_t written = UINT64_MAX, looked_at = UINT64_MAX, reporting = UINT64_MAX;
    struct sg_watch_view own = {.rank = helper.rank, .pid = helper.pid};
    snprintf(own.host, sizeof own.host, "%s", helper.host);
    pthread_mutex_lock(&helper.lock);
    while (!helper.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double at = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + helper.period;
        until.tv_sec = (time_t)at;
        until.tv_nsec = (long)((at - (double)until.tv_sec) * 1e9);
        pthread_cond_timedwait(&helper.wake, &helper.lock, &until);
        if (helper.stop)
            break;
        pthread_mutex_unlock(&helper.lock);
        sg_watch_snapshot(&own);
        double now = sg_watch_now(), held = now - own.since;
        char ignored[256]; /* a state not written: the next one is */
        if (own.serial != written && held >= helper.limit / 4) {
            write_state(&own, ignored, sizeof ignored);
            written = own.serial;
        }
        if (reporting != UINT64_MAX && own.serial != reporting) {
            give_report_back(); /* the call it told about has ended */
            reporting = UINT64_MAX;
        }
        if (sg_watch_kind_blocks(own.kind) && own.kind != SG_WATCH_FINALIZE &&
            held >= helper.limit && own.serial != looked_at) {
            looked_at = own.serial; /* once per call */
            if (look(&own, now)) {
                reporting = own.serial;
                if (helper.action == SG_WATCH_ABORT) {
                    fprintf(stderr, "scaleguard: watchdog: ending the job (exit code %d from "
                                    "rank %d)\n", SG_WATCH_ABORT_CODE, helper.rank);
                    _exit(SG_WATCH_ABORT_CODE);
                }
            }
        }
        pthread_mutex_lock(&helper.lock);
    }
    pthread_mutex_unlock(&helper.lock);
    return NULL;
}

/* Close the directories, removing the job's (checked: the job's own) and
 * the layer's default DIR when empty: the last rank out removes them. */
static void close_directories(void)
{
    if (helper.dir_fd >= 0) {
        close(helper.dir_fd);
        unlinkat(helper.base_fd, helper.job, AT_REMOVEDIR);
    }
    if (helper.base_fd >= 0) {
        close(helper.base_fd);
        if (helper.default_base)
            rmdir(helper.base);
    }
    helper.dir_fd = helper.base_fd = -1;
}

int sg_watch_start(double seconds, enum sg_watch_action action, const char *job, char *why,
                   size_t why_size)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &helper.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &helper.procs);
    helper.pid = (int)getpid();
    if (gethostname(helper.host, sizeof helper.host - 1) != 0)
        snprintf(helper.host, sizeof helper.host, "?");
    helper.limit = seconds;
    helper.period = seconds / 8 < 1 ? seconds / 8 : 1;
    helper.action = action;
    const char *dir = getenv("SCALEGUARD_WATCHDOG_DIR");
    char cwd[PATH_MAX / 2] = "", reason[256];
    helper.default_base = dir == NULL || *dir == '\0';
    if (helper.default_base)
        dir = ".scaleguard-watchdog";
    if (dir[0] != '/' && getcwd(cwd, sizeof cwd) == NULL) /* the program may change it */
        cwd[0] = '\0';
    snprintf(helper.job, sizeof helper.job, "%s", job);
    int fits = snprintf(helper.base, sizeof helper.base, "%s%s%s", cwd, cwd[0] ? "/" : "", dir) <
                   (int)sizeof helper.base &&
               snprintf(helper.dir, sizeof helper.dir, "%s/%s", helper.base, job) <
                   (int)sizeof helper.dir;
    if (!fits)
        snprintf(why, why_size, "%s/%s: %s", helper.base, job, strerror(ENAMETOOLONG));
    else if ((helper.base_fd = sg_safe_dir(helper.base, 1, NULL, reason, sizeof reason)) < 0)
        snprintf(why, why_size, "%s %s", helper.base, reason);
    else if ((helper.dir_fd = sg_safe_subdir(helper.base_fd, job, 1, NULL, reason,
                                             sizeof reason)) < 0)
        snprintf(why, why_size, "%s %s", helper.dir, reason);
    if (helper.dir_fd < 0) {
        close_directories();
        return -1;
    }
    /* rank 0 started first: a rank that does not see its file is on a node
     * that does not share the directory, where a report would call the
     * ranks of the other nodes gone, and each node report on its own */
    char rank0[32];
    rank_file(0, rank0, sizeof rank0);
    struct stat status;
    if (helper.rank != 0 && fstatat(helper.dir_fd, rank0, &status, AT_SYMLINK_NOFOLLOW) != 0) {
        snprintf(why, why_size, "%s is not shared with rank 0's node: %s does not see rank 0's "
                 "state file there (SCALEGUARD_WATCHDOG_DIR must be a directory every node of "
                 "the job sees)", helper.dir, helper.host);
        close_directories();
        return -1;
    }
    sg_watch_mark(SG_WATCH_OUTSIDE, "");
    struct sg_watch_view own = {.rank = helper.rank, .pid = helper.pid};
    snprintf(own.host, sizeof own.host, "%s", helper.host);
    sg_watch_snapshot(&own);
    char name[32];
    rank_file(helper.rank, name, sizeof name);
    if (write_state(&own, reason, sizeof reason) != 0) { /* from now on, no file: finished */
        snprintf(why, why_size, "%s/%s %s", helper.dir, name, reason);
        close_directories();
        return -1;
    }
    return 0;
}

void sg_watch_discard(void)
{
    char name[32];
    rank_file(helper.rank, name, sizeof name);
    unlinkat(helper.dir_fd, name, 0);
    close_directories();
}

int sg_watch_run(void)
{
    atomic_store(&sg_watching, 1);
    if (pthread_create(&helper.thread, NULL, watch, NULL) != 0) {
        atomic_store(&sg_watching, 0);
        fprintf(stderr, "scaleguard: watchdog: no helper thread; rank %d is not watched\n",
                helper.rank);
        return -1;
    }
    helper.running = 1;
    return 0;
}

double sg_watch_hold_seconds(void) { return helper.limit + 4 * helper.period; }

int sg_watch_ending(void)
{
    struct stat status;
    return helper.action == SG_WATCH_ABORT && helper.dir_fd >= 0 &&
           fstatat(helper.dir_fd, "report", &status, AT_SYMLINK_NOFOLLOW) == 0;
}

void sg_watch_finalizing(void)
{
    if (atomic_load(&sg_watching))
        sg_watch_mark(SG_WATCH_FINALIZE, "MPI_Finalize");
}

void sg_watch_stop(void)
{
    if (!helper.running)
        return;
    atomic_store(&sg_watching, 0);
    pthread_mutex_lock(&helper.lock);
    helper.stop = 1;
    pthread_cond_signal(&helper.wake);
    pthread_mutex_unlock(&helper.lock);
    pthread_join(helper.thread, NULL);
    helper.running = 0;
    sg_watch_discard(); /* a report's hang-K keeps the directory */
}
