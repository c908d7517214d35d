/* The watchdog's helper thread: see watch.h. It makes no MPI call.
 *
 * Every `period` (a quarter of the limit's half, at most 1 s) it looks at
 * the record. A state that has held a quarter of the limit is written to
 * DIR/<job>/rank-N (write, then rename: a reader sees a whole file), so a
 * busy rank writes nothing and a stuck one within a fraction of the limit.
 * When its rank has been in one call past the limit, the first rank to
 * take DIR/<job>/report (O_EXCL) reads every rank's file and tells; the
 * others stay quiet. The report is taken again only after that call ends
 * (report: a later hang is told too). */
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

static struct {
    double limit, period;
    enum sg_watch_action action;
    char dir[PATH_MAX - 64];   /* DIR/<job>, absolute; room left for a file's name */
    char base[PATH_MAX - 256]; /* DIR; room left for <job> */
    int default_base;        /* DIR is the layer's own, removed when empty */
    int rank, procs, pid;
    char host[64];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop, running;
} helper = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static void rank_file(int rank, char *path, size_t size, const char *suffix)
{
    snprintf(path, size, "%s/rank-%d%s", helper.dir, rank, suffix);
}

static void write_state(struct sg_watch_view *v)
{
    char text[2048], path[PATH_MAX], temporary[PATH_MAX];
    int length = sg_watch_format(v, text, sizeof text);
    if (length < 0 || (size_t)length >= sizeof text)
        return;
    rank_file(helper.rank, path, sizeof path, "");
    rank_file(helper.rank, temporary, sizeof temporary, ".new");
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t written = write(fd, text, (size_t)length);
    close(fd);
    if (written == length)
        rename(temporary, path);
}

/* Rank `rank`'s state as its file tells it (SG_WATCH_MISSING without one). */
static void read_state(int rank, struct sg_watch_view *v)
{
    char path[PATH_MAX], text[2048], error[128];
    rank_file(rank, path, sizeof path, "");
    FILE *file = fopen(path, "re");
    size_t length = file ? fread(text, 1, sizeof text - 1, file) : 0;
    if (file)
        fclose(file);
    text[length] = '\0';
    if (file == NULL || sg_watch_parse(text, v, error, sizeof error) != 0) {
        memset(v, 0, sizeof *v);
        v->kind = SG_WATCH_MISSING;
    }
    v->rank = rank;
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
            fprintf(stderr, "%s%sscaleguard: watchdog: the states are in %s\n", text,
                    (size_t)length >= size ? "\n" : "", helper.dir);
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
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/report", helper.dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return 0;
    dprintf(fd, "rank %d\n", helper.rank);
    close(fd);
    return 1;
}

static void give_report_back(void)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/report", helper.dir);
    unlink(path);
}

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
        if (own.serial != written && held >= helper.limit / 4) {
            write_state(&own);
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

static int make_directory(const char *path)
{
    return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

int sg_watch_start(double seconds, enum sg_watch_action action, const char *job)
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
    char cwd[PATH_MAX / 2] = "";
    helper.default_base = dir == NULL || *dir == '\0';
    if (helper.default_base)
        dir = ".scaleguard-watchdog";
    if (dir[0] != '/' && getcwd(cwd, sizeof cwd) == NULL) /* the program may change it */
        cwd[0] = '\0';
    int fits = snprintf(helper.base, sizeof helper.base, "%s%s%s", cwd, cwd[0] ? "/" : "", dir) <
                   (int)sizeof helper.base &&
               snprintf(helper.dir, sizeof helper.dir, "%s/%s", helper.base, job) <
                   (int)sizeof helper.dir;
    errno = ENAMETOOLONG;
    if (!fits || make_directory(helper.base) != 0 || make_directory(helper.dir) != 0) {
        fprintf(stderr, "scaleguard: watchdog: cannot make %s (%s); rank %d is not watched\n",
                helper.dir, strerror(errno), helper.rank);
        return -1;
    }
    sg_watch_mark(SG_WATCH_OUTSIDE, "");
    struct sg_watch_view own = {.rank = helper.rank, .pid = helper.pid};
    snprintf(own.host, sizeof own.host, "%s", helper.host);
    sg_watch_snapshot(&own);
    write_state(&own); /* from now on, no file means finished */
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
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/report", helper.dir);
    return helper.action == SG_WATCH_ABORT && access(path, F_OK) == 0;
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
    char path[PATH_MAX];
    rank_file(helper.rank, path, sizeof path, "");
    unlink(path);
    rank_file(helper.rank, path, sizeof path, ".new");
    unlink(path);
    rmdir(helper.dir); /* the last rank out removes it; a report keeps it */
    if (helper.default_base)
        rmdir(helper.base);
}
