/* The bounds INI: the shipped files, every rejected input with its line, the
 * warnings, and sg_bounds_replace (round trip, merge, atomic refusal). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounds.h"
#include "check.h"

/* ---- helpers -------------------------------------------------------------- */

struct warnings {
    size_t count;
    char messages[16][512];
};

static void collect(void *context, const char *message)
{
    struct warnings *w = context;
    if (w->count < 16)
        snprintf(w->messages[w->count], sizeof w->messages[0], "%s", message);
    w->count++;
}

static int load_string(const char *text, struct sg_bounds *bounds, struct warnings *w,
                       char *error, size_t error_size)
{
    return sg_bounds_load_text(text, strlen(text), "t.ini", bounds, w ? collect : NULL, w, error,
                               error_size);
}

/* The message is "t.ini:LINE: ..." and holds `what`. */
static int message_is(const char *message, unsigned line, const char *what)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "t.ini:%u: ", line);
    return strncmp(message, prefix, strlen(prefix)) == 0 && strstr(message, what) != NULL;
}

static char *read_text(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    size_t size = 0, capacity = 4096;
    char *data = malloc(capacity);
    size_t got;
    while (data && (got = fread(data + size, 1, capacity - size - 1, file)) > 0) {
        size += got;
        if (capacity - size < 2) {
            char *grown = realloc(data, capacity * 2);
            if (!grown) {
                free(data);
                data = NULL;
                break;
            }
            data = grown;
            capacity *= 2;
        }
    }
    fclose(file);
    if (data)
        data[size] = '\0';
    return data;
}

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL);
    if (!file)
        return;
    fputs(text, file);
    fclose(file);
}

static const struct sg_bound_entry *find_entry(const struct sg_bounds *bounds, const char *routine,
                                               unsigned ordinal)
{
    for (size_t i = 0; i < bounds->count; i++)
        if (strcmp(sg_routines[bounds->entries[i].routine].name, routine) == 0 &&
            bounds->entries[i].ordinal == ordinal)
            return &bounds->entries[i];
    return NULL;
}

static char temporary_dir[256];

static void path_in_temporary(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s", temporary_dir, name);
}

/* ---- the shipped files ---------------------------------------------------- */

static void test_example(void)
{
    struct sg_bounds b;
    struct warnings w = {0};
    char error[512] = "";
    int status =
        sg_bounds_load(SG_CONFIGS_DIR "/example.ini", &b, collect, &w, error, sizeof error);
    CHECK(status == 0);
    if (status != 0) {
        fprintf(stderr, "example.ini: %s\n", error);
        return;
    }
    CHECK_U64(w.count, 0);
    CHECK_STR(b.platform.mpi_library, "MPICH Version:\t4.0.2");
    CHECK_STR(b.platform.hostname, "node01");
    CHECK_STR(b.platform.measured, "2026-11-21T21:00:00Z");
    CHECK_STR(b.platform.launcher, "local");
    CHECK_STR(b.platform.cvars_rule, "MPI_T category COLLECTIVE, without *_verbose");
    CHECK(b.checks.collectives == 0 && b.checks.collectives_line == 39);
    CHECK(b.checks.warn == 0 && b.checks.action_line == 40);
    CHECK_U64(b.count, 6);
    CHECK_U64(b.cvar_count, 2);
    if (b.cvar_count == 2) {
        CHECK_STR(b.cvars[0].name, "MPIR_CVAR_BCAST_INTRA_ALGORITHM");
        CHECK_STR(b.cvars[0].value, "0");
        CHECK_STR(b.cvars[1].value, "12288");
        char digest[17];
        snprintf(digest, sizeof digest, "%016" PRIx64, sg_cvars_digest(b.cvars, b.cvar_count));
        CHECK_STR(b.platform.cvars_digest, digest);
    }

    int classes[3] = {0};
    for (size_t i = 0; i < b.count; i++)
        classes[b.entries[i].cls]++;
    CHECK(classes[SG_CLASS_D] >= 1 && classes[SG_CLASS_G] >= 1 && classes[SG_CLASS_X] >= 1);

    const struct sg_bound_entry *e = find_entry(&b, "MPI_Scatter", 1);
    CHECK(e != NULL && e == &b.entries[0]);
    if (e) {
        CHECK(e->cls == SG_CLASS_G);
        CHECK(e->trigger == SG_TRIGGER_SNP);
        CHECK_U64(e->bound, 2100000000);
        CHECK_U64(e->type_size, 1);
        CHECK_U64(e->procs, 3);
        CHECK_U64(e->safe_count, 700000000);
        CHECK_U64(e->delta, 50000000);
        CHECK(e->failure == SG_FAILURE_CRASH);
        CHECK(e->workaround == SG_WORKAROUND_AUTO);
        CHECK(!e->inplace);
        CHECK_STR(e->safe_seconds, "");
        CHECK_STR(e->fail_seconds, "");
    }
    e = find_entry(&b, "MPI_Scatter", 2);
    CHECK(e != NULL && e == &b.entries[1]);
    if (e) {
        CHECK(e->cls == SG_CLASS_G);
        CHECK(e->trigger == SG_TRIGGER_NP);
        CHECK_U64(e->bound, 4294967295u);
        CHECK_U64(e->type_size, 0);
        CHECK_U64(e->procs, 0);
        CHECK(e->failure == SG_FAILURE_WRONG_DATA);
        CHECK(e->workaround == SG_WORKAROUND_W1B);
        CHECK_U64(e->nodes, 1); /* no nodes key: measured on one node */
    }
    e = find_entry(&b, "MPI_Scatter", 3);
    CHECK(e != NULL && e == &b.entries[2]);
    if (e) { /* the same routine measured across 2 nodes */
        CHECK(e->cls == SG_CLASS_G && e->trigger == SG_TRIGGER_SNP);
        CHECK_U64(e->bound, 1050000000);
        CHECK_U64(e->procs, 4);
        CHECK_U64(e->nodes, 2);
    }
    e = find_entry(&b, "MPI_Alltoall", 1);
    CHECK(e != NULL);
    if (e) {
        CHECK(e->cls == SG_CLASS_X);
        CHECK(e->trigger == SG_TRIGGER_N);
        CHECK_U64(e->bound, 268435455);
        CHECK_U64(e->type_size, 8);
        CHECK_U64(e->procs, 4);
        CHECK_U64(e->safe_count, 268435455);
        CHECK_U64(e->delta, 16777216);
        CHECK(e->failure == SG_FAILURE_MPI_ERROR);
        CHECK(e->workaround == SG_WORKAROUND_W1B);
        /* The worked example of the X policy in the file's comment. */
        int exact = 1;
        CHECK_U64(sg_x_effective_bound(e->bound, e->type_size, e->procs, 16, 4, &exact),
                  134217727);
        CHECK(!exact);
    }
    e = find_entry(&b, "MPI_Allgather", 1);
    CHECK(e != NULL);
    if (e) {
        CHECK(e->cls == SG_CLASS_G);
        CHECK(e->trigger == SG_TRIGGER_SNP);
        CHECK_U64(e->bound, 1073741824);
        CHECK_U64(e->safe_count, 268435456);
        CHECK(e->failure == SG_FAILURE_SLOW);
        CHECK_STR(sg_failure_name(e->failure), "slow");
        CHECK_STR(e->safe_seconds, "1.93");
        CHECK_STR(e->fail_seconds, "27.4");
        CHECK(e->inplace);
    }
    e = find_entry(&b, "MPI_Gatherv", 1);
    CHECK(e != NULL);
    if (e) {
        CHECK(e->cls == SG_CLASS_D);
        CHECK_U64(e->bound, 0);
        CHECK_U64(e->type_size, 1);
        CHECK_U64(e->procs, 4);
        CHECK(e->failure == SG_FAILURE_CRASH);
    }
    sg_bounds_free(&b);
    CHECK(b.entries == NULL && b.count == 0);
}

/* The platform files are the tester's output (scripts/probe-platform.sh):
 * the numbers come from measurements, so what is checked is what they must
 * say about DESIGN.md's measured problems: the class and trigger, a bound
 * within one search step of the true one, and the real calls on each side. */
static void test_platform_files(void)
{
    struct sg_bounds b;
    struct warnings w = {0};
    char error[512] = "";
    const struct sg_bound_entry *e;

    int status = sg_bounds_load(SG_CONFIGS_DIR "/debian12-mpich-4.0.2.ini", &b, collect, &w,
                                error, sizeof error);
    CHECK(status == 0);
    if (status == 0) {
        CHECK_STR(b.platform.mpi_library, "MPICH Version:\t4.0.2");
        CHECK_STR(b.platform.launcher, "local");
#if SCALEGUARD_LARGE_COUNT && SCALEGUARD_PERSISTENT
        CHECK_U64(w.count, 0);
        CHECK_U64(b.count, 112); /* the full probe: 50 of the 126 routines fail */
#else
        /* built for an MPI without the large-count and persistent forms, the
         * layer knows the int-count routines' 34 entries and warns of the rest */
        CHECK(w.count > 0);
        CHECK_U64(b.count, 34);
#endif
        CHECK_U64(b.cvar_count, 228); /* MPI_T category COLLECTIVE */
        CHECK(strlen(b.platform.cvars_digest) == 16);
        e = find_entry(&b, "MPI_Scatter", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_G && e->trigger == SG_TRIGGER_SNP &&
              e->procs == 4 && e->bound == 4 * e->safe_count && !e->inplace);
        e = find_entry(&b, "MPI_Scatter", 2);
        CHECK(e != NULL);
        if (e) {
            /* bytes per rank times P > INT_MAX crashes, at P = 3 */
            CHECK(e->cls == SG_CLASS_G && e->trigger == SG_TRIGGER_SNP);
            CHECK_U64(e->type_size, 1);
            CHECK_U64(e->procs, 3);
            CHECK_U64(e->bound, 3 * e->safe_count);
            CHECK(e->bound <= 2147483647u && 2147483647u < e->bound + 3 * e->delta);
            CHECK(e->failure == SG_FAILURE_CRASH);
            /* 700M passes, 750M crashes (DESIGN.md) */
            CHECK(!sg_trigger_exceeds(e->trigger, 1, 700000000, 3, e->bound));
            CHECK(sg_trigger_exceeds(e->trigger, 1, 750000000, 3, e->bound));
        }
        e = find_entry(&b, "MPI_Gatherv", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_D && e->procs == 4 &&
              e->failure == SG_FAILURE_CRASH);
        /* the sum of the counts past 3 Gi - 96 Mi crashes, at P = 3 */
        e = find_entry(&b, "MPI_Reduce_scatter", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_X && e->trigger == SG_TRIGGER_N &&
              e->procs == 3 && e->bound == e->safe_count && e->failure == SG_FAILURE_CRASH);
#if SCALEGUARD_LARGE_COUNT
        /* The large-count forms: MPI_Scatter_c crashes where MPI_Scatter does
         * (the P = 3, 750M chars); past INT_MAX, the in-place
         * MPI_Gather_c returns wrong data at P = 4 and MPI_Allgatherv_c at
         * P = 2 (2^31 elements: a C int inside them) */
        e = find_entry(&b, "MPI_Scatter_c", 2);
        CHECK(e != NULL && e->cls == SG_CLASS_G && e->trigger == SG_TRIGGER_SNP &&
              e->procs == 3 && e->failure == SG_FAILURE_CRASH &&
              sg_trigger_exceeds(e->trigger, 1, 750000000, 3, e->bound));
        e = find_entry(&b, "MPI_Gather_c", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_X && e->trigger == SG_TRIGGER_N &&
              e->procs == 4 && e->inplace && e->bound == 2147483647u &&
              e->failure == SG_FAILURE_WRONG_DATA);
        /* (class G with trigger nP there, as its I-form: the same 2^31 - 1
         * elements a rank at P = 2) */
        e = find_entry(&b, "MPI_Allgatherv_c", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_G && e->trigger == SG_TRIGGER_NP &&
              e->procs == 2 && !e->inplace && e->bound == 2u * 2147483647u &&
              e->failure == SG_FAILURE_WRONG_DATA &&
              !sg_trigger_exceeds(e->trigger, 1, 2147483647u, 2, e->bound) &&
              sg_trigger_exceeds(e->trigger, 1, 2147483648u, 2, e->bound));
#endif
        /* MPI_Alltoallw's byte displacements wrap in place (Class D), and the
         * neighbourhood Allgatherv's */
        e = find_entry(&b, "MPI_Alltoallw", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_D && e->procs == 4 && e->inplace &&
              e->failure == SG_FAILURE_CRASH);
        e = find_entry(&b, "MPI_Neighbor_allgatherv", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_D && e->failure == SG_FAILURE_CRASH);
        /* MPI_Scan passes up to the memory limit: no entry */
        CHECK(find_entry(&b, "MPI_Scan", 1) == NULL);
        sg_bounds_free(&b);
    } else {
        fprintf(stderr, "%s\n", error);
    }

    w.count = 0;
    status = sg_bounds_load(SG_CONFIGS_DIR "/debian12-openmpi-4.1.4.ini", &b, collect, &w, error,
                            sizeof error);
    CHECK(status == 0);
    if (status == 0) {
        CHECK_U64(w.count, 0);
        CHECK(strncmp(b.platform.mpi_library, "Open MPI v4.1.4", 15) == 0);
        CHECK_STR(b.platform.launcher, "local");
        CHECK_U64(b.count, 21); /* the full probe: 14 routines */
        /* Alltoallw's byte displacements wrap in place (Class D), measured at
         * P = 4 where they wrap first, under the memory limit */
        e = find_entry(&b, "MPI_Alltoallw", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_D && e->procs == 4 && e->inplace &&
              e->safe_count == 704643072u && e->failure == SG_FAILURE_CRASH);
        CHECK_U64(b.cvar_count, 193); /* ompi_coll and its subcategories */
        CHECK(strlen(b.platform.cvars_digest) == 16);
        e = find_entry(&b, "MPI_Reduce_scatter", 1);
        CHECK(e != NULL);
        if (e) {
            /* the sum of the counts (the layer's n) > INT_MAX fails at s = 1,
             * P = 2; the runs that would make it class G do not fit 24 GiB */
            CHECK(e->cls == SG_CLASS_X && e->trigger == SG_TRIGGER_N);
            CHECK_U64(e->type_size, 1);
            CHECK_U64(e->procs, 2);
            CHECK_U64(e->bound, e->safe_count);
            CHECK(e->bound <= 2147483647u && 2147483647u < e->bound + e->delta);
            CHECK(e->failure == SG_FAILURE_MPI_ERROR);
            /* {1.0e9, 1.0e9} passes, {1.1e9, 1.1e9} fails (DESIGN.md) */
            CHECK(!sg_trigger_exceeds(e->trigger, 1, 2000000000, 2, e->bound));
            CHECK(sg_trigger_exceeds(e->trigger, 1, 2200000000u, 2, e->bound));
        }
        /* in place, the same bound; Table IX's runs fitted there: class G */
        e = find_entry(&b, "MPI_Reduce_scatter", 2);
        CHECK(e != NULL && e->cls == SG_CLASS_G && e->trigger == SG_TRIGGER_N &&
              e->inplace && e->bound == 2080374784u && e->failure == SG_FAILURE_MPI_ERROR);
        /* an in-place Alltoall of 1 Gi elements per block crashes at P = 3 */
        e = find_entry(&b, "MPI_Alltoall", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_X && e->trigger == SG_TRIGGER_N && e->inplace &&
              e->procs == 3 && e->bound == 1040187392u && e->failure == SG_FAILURE_CRASH);
        e = find_entry(&b, "MPI_Gatherv", 1);
        CHECK(e != NULL && e->cls == SG_CLASS_D && e->procs == 4 &&
              e->failure == SG_FAILURE_CRASH);
        sg_bounds_free(&b);
    } else {
        fprintf(stderr, "%s\n", error);
    }
}

/* ---- what is accepted ----------------------------------------------------- */

/* [checks]: each key's value and line; absent keys keep line 0. */
static void test_checks_section(void)
{
    struct sg_bounds b;
    char error[512] = "";
    const char *text = "[checks]\ncollectives = yes ; on for every job\n\n"
                       "[MPI_Scatterv]\nclass = D\n[checks#2]\n";
    int status = load_string(text, &b, NULL, error, sizeof error);
    CHECK(status == 0);
    CHECK(b.checks.collectives == 1);
    CHECK_U64(b.checks.collectives_line, 2);
    CHECK_U64(b.checks.action_line, 0);
    CHECK_U64(b.count, 1);
    sg_bounds_free(&b);
    status = load_string("[checks]\naction = warn\ncollectives = no\nbatch = 64\n", &b, NULL,
                         error, sizeof error);
    CHECK(status == 0);
    CHECK(b.checks.collectives == 0 && b.checks.warn == 1);
    CHECK(b.checks.batch == 64 && b.checks.batch_line == 4);
    CHECK_U64(b.checks.collectives_line, 3);
    CHECK_U64(b.checks.action_line, 2);
    sg_bounds_free(&b);
}

static void test_accepted_forms(void)
{
    struct sg_bounds b;
    char error[512] = "";
    /* Indented keys (no continuation lines), CRLF, a BOM, inline comments,
     * ':' as separator, the largest number, an empty platform value. */
    const char *text = "\xEF\xBB\xBF  [platform]\r\n"
                       "  hostname = \r\n"
                       "launcher: slurm ; a comment\r\n"
                       "\r\n"
                       "   [MPI_Ialltoallv#7] ; entry 7\r\n"
                       "    class = D\r\n"
                       "[MPI_Bcast]\n"
                       "class = G\n"
                       "trigger = n\n"
                       "bound = 18446744073709551615\n"
                       "safe_count = 0\n"
                       "delta = 0\n"
                       "failure = hang\n"
                       "workaround = none";
    int status = load_string(text, &b, NULL, error, sizeof error);
    CHECK(status == 0);
    if (status != 0) {
        fprintf(stderr, "%s\n", error);
        return;
    }
    CHECK_STR(b.platform.hostname, "");
    CHECK_STR(b.platform.launcher, "slurm");
    CHECK_U64(b.checks.collectives_line, 0); /* no [checks]: absent */
    CHECK_U64(b.checks.action_line, 0);
    CHECK_U64(b.count, 2);
    if (b.count == 2) {
        CHECK(b.entries[0].routine == SG_MPI_Ialltoallv);
        CHECK_U64(b.entries[0].ordinal, 7);
        CHECK_U64(b.entries[0].line, 5);
        CHECK(b.entries[0].cls == SG_CLASS_D);
        CHECK(b.entries[0].failure == SG_FAILURE_UNKNOWN);
        CHECK(b.entries[0].workaround == SG_WORKAROUND_AUTO);
        CHECK(b.entries[1].routine == SG_MPI_Bcast);
        CHECK_U64(b.entries[1].line, 7);
        CHECK_U64(b.entries[1].bound, UINT64_MAX);
        CHECK(b.entries[1].failure == SG_FAILURE_HANG);
        CHECK(b.entries[1].workaround == SG_WORKAROUND_NONE);
    }
    sg_bounds_free(&b);

    /* inplace, failure = slow and the seconds at their limits; inplace = no
     * is allowed on Bcast, which has no in-place form. */
    text = "[MPI_Reduce]\n"
           "class = G\n"
           "trigger = sn\n"
           "bound = 100\n"
           "failure = slow\n"
           "inplace = yes\n"
           "safe_seconds = 0\n"
           "fail_seconds = 18446744073709551615.000000001\n"
           "[MPI_Ibcast]\n"
           "class = G\n"
           "trigger = n\n"
           "bound = 1\n"
           "inplace = no\n"
           "safe_seconds = 007.5\n";
    status = load_string(text, &b, NULL, error, sizeof error);
    CHECK(status == 0);
    if (status != 0)
        fprintf(stderr, "%s\n", error);
    CHECK_U64(b.count, 2);
    if (b.count == 2) {
        CHECK(b.entries[0].failure == SG_FAILURE_SLOW);
        CHECK(b.entries[0].inplace);
        CHECK_STR(b.entries[0].safe_seconds, "0");
        CHECK_STR(b.entries[0].fail_seconds, "18446744073709551615.000000001");
        CHECK(!b.entries[1].inplace);
        CHECK_STR(b.entries[1].safe_seconds, "007.5");
        CHECK_STR(b.entries[1].fail_seconds, "");
    }
    sg_bounds_free(&b);

    /* nodes: 1 where absent, any count up to procs, and without procs any
     * positive count; on every class (D: where it was seen). */
    text = "[MPI_Allgather]\n"
           "class = G\n"
           "trigger = n\n"
           "bound = 1000\n"
           "[MPI_Allgather#2]\n"
           "class = G\n"
           "trigger = n\n"
           "bound = 1000\n"
           "procs = 4\n"
           "nodes = 4\n"
           "[MPI_Gather]\n"
           "nodes = 2\n"
           "class = X\n"
           "bound = 9\n"
           "type_size = 1\n"
           "procs = 2\n"
           "[MPI_Gatherv]\n"
           "class = D\n"
           "nodes = 18446744073709551615\n";
    status = load_string(text, &b, NULL, error, sizeof error);
    CHECK(status == 0);
    if (status != 0)
        fprintf(stderr, "%s\n", error);
    CHECK_U64(b.count, 4);
    if (b.count == 4) {
        CHECK_U64(b.entries[0].nodes, 1);
        CHECK_U64(b.entries[1].nodes, 4);
        CHECK_U64(b.entries[2].nodes, 2);
        CHECK_U64(b.entries[3].nodes, UINT64_MAX);
    }
    sg_bounds_free(&b);

    /* Empty text, and text without [platform], have no entries. */
    CHECK(sg_bounds_load_text("", 0, "t.ini", &b, NULL, NULL, error, sizeof error) == 0);
    CHECK_U64(b.count, 0);
    CHECK_STR(b.platform.launcher, "");
    sg_bounds_free(&b);
    CHECK(load_string("; nothing\n\n", &b, NULL, error, sizeof error) == 0);
    CHECK_U64(b.count, 0);
    sg_bounds_free(&b);

    /* A line of 199 characters is the longest inih takes whole. */
    char longest[300];
    memset(longest, 'x', sizeof longest);
    memcpy(longest, "hostname = ", 11);
    snprintf(longest + 199, sizeof longest - 199, "\n");
    char text_long[400];
    snprintf(text_long, sizeof text_long, "[platform]\n%s", longest);
    status = load_string(text_long, &b, NULL, error, sizeof error);
    CHECK(status == 0);
    CHECK_U64(strlen(b.platform.hostname), 199 - 11);
    sg_bounds_free(&b);
}

/* ---- what is rejected, and where ------------------------------------------ */

struct bad_case {
    const char *text;
    unsigned line;
    const char *what;
};

#define G_HEAD "[MPI_Scatter]\nclass = G\ntrigger = snP\n"

static const struct bad_case bad_cases[] = {
    /* inih syntax */
    {"[platform]\nlauncher = local\nno separator here\n", 3, "expected 'key = value'"},
    {"; c\n[MPI_Scatter\nclass = G\n", 2, "without a closing ']'"},
    {"[MPI_Scatter ; comment]\n", 1, "without a closing ']'"},
    /* values */
    {"[MPI_Scatter]\nclass = Q\n", 2, "unknown class 'Q'"},
    {"[MPI_Scatter]\nclass = g\n", 2, "unknown class"},
    {"[MPI_Scatter]\nclass = G\ntrigger = snp\nbound = 1\n", 3, "unknown trigger 'snp'"},
    {G_HEAD "bound = abc\n", 4, "bad number"},
    {G_HEAD "bound =\n", 4, "bad number"},
    {G_HEAD "bound = 12x\n", 4, "bad number"},
    {G_HEAD "bound = +5\n", 4, "bad number"},
    {G_HEAD "bound = 1e9\n", 4, "bad number"},
    {G_HEAD "bound = 2 000\n", 4, "bad number"},
    {G_HEAD "bound = 18446744073709551616\n", 4, "bad number"},
    {G_HEAD "bound = 99999999999999999999999\n", 4, "bad number"},
    {G_HEAD "bound = -5\n", 4, "negative"},
    {G_HEAD "bound = 1\nsafe_count = -1\n", 5, "negative"},
    {G_HEAD "bound = 1\ndelta = x\n", 5, "bad number"},
    {G_HEAD "bound = 0\n", 4, "bound must be > 0"},
    {G_HEAD "bound = 5\ntype_size = 0\n", 5, "type_size must be > 0"},
    {G_HEAD "bound = 5\nprocs = 0\n", 5, "procs must be > 0"},
    {G_HEAD "bound = 5\nnodes = 0\n", 5, "nodes must be > 0"},
    {G_HEAD "bound = 5\nnodes = -2\n", 5, "negative number for nodes: '-2'"},
    {G_HEAD "bound = 5\nnodes = two\n", 5, "bad number for nodes: 'two' (plain decimal"},
    {G_HEAD "bound = 5\nnodes = 2.5\n", 5, "bad number for nodes: '2.5'"},
    {G_HEAD "bound = 5\nnodes =\n", 5, "bad number for nodes: the value is empty"},
    {G_HEAD "bound = 5\nnodes = 18446744073709551616\n", 5, "bad number for nodes"},
    {G_HEAD "nodes = 2\nbound = 5\nnodes = 2\n", 6, "duplicate key 'nodes' in [MPI_Scatter] (first at line 4)"},
    {G_HEAD "bound = 5\nnodes = 5\nprocs = 4\n", 5, "nodes 5 exceeds procs 4"},
    {"[MPI_Gatherv]\nclass = D\nprocs = 2\n\nnodes = 3\n", 5, "nodes 3 exceeds procs 2"},
    {G_HEAD "bound = 5\nfailure = segfault\n", 5, "unknown failure 'segfault'"},
    {G_HEAD "bound = 5\nfailure = unknown\n", 5, "unknown failure"},
    {G_HEAD "bound = 5\nworkaround = W5\n", 5, "unknown workaround 'W5'"},
    {G_HEAD "bound = 5\nfailure = slower\n", 5, "wrong-data or slow)"},
    {G_HEAD "bound = 5\ninplace = maybe\n", 5, "inplace must be yes or no, not 'maybe'"},
    {G_HEAD "bound = 5\ninplace = Yes\n", 5, "inplace must be yes or no"},
    {G_HEAD "bound = 5\ninplace =\n", 5, "inplace must be yes or no"},
    {G_HEAD "bound = 5\ninplace = no\ninplace = no\n", 6, "duplicate key 'inplace'"},
    {"[MPI_Bcast]\nclass = G\ntrigger = n\nbound = 5\ninplace = yes\n", 5,
     "MPI_Bcast has no in-place form"},
    {"[MPI_Ibcast#2]\ninplace = yes\nclass = G\n", 2, "MPI_Ibcast has no in-place form"},
    {G_HEAD "bound = 5\nsafe_seconds = 1e3\n", 5, "bad seconds for safe_seconds: '1e3'"},
    {G_HEAD "bound = 5\nsafe_seconds = -1\n", 5, "negative seconds for safe_seconds"},
    {G_HEAD "bound = 5\nfail_seconds = -0.5\n", 5, "negative seconds for fail_seconds"},
    {G_HEAD "bound = 5\nfail_seconds = +1\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds = 1.\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds = .5\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds = 0.1234567891\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds = 1.2.3\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds = 1,5\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds = 0.5s\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds = inf\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds =\n", 5, "bad seconds"},
    {G_HEAD "bound = 5\nfail_seconds = 123456789012345678901\n", 5, "bad seconds"},
    {"[platform]\nlauncher = pbs\n", 2, "launcher must be local or slurm"},
    {"[checks]\ncollectives = on\n", 2, "collectives must be yes or no, not 'on'"},
    {"[checks]\naction = exit\n", 2, "action must be warn or abort, not 'exit'"},
    {"[checks]\nbatch = 2000\n", 2, "batch must be from 1 to 1024, not 2000"},
    {"[checks]\n\nbatch = 0\n", 3, "batch"},
    {"[checks]\ncollectives = yes\ncollectives = no\n", 3, "duplicate key 'collectives'"},
    {"[checks]\n[platform]\n[checks]\n", 3, "duplicate section [checks]"},
    /* required keys: the line of the section header */
    {"[platform]\n\n[MPI_Scatter]\nclass = G\ntrigger = snP\n", 3, "class G needs a bound"},
    {"[MPI_Scatter]\nclass = G\nbound = 5\n", 1, "class G needs a trigger"},
    {"[MPI_Gather]\nclass = X\ntype_size = 1\nprocs = 2\n", 1, "class X needs a bound"},
    {"[MPI_Gather]\nclass = X\nbound = 9\nprocs = 2\n", 1, "class X needs type_size"},
    {"[MPI_Gather]\nclass = X\nbound = 9\ntype_size = 1\n", 1, "class X needs procs"},
    {"[MPI_Gather]\nclass = X\ntrigger = snP\nbound = 9\ntype_size = 1\nprocs = 2\n", 3,
     "class X takes only trigger = n"},
    {"[MPI_Scatter]\nbound = 5\n", 1, "has no class"},
    {"[platform]\n[MPI_Scatter]\n[MPI_Bcast]\nclass = D\n", 2, "[MPI_Scatter] has no class"},
    {"[MPI_Scatter]\n", 1, "has no class"},
    {"[MPI_Scatter]\nclass = D\n", 2, "class D applies only to the v-routines"},
    {"[MPI_Ireduce_scatter_block#3]\n\nclass = D\n", 3, "class D applies only to the v-routines"},
    /* duplicates */
    {G_HEAD "bound = 5\nbound = 6\n", 5, "duplicate key 'bound'"},
    {G_HEAD "class = G\nbound = 5\n", 4, "duplicate key 'class'"},
    {"[platform]\nhostname = a\nhostname = b\n", 3, "duplicate key 'hostname'"},
    {G_HEAD "bound = 5\n\n" G_HEAD "bound = 5\n", 6, "duplicate section [MPI_Scatter]"},
    {"[platform]\n[MPI_Bcast]\nclass = G\ntrigger = n\nbound = 1\n[platform]\n", 6,
     "duplicate section [platform]"},
    {"[MPI_Gatherv#2]\nclass = D\n[MPI_Gatherv]\nclass = D\n[MPI_Gatherv#2]\nclass = D\n", 5,
     "duplicate section [MPI_Gatherv#2]"},
    /* entry numbers */
    {"[MPI_Scatter#1]\nclass = G\n", 1, "bad entry number"},
    {"[MPI_Scatter#0]\n", 1, "bad entry number"},
    {"[MPI_Scatter#02]\n", 1, "bad entry number"},
    {"[MPI_Scatter#]\n", 1, "bad entry number"},
    {"[MPI_Scatter#x]\n", 1, "bad entry number"},
    {"[MPI_Scatter#-2]\n", 1, "bad entry number"},
    {"[MPI_Scatter#99999999999]\n", 1, "bad entry number"},
    /* contradictory numbers: s*n_s*P = 1*800000000*3 > 2100000000 */
    {"[MPI_Scatter]\nclass = G\ntrigger = snP\nbound = 2100000000\ntype_size = 1\nprocs = 3\n"
     "safe_count = 800000000\n",
     7, "safe_count 800000000 already exceeds the bound"},
    {"[MPI_Reduce]\nclass = G\ntrigger = n\nsafe_count = 11\nbound = 10\ntype_size = 4\n"
     "procs = 2\n",
     4, "safe_count 11 already exceeds the bound"},
    {"[MPI_Gather]\nclass = X\nbound = 100\ntype_size = 1\nprocs = 2\nsafe_count = 101\n", 6,
     "safe_count 101 already exceeds the bound"},
    /* W4's keys */
#define W4_HEAD G_HEAD "bound = 100\ntype_size = 1\nprocs = 2\nsafe_count = 50\n"
    {W4_HEAD "avoid_with = A=1\navoid_checked = 60\nworkaround = W5\n", 10,
     "unknown workaround 'W5' (auto, W1-A, W1-B, W2, W3, W4 or none)"},
    {W4_HEAD "workaround = W4\n", 8, "workaround W4 needs avoid_with"},
    {W4_HEAD "avoid_checked = 60\n", 8, "avoid_checked needs avoid_with"},
    {W4_HEAD "avoid_with = A=1\n", 1, "avoid_with needs avoid_checked"},
    {W4_HEAD "avoid_with = A=1\navoid_checked = 50\n", 9, "avoid_checked 50 is not past"},
    {W4_HEAD "avoid_with = A\n", 8, "bad avoid_with item 'A'"},
    {W4_HEAD "avoid_with = A=x\n", 8, "bad avoid_with item 'A=x'"},
    {W4_HEAD "avoid_with = A=99999999999\n", 8, "bad avoid_with item"},
    {W4_HEAD "avoid_with = A/B=1\n", 8, "bad avoid_with item 'A/B=1'"},
    {W4_HEAD "avoid_with = A=1 A=2\n", 8, "avoid_with sets A twice"},
    {W4_HEAD "avoid_with = A=1 B=1 C=1 D=1 E=1\n", 8, "more than 4 control variables"},
    {W4_HEAD "avoid_with =\n", 8, "avoid_with is empty"},
    {"[MPI_Gatherv]\nclass = D\navoid_with = A=1\navoid_checked = 9\n", 3,
     "class D takes no avoid_with"},
    {G_HEAD "bound = 100\navoid_with = A=1\navoid_checked = 9\n", 5,
     "avoid_with needs safe_count, type_size and procs"},
#undef W4_HEAD
    /* line structure */
    {"[platform]\nhostname = "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxx\nlauncher = bad\n",
     2, "line too long"},
    /* a line too long in a section: said at that line, not as a key its
     * section lacks (issue 47, item 13) */
    {"[MPI_Bcast]\nclass = G\ntrigger = n\nbound = 5 ; "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxx\n",
     4, "line too long"},
    /* the earliest line wins, even if found later */
    {"[MPI_Scatter]\nbound = x\n[MPI_Bcast]\nclass = Q\n", 1, "has no class"},
    {"[MPI_Bcast]\nclass = Q\n[MPI_Scatter]\nbound = x\n", 2, "unknown class"},
    {"[MPI_Bcast]\nclass = G\ntrigger = n\nbound = 5\n[MPI_Bcast]\nclass = G\ntrigger = x\n", 5,
     "duplicate section"},
};

static void test_rejected(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        struct sg_bounds b;
        char error[512] = "";
        b.count = 99; /* must be reset */
        int status = load_string(bad_cases[i].text, &b, NULL, error, sizeof error);
        int ok = status == -1 && b.count == 0 && b.entries == NULL &&
                 message_is(error, bad_cases[i].line, bad_cases[i].what);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  case %zu: status %d, error \"%s\", expected line %u \"%s\"\n", i,
                    status, error, bad_cases[i].line, bad_cases[i].what);
        sg_bounds_free(&b);
    }

    /* A line too long in the middle: counting goes on after it. */
    char text[1200];
    size_t n = (size_t)snprintf(text, sizeof text, "[platform]\nhostname = ");
    memset(text + n, 'y', 800);
    snprintf(text + n + 800, sizeof text - n - 800, "\n\n[MPI_Scatter]\nclass = Q\n");
    struct sg_bounds b;
    char error[512] = "";
    CHECK(load_string(text, &b, NULL, error, sizeof error) == -1);
    CHECK(message_is(error, 2, "line too long"));
    text[n + 800] = '\0'; /* only the long line, without a newline, at the end */
    CHECK(load_string(text, &b, NULL, error, sizeof error) == -1);
    CHECK(message_is(error, 2, "line too long"));

    /* Text is taken by length, so a NUL byte is seen and refused. */
    const char with_nul[] = "[platform]\nhostname = a\0b\n";
    CHECK(sg_bounds_load_text(with_nul, sizeof with_nul - 1, "t.ini", &b, NULL, NULL, error,
                              sizeof error) == -1);
    CHECK(message_is(error, 2, "NUL"));

    /* A missing file. */
    char path[512];
    path_in_temporary(path, sizeof path, "missing.ini");
    CHECK(sg_bounds_load(path, &b, NULL, NULL, error, sizeof error) == -1);
    char expected[600];
    snprintf(expected, sizeof expected, "%s: cannot open: %s", path, strerror(ENOENT));
    CHECK_STR(error, expected);
    CHECK(b.count == 0 && b.entries == NULL);

    /* A short error buffer is truncated, not overrun. */
    char tiny[8];
    CHECK(load_string("[MPI_Scatter]\n", &b, NULL, tiny, sizeof tiny) == -1);
    CHECK_U64(strlen(tiny), 7);
}

static void test_warnings(void)
{
    struct sg_bounds b;
    struct warnings w = {0};
    char error[512] = "";
    const char *text = "stray = 1\n"                      /* 1 */
                       "[platform]\n"                     /* 2 */
                       "colour = blue\n"                  /* 3 */
                       "[MPI_Scatter]\n"                  /* 4 */
                       "class = G\n"                      /* 5 */
                       "trigger = snP\n"                  /* 6 */
                       "bound = 10\n"                     /* 7 */
                       "speed = fast\n"                   /* 8 */
                       "[MPI_Frobnicate]\n"               /* 9 */
                       "class = Q\n"                      /* 10: ignored with its section */
                       "[MPI_Gatherv]\n"                  /* 11 */
                       "class = D\n"                      /* 12 */
                       "bound = 7\n";                     /* 13 */
    int status = load_string(text, &b, &w, error, sizeof error);
    CHECK(status == 0);
    if (status != 0)
        fprintf(stderr, "%s\n", error);
    CHECK_U64(w.count, 5);
    if (w.count == 5) {
        CHECK(message_is(w.messages[0], 1, "outside any section"));
        CHECK(message_is(w.messages[1], 3, "unknown key 'colour'"));
        CHECK(message_is(w.messages[2], 8, "unknown key 'speed'"));
        CHECK(message_is(w.messages[3], 9, "unknown section [MPI_Frobnicate] (ignored with "
                                           "its keys)"));
        CHECK(message_is(w.messages[4], 13, "class D takes no bound"));
    }
    CHECK_U64(b.count, 2);
    if (b.count == 2) {
        CHECK_U64(b.entries[0].bound, 10);
        CHECK_U64(b.entries[1].bound, 0);
    }
    sg_bounds_free(&b);

    /* Without a callback the warnings are just dropped. */
    CHECK(load_string(text, &b, NULL, error, sizeof error) == 0);
    CHECK(b.unknown_sections == 1 && b.first_unknown_section == 9);
    sg_bounds_free(&b);

    /* A name that differs in case or by a letter or two: the close one is
     * named, its entry number kept (issue 47, item 14). */
    w.count = 0;
    CHECK(load_string("[MPI_bcast]\n[MPI_Scaterv#2]\n[MPI_Alltoal]\n[plattform]\n", &b, &w,
                      error, sizeof error) == 0);
    CHECK_U64(w.count, 4);
    if (w.count == 4) {
        CHECK(message_is(w.messages[0], 1, "[MPI_bcast] (ignored with its keys: did you mean "
                                           "[MPI_Bcast]?)"));
        CHECK(message_is(w.messages[1], 2, "did you mean [MPI_Scatterv#2]?"));
        CHECK(message_is(w.messages[2], 3, "did you mean [MPI_Alltoall]?"));
        CHECK(message_is(w.messages[3], 4, "did you mean [platform]?"));
    }
    CHECK(b.unknown_sections == 4 && b.first_unknown_section == 1 && sg_bounds_empty(&b));
    sg_bounds_free(&b);
}

/* ---- sg_bounds_replace ---------------------------------------------------- */

struct key_list {
    char storage[16][128];
    const char *keys[17];
    size_t count;
};

__attribute__((format(printf, 2, 3))) static void add_key(struct key_list *list,
                                                          const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(list->storage[list->count], sizeof list->storage[0], format, args);
    va_end(args);
    list->keys[list->count] = list->storage[list->count];
    list->keys[++list->count] = NULL;
}

/* The keys the tester would write for `e`, in both "k=v" and "k = v" form. */
static void format_entry(const struct sg_bound_entry *e, struct key_list *list)
{
    list->count = 0;
    add_key(list, "class=%s", sg_class_name(e->cls));
    if (e->cls == SG_CLASS_G)
        add_key(list, "trigger = %s", sg_trigger_name(e->trigger));
    if (e->cls != SG_CLASS_D)
        add_key(list, "bound=%" PRIu64, e->bound);
    add_key(list, "type_size=%" PRIu64, e->type_size);
    add_key(list, "procs=%" PRIu64, e->procs);
    add_key(list, "safe_count=%" PRIu64, e->safe_count);
    add_key(list, "delta=%" PRIu64, e->delta);
    add_key(list, "failure=%s", sg_failure_name(e->failure));
    add_key(list, "workaround=%s", sg_workaround_name(e->workaround));
    add_key(list, "inplace = %s", e->inplace ? "yes" : "no");
    if (e->safe_seconds[0])
        add_key(list, "safe_seconds=%s", e->safe_seconds);
    if (e->fail_seconds[0])
        add_key(list, " fail_seconds = %s ", e->fail_seconds);
    if (e->nodes)
        add_key(list, "nodes=%" PRIu64, e->nodes);
    if (e->avoid_count == 0)
        return;
    char avoid[256] = "";
    for (unsigned k = 0; k < e->avoid_count; k++)
        snprintf(avoid + strlen(avoid), sizeof avoid - strlen(avoid), "%s%s=%s", k ? " ," : "",
                 e->avoid[k].name, e->avoid[k].value);
    add_key(list, "avoid_with = %s", avoid);
    add_key(list, "avoid_checked=%" PRIu64, e->avoid_checked);
    add_key(list, "avoid_seconds=%s", e->avoid_seconds);
    add_key(list, "workaround_seconds=%s", e->workaround_seconds);
}

static void test_round_trip(void)
{
    /* nodes 0: no nodes key written (read back as 1) */
    static const struct sg_bound_entry written[] = {
        {SG_MPI_Iallgatherv, 1, 0, SG_CLASS_G, SG_TRIGGER_NP, 3000000000u, 8, 16, 187500000,
         11718750, SG_FAILURE_OOM, SG_WORKAROUND_W1A, 0, "", "", {{"", "", 0}}, 0, 0, "", "", 0},
        {SG_MPI_Iallgatherv, 2, 0, SG_CLASS_X, SG_TRIGGER_N, 5952, 1, 48, 124, 8,
         SG_FAILURE_HANG, SG_WORKAROUND_W1B, 0, "", "", {{"", "", 0}}, 0, 0, "", "", 3},
        {SG_MPI_Iallgatherv, 3, 0, SG_CLASS_D, SG_TRIGGER_SNP, 0, 4, 1024, 1, 2,
         SG_FAILURE_WRONG_DATA, SG_WORKAROUND_W3, 0, "", "", {{"", "", 0}}, 0, 0, "", "", 0},
        {SG_MPI_Iallgatherv, 4, 0, SG_CLASS_G, SG_TRIGGER_SN, UINT64_MAX, 1, 1, UINT64_MAX, 0,
         SG_FAILURE_MPI_ERROR, SG_WORKAROUND_W2, 0, "", "", {{"", "", 0}}, 0, 0, "", "", 0},
        {SG_MPI_Iallgatherv, 5, 0, SG_CLASS_G, SG_TRIGGER_SNP, 1073741824, 1, 4, 268435456,
         16777216, SG_FAILURE_SLOW, SG_WORKAROUND_AUTO, 1, "0.0123", "12.000000001", {{"", "", 0}}, 0, 0, "", "", 0},
        {SG_MPI_Iallgatherv, 6, 0, SG_CLASS_X, SG_TRIGGER_N, 77, 2, 3, 70, 7, SG_FAILURE_SLOW,
         SG_WORKAROUND_W1B, 0, "", "3", {{"", "", 0}}, 0, 0, "", "", 0},
        {SG_MPI_Iallgatherv, 7, 0, SG_CLASS_G, SG_TRIGGER_N, 99, 4, 2, 99, 1, SG_FAILURE_CRASH,
         SG_WORKAROUND_W4, 0, "", "",
         {{"coll_libnbc_iallgather_algorithm", "2", 0}, {"MPIR_CVAR_X", "-1", 0}}, 2, 400,
         "1.5", "2.25", 0},
    };
    enum { COUNT = sizeof written / sizeof written[0] };
    struct key_list lists[COUNT];
    const char *const *entries[COUNT];
    for (size_t k = 0; k < COUNT; k++) {
        format_entry(&written[k], &lists[k]);
        entries[k] = lists[k].keys;
    }

    char path[512], error[512] = "";
    path_in_temporary(path, sizeof path, "round-trip.ini");
    CHECK(sg_bounds_replace(path, "MPI_Iallgatherv", entries, COUNT, error, sizeof error) == 0);
    const char *platform[] = {"mpi_library = Open MPI v4.1.4, package: Debian OpenMPI",
                              "hostname=node-7", "measured=2026-11-21T21:00:00Z",
                              "launcher=slurm", NULL};
    const char *const *platform_entry[] = {platform};
    CHECK(sg_bounds_replace(path, "platform", platform_entry, 1, error, sizeof error) == 0);

    struct sg_bounds b;
    int status = sg_bounds_load(path, &b, NULL, NULL, error, sizeof error);
    CHECK(status == 0);
    if (status != 0) {
        fprintf(stderr, "%s\n", error);
        unlink(path);
        return;
    }
    CHECK_STR(b.platform.mpi_library, "Open MPI v4.1.4, package: Debian OpenMPI");
    CHECK_STR(b.platform.hostname, "node-7");
    CHECK_STR(b.platform.measured, "2026-11-21T21:00:00Z");
    CHECK_STR(b.platform.launcher, "slurm");
    CHECK_U64(b.count, COUNT);
    for (size_t k = 0; k < COUNT && k < b.count; k++) {
        const struct sg_bound_entry *r = &b.entries[k], *w = &written[k];
        CHECK(r->routine == w->routine);
        CHECK_U64(r->ordinal, w->ordinal);
        CHECK(r->cls == w->cls);
        CHECK(r->trigger == w->trigger);
        CHECK_U64(r->bound, w->bound);
        CHECK_U64(r->type_size, w->type_size);
        CHECK_U64(r->procs, w->procs);
        CHECK_U64(r->safe_count, w->safe_count);
        CHECK_U64(r->delta, w->delta);
        CHECK(r->failure == w->failure);
        CHECK(r->workaround == w->workaround);
        CHECK(r->inplace == w->inplace);
        CHECK_STR(r->safe_seconds, w->safe_seconds);
        CHECK_STR(r->fail_seconds, w->fail_seconds);
        CHECK_U64(r->avoid_count, w->avoid_count);
        for (unsigned a = 0; a < w->avoid_count && a < r->avoid_count; a++) {
            CHECK_STR(r->avoid[a].name, w->avoid[a].name);
            CHECK_STR(r->avoid[a].value, w->avoid[a].value);
        }
        CHECK_U64(r->avoid_checked, w->avoid_checked);
        CHECK_STR(r->avoid_seconds, w->avoid_seconds);
        CHECK_STR(r->workaround_seconds, w->workaround_seconds);
        CHECK_U64(r->nodes, w->nodes ? w->nodes : 1); /* 1 where the key is absent */
    }
    sg_bounds_free(&b);

    /* Replacing a section by the same entries changes nothing. */
    char *before = read_text(path);
    CHECK(before && strstr(before, "[MPI_Iallgatherv#5]\nclass = G\ntrigger = snP\n"
                                   "bound = 1073741824\ntype_size = 1\nprocs = 4\n"
                                   "safe_count = 268435456\ndelta = 16777216\n"
                                   "failure = slow\nworkaround = auto\ninplace = yes\n"
                                   "safe_seconds = 0.0123\nfail_seconds = 12.000000001\n"));
    CHECK(sg_bounds_replace(path, "MPI_Iallgatherv", entries, COUNT, error, sizeof error) == 0);
    char *after = read_text(path);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    unlink(path);
}

static const char merge_original[] =
    "; ScaleGuard bounds, edited by hand\n"
    "#   keep this comment\n"
    "\n"
    "[platform]\n"
    "mpi_library = MPICH Version:\t4.0.2\n"
    "launcher = local ; how\n"
    "\n"
    "; gather: measured twice\n"
    "[MPI_Gather]\n"
    "   class = G ; indented\n"
    "trigger = snP\n"
    "bound = 100\n"
    "\n"
    "; scatter, the old result\n"
    "[MPI_Scatter]\n"
    "class = G\n"
    "; inside the old section\n"
    "trigger = nP\n"
    "bound = 1\n"
    "\n"
    "[MPI_Scatter#2]\n"
    "class = X\n"
    "bound = 7\n"
    "type_size = 1\n"
    "procs = 2\n"
    "\n"
    "; broadcast\n"
    "\n"
    "[MPI_Bcast]\n"
    "class = G\n"
    "trigger = n\n"
    "bound = 5\n"
    "; the end\n";

static void test_merge(void)
{
    char path[512], error[512] = "";
    path_in_temporary(path, sizeof path, "merge.ini");
    write_text(path, merge_original);
    chmod(path, 0640);

    const char *scatter[] = {"class=G", "trigger=snP", "bound=2100000000", "failure=crash", NULL};
    const char *const *one[] = {scatter};
    CHECK(sg_bounds_replace(path, "MPI_Scatter", one, 1, error, sizeof error) == 0);
    char *text = read_text(path);
    CHECK_STR(text, "; ScaleGuard bounds, edited by hand\n"
                    "#   keep this comment\n"
                    "\n"
                    "[platform]\n"
                    "mpi_library = MPICH Version:\t4.0.2\n"
                    "launcher = local ; how\n"
                    "\n"
                    "; gather: measured twice\n"
                    "[MPI_Gather]\n"
                    "   class = G ; indented\n"
                    "trigger = snP\n"
                    "bound = 100\n"
                    "\n"
                    "; scatter, the old result\n"
                    "[MPI_Scatter]\n"
                    "class = G\n"
                    "trigger = snP\n"
                    "bound = 2100000000\n"
                    "failure = crash\n"
                    "\n"
                    "; broadcast\n"
                    "\n"
                    "[MPI_Bcast]\n"
                    "class = G\n"
                    "trigger = n\n"
                    "bound = 5\n"
                    "; the end\n");
    free(text);
    struct stat status;
    CHECK(stat(path, &status) == 0 && (status.st_mode & 07777) == 0640);

    /* An invalid entry: -1, and the file is byte-identical. */
    char *before = read_text(path);
    const char *bad[] = {"class=G", "trigger=snP", "bound=0", NULL};
    const char *const *bad_one[] = {bad};
    error[0] = '\0';
    CHECK(sg_bounds_replace(path, "MPI_Scatter", bad_one, 1, error, sizeof error) == -1);
    CHECK(strstr(error, "bound must be > 0") != NULL);
    const char *unknown_key[] = {"class=G", "colour=red", NULL};
    const char *const *unknown_one[] = {unknown_key};
    CHECK(sg_bounds_replace(path, "MPI_Scatter", unknown_one, 1, error, sizeof error) == -1);
    CHECK(strstr(error, "unknown key") != NULL);
    const char *bcast_in_place[] = {"class=G", "trigger=n", "bound=5", "inplace=yes", NULL};
    const char *const *bcast_one[] = {bcast_in_place};
    CHECK(sg_bounds_replace(path, "MPI_Bcast", bcast_one, 1, error, sizeof error) == -1);
    CHECK(strstr(error, "MPI_Bcast has no in-place form") != NULL);
    const char *exponent[] = {"class=G", "trigger=n", "bound=5", "safe_seconds=1e3", NULL};
    const char *const *exponent_one[] = {exponent};
    CHECK(sg_bounds_replace(path, "MPI_Scatter", exponent_one, 1, error, sizeof error) == -1);
    CHECK(strstr(error, "bad seconds for safe_seconds") != NULL);
    const char *injected[] = {"class=G\n[MPI_Bcast]", NULL};
    const char *const *injected_one[] = {injected};
    CHECK(sg_bounds_replace(path, "MPI_Scatter", injected_one, 1, error, sizeof error) == -1);
    CHECK(sg_bounds_replace(path, "MPI_Nothing", NULL, 0, error, sizeof error) == -1);
    CHECK(sg_bounds_replace(path, "platform", one, 2, error, sizeof error) == -1);
    char *after = read_text(path);
    CHECK(before && after && strcmp(before, after) == 0);
    free(after);

    /* Replacing [platform] keeps the comments above and below it. */
    const char *platform[] = {"mpi_library=MPICH Version:\t4.0.2", "hostname=n1",
                              "measured=2026-11-21T21:00:00Z", "launcher=slurm", NULL};
    const char *const *platform_one[] = {platform};
    CHECK(sg_bounds_replace(path, "platform", platform_one, 1, error, sizeof error) == 0);
    text = read_text(path);
    const char *expected_head = "; ScaleGuard bounds, edited by hand\n"
                                "#   keep this comment\n"
                                "\n"
                                "[platform]\n"
                                "mpi_library = MPICH Version:\t4.0.2\n"
                                "hostname = n1\n"
                                "measured = 2026-11-21T21:00:00Z\n"
                                "launcher = slurm\n"
                                "\n"
                                "; gather: measured twice\n"
                                "[MPI_Gather]\n";
    CHECK(text && strncmp(text, expected_head, strlen(expected_head)) == 0);
    /* Everything after [platform] as it was. */
    const char *rest_before = before ? strstr(before, "\n; gather") : NULL;
    const char *rest_after = text ? strstr(text, "\n; gather") : NULL;
    CHECK(rest_before && rest_after && strcmp(rest_before, rest_after) == 0);
    free(text);
    free(before);

    /* Removing sections; adding a routine goes at the end after one blank line. */
    CHECK(sg_bounds_replace(path, "MPI_Gather", NULL, 0, error, sizeof error) == 0);
    const char *x[] = {"class=X", "bound=9", "type_size=4", "procs=8", NULL};
    const char *const *x_one[] = {x};
    CHECK(sg_bounds_replace(path, "MPI_Ialltoall", x_one, 1, error, sizeof error) == 0);
    text = read_text(path);
    CHECK(text && strstr(text, "[MPI_Gather]") == NULL);
    CHECK(text && strstr(text, "; gather: measured twice\n[MPI_Scatter]") == NULL);
    CHECK(text && strstr(text, "bound = 5\n; the end\n\n[MPI_Ialltoall]\nclass = X\nbound = 9\n"
                               "type_size = 4\nprocs = 8\n") != NULL);
    free(text);

    struct sg_bounds b;
    CHECK(sg_bounds_load(path, &b, NULL, NULL, error, sizeof error) == 0);
    CHECK_U64(b.count, 3);
    sg_bounds_free(&b);
    unlink(path);

    /* A missing file is created; a file that does not end in a newline gets one. */
    CHECK(sg_bounds_replace(path, "MPI_Scatter", one, 1, error, sizeof error) == 0);
    text = read_text(path);
    CHECK_STR(text, "[MPI_Scatter]\nclass = G\ntrigger = snP\nbound = 2100000000\n"
                    "failure = crash\n");
    free(text);
    write_text(path, "[platform]\nlauncher = local");
    CHECK(sg_bounds_replace(path, "MPI_Scatter", one, 1, error, sizeof error) == 0);
    text = read_text(path);
    CHECK_STR(text, "[platform]\nlauncher = local\n\n[MPI_Scatter]\nclass = G\ntrigger = snP\n"
                    "bound = 2100000000\nfailure = crash\n");
    free(text);

    /* A BOM before the replaced first section stays. */
    write_text(path, "\xEF\xBB\xBF[MPI_Scatter]\nclass = G\ntrigger = n\nbound = 1\n\n[MPI_Bcast]\n"
                     "class = G\ntrigger = n\nbound = 1\n");
    CHECK(sg_bounds_replace(path, "MPI_Scatter", one, 1, error, sizeof error) == 0);
    text = read_text(path);
    CHECK_STR(text, "\xEF\xBB\xBF[MPI_Scatter]\nclass = G\ntrigger = snP\nbound = 2100000000\n"
                    "failure = crash\n\n[MPI_Bcast]\nclass = G\ntrigger = n\nbound = 1\n");
    free(text);

    /* An invalid file elsewhere is not written over either. */
    write_text(path, "[MPI_Bcast]\nclass = Q\n");
    CHECK(sg_bounds_replace(path, "MPI_Scatter", one, 1, error, sizeof error) == -1);
    CHECK(strstr(error, "unknown class") != NULL);
    text = read_text(path);
    CHECK_STR(text, "[MPI_Bcast]\nclass = Q\n");
    free(text);
    unlink(path);
}

static void differences(const char *name, const char *was, const char *now, void *arg)
{
    char *out = arg;
    size_t used = strlen(out);
    snprintf(out + used, 256 - used, "%s:%s>%s ", name, was ? was : "-", now ? now : "-");
}

/* [cvars] (the platform fingerprint): read, rejected, its digest, compared,
 * written. */
static void test_cvars(void)
{
    struct sg_bounds b;
    struct warnings w = {0};
    char error[512] = "";
    const char *good = "[platform]\ncvars_digest = a76f58e7840080f3\n[cvars]\nB = 2\nA = 1\n";
    CHECK(load_string(good, &b, &w, error, sizeof error) == 0);
    CHECK_U64(w.count, 0); /* FNV-1a 64 of "A=1\nB=2\n": the names' order, not the file's */
    CHECK_U64(b.cvar_count, 2);
    CHECK(b.cvar_count == 2 && b.cvars[1].line == 5);
    sg_bounds_free(&b);

    w.count = 0;
    CHECK(load_string("[platform]\ncvars_digest = 0000000000000001\n[cvars]\nA = 1\n", &b, &w,
                      error, sizeof error) == 0);
    CHECK_U64(w.count, 1);
    CHECK(w.count == 1 && message_is(w.messages[0], 2, "is not the digest of the 1 values"));
    sg_bounds_free(&b);

    static const struct {
        const char *text;
        unsigned line;
        const char *what;
    } bad[] = {
        {"[cvars]\nA = 1\nA = 2\n", 3, "duplicate control variable 'A' in [cvars] (first at line 2)"},
        {"[cvars]\nA B = 1\n", 2, "'A B' is not a control variable's name"},
        {"[cvars]\nA = 123456789012345678901234567890123456789012345678901234567890123456789012345"
         "678901234567890123456\n", 2, "the value of A is longer than 95 characters"},
        {"[cvars]\n[cvars]\n", 2, "duplicate section [cvars] (first at line 1)"},
        {"[platform]\ncvars_digest = 12\n", 2, "cvars_digest must be 16 hex digits"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(load_string(bad[i].text, &b, NULL, error, sizeof error) == -1);
        CHECK(message_is(error, bad[i].line, bad[i].what));
    }

    struct sg_cvar was[] = {{"A", "1", 0}, {"C", "3", 0}, {"B", "2", 0}};
    struct sg_cvar now[] = {{"D", "5", 0}, {"B", "2", 0}, {"C", "4", 0}};
    struct sg_cvar again[] = {{"B", "2", 0}, {"A", "1", 0}, {"C", "3", 0}};
    char listed[256] = "";
    CHECK_U64(sg_cvars_compare(was, 3, now, 3, differences, listed), 3);
    CHECK_STR(listed, "A:1>- C:3>4 D:->5 ");
    listed[0] = '\0';
    CHECK_U64(sg_cvars_compare(was, 3, again, 3, differences, listed), 0);
    CHECK(sg_cvars_digest(was, 3) == sg_cvars_digest(again, 3));
    CHECK(sg_cvars_digest(was, 3) != sg_cvars_digest(now, 3));
    CHECK(sg_cvar_name_valid("coll_tuned_bcast_algorithm") && !sg_cvar_name_valid("") &&
          !sg_cvar_name_valid("a=b"));

    /* written: one [cvars] of any names; a second entry is refused */
    char path[512];
    path_in_temporary(path, sizeof path, "cvars.ini");
    unlink(path);
    const char *cvars[] = {"MPIR_CVAR_BCAST_INTRA_ALGORITHM=1", "coll = tuned,basic", NULL};
    const char *const *one[] = {cvars}, *const *two[] = {cvars, cvars};
    CHECK(sg_bounds_replace(path, "cvars", one, 1, error, sizeof error) == 0);
    CHECK(sg_bounds_replace(path, "cvars", two, 2, error, sizeof error) == -1);
    CHECK(strstr(error, "there is only one [cvars]") != NULL);
    char *text = read_text(path);
    CHECK_STR(text, "[cvars]\nMPIR_CVAR_BCAST_INTRA_ALGORITHM = 1\ncoll = tuned,basic\n");
    free(text);
    unlink(path);
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(temporary_dir, sizeof temporary_dir, "%s/sg-bounds-XXXXXX",
             base && *base ? base : "/tmp");
    if (!mkdtemp(temporary_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_example();
    test_platform_files();
    test_accepted_forms();
    test_checks_section();
    test_rejected();
    test_warnings();
    test_round_trip();
    test_merge();
    test_cvars();
    /* Empty again: no temporary files were left behind. */
    CHECK(rmdir(temporary_dir) == 0);
    return check_exit();
}
