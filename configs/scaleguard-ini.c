/* scaleguard-ini: check a bounds INI, print its entries, replace the sections
 * of one routine, or classify a measured bound by Table IX (the tester writes
 * its results through this, and scripts read a file through `dump`, so no
 * shell script parses the INI or holds classification logic). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bounds.h"

static const char usage[] =
    "Usage: scaleguard-ini check [--strict] FILE\n"
    "       scaleguard-ini dump FILE\n"
    "       scaleguard-ini replace FILE SECTION [--entry KEY=VALUE...]...\n"
    "       scaleguard-ini classify SAFE_COUNT TYPE_SIZE PROCS RUNS_2P RUNS_2S\n"
    "       scaleguard-ini routines\n"
    "       scaleguard-ini --help | --version\n"
    "\n"
    "check    loads FILE, prints warnings and errors to stderr and a summary to stdout\n"
    "         (entries, routines, and the nodes they were measured on where an entry\n"
    "         says nodes = N other than 1).\n"
    "         A file that holds nothing the layer uses (only comments) is warned\n"
    "         about: the layer then protects with Class D only. An avoid_with value\n"
    "         that this MPI does not take for its variable (as the MPI tool interface\n"
    "         lists them: scaleguard-cvars --algorithms) is an error.\n"
    "         --strict: a section of no known name (a typo such as [MPI_bcast],\n"
    "         whose routine then has no entry) and a file that holds nothing the\n"
    "         layer uses are errors too (the build's check of a site INI,\n"
    "         -DSCALEGUARD_BOUNDS_INI).\n"
    "dump     loads FILE as check does and prints, tab-separated, a line 'platform'\n"
    "         with the [platform] keys that are set (mpi_library, hostname, measured,\n"
    "         launcher, cvars_rule, cvars_digest; none: no line; a tab in a value\n"
    "         printed as a space), then\n"
    "         one line per routine entry, in file order: the section (MPI_Name or\n"
    "         MPI_Name#k), then every key as KEY=VALUE\n"
    "         with its value as the layer reads it (defaults filled in: class, trigger,\n"
    "         bound, type_size, procs, safe_count, delta, failure, workaround, inplace,\n"
    "         nodes (1 when absent), and safe_seconds, fail_seconds where present; 0, -\n"
    "         or unknown when absent).\n"
    "replace  replaces every [SECTION], [SECTION#2], ... of FILE by one section per\n"
    "         --entry, holding the KEY=VALUE arguments that follow it; without --entry\n"
    "         the sections are removed. SECTION is an MPI routine (MPI_Scatter),\n"
    "         platform, or cvars (MPI control variables: any names as keys).\n"
    "         Comments and all other sections stay as they are; FILE is\n"
    "         created if missing and is only written when the result is valid, as a\n"
    "         new file renamed over it. A FILE that is a symbolic link made by this\n"
    "         user or root stays one: the file it points to is replaced, in its own\n"
    "         directory; a link made by another user is refused, as is a directory\n"
    "         writable by every user without the sticky bit or owned by another user.\n"
    "classify prints class=, trigger= and bound= lines (Table IX) for a safe count\n"
    "         n_s found at (TYPE_SIZE, PROCS). RUNS_2P and RUNS_2S are the outcomes of\n"
    "         the verification runs at (s, 2P) and (2s, P), four letters p (passed),\n"
    "         f (failed) or - (not run), at n_s/2, (n_s+delta)/2, n_s, n_s+delta.\n"
    "routines prints the 42 collectives a bounds file may name, one per line, each\n"
    "         followed by 'irregular' (a v-routine, Class D possible where its\n"
    "         displacements are int) or 'regular',\n"
    "         by 'in-place' (it takes MPI_IN_PLACE) or 'no-in-place', by the\n"
    "         layouts of its sides, send=L recv=L, each none, single (one block),\n"
    "         regular (P blocks), v (P blocks at displacements) or packed (P blocks\n"
    "         of the whole vector that Reduce_scatter reduces), and by what it\n"
    "         reduces=R: none (it moves data), to-root, to-all, scattered, prefix\n"
    "         (Scan) or exclusive-prefix (Exscan), and by whose blocks its sides of\n"
    "         blocks hold, blocks=ranks (P) or neighbours (the in-neighbours' on\n"
    "         the receive side, the out-neighbours' on the send side: the\n"
    "         neighbourhood collectives).\n"
    "\n"
    "Exit status: 0 success, 1 invalid file or failed replace, 2 usage error.\n";

static void print_warning(void *context, const char *message)
{
    (void)context;
    fprintf(stderr, "scaleguard-ini: warning: %s\n", message);
}

static void print_error(const char *message)
{
    fprintf(stderr, "scaleguard-ini: error: %s\n", message);
}

static int usage_error(const char *what)
{
    fprintf(stderr, "scaleguard-ini: %s\n%s", what, usage);
    return 2;
}

/* Loads `path`, warnings and the error (with its line) on stderr; -1 on error. */
static int load(const char *path, struct sg_bounds *bounds)
{
    char error[1024];
    if (sg_bounds_load(path, bounds, print_warning, NULL, error, sizeof error) != 0) {
        fprintf(stderr, "scaleguard-ini: error: %s\n", error);
        return -1;
    }
    return 0;
}

/* ", measured on 1, 2 and 4 nodes": the spreads the entries were measured
 * at (README, "The bounds INI"), where one says another than 1 node. */
static void print_spreads(const struct sg_bounds *bounds)
{
    uint64_t shown = 0; /* the largest spread printed so far */
    size_t spreads = 0, others = 0;
    for (size_t i = 0; i < bounds->count; i++)
        others += bounds->entries[i].nodes != 1;
    if (others == 0)
        return;
    for (;;) { /* each spread once, ascending */
        uint64_t next = UINT64_MAX;
        size_t left = 0;
        for (size_t i = 0; i < bounds->count; i++) {
            uint64_t nodes = bounds->entries[i].nodes;
            if (nodes > shown && nodes < next)
                next = nodes;
            left += nodes > shown;
        }
        if (left == 0)
            break;
        int last = 1;
        for (size_t i = 0; i < bounds->count; i++)
            last &= bounds->entries[i].nodes <= next;
        printf("%s%" PRIu64, spreads == 0 ? ", measured on " : last ? " and " : ", ", next);
        spreads++;
        shown = next;
    }
    printf(" node%s", shown == 1 ? "" : "s");
}

static int check(const char *path, int strict)
{
    struct sg_bounds bounds;
    if (load(path, &bounds) != 0)
        return 1;
    if (strict && bounds.unknown_sections > 0) {
        fprintf(stderr, "scaleguard-ini: error: %s:%u: %u unknown section%s (--strict: each "
                "must be an MPI routine, platform, checks or cvars)\n", path,
                bounds.first_unknown_section, bounds.unknown_sections,
                bounds.unknown_sections == 1 ? "" : "s");
        sg_bounds_free(&bounds);
        return 1;
    }
    if (sg_avoid_values_check(&bounds, path, print_error) > 0) {
        sg_bounds_free(&bounds);
        return 1;
    }
    if (sg_bounds_empty(&bounds)) {
        fprintf(stderr, "scaleguard-ini: %s: %s holds nothing the layer uses (no routine "
                "entry, [checks], [platform] or [cvars]): Class D protection only\n",
                strict ? "error" : "warning", path);
        if (strict) {
            sg_bounds_free(&bounds);
            return 1;
        }
    }
    int seen[SG_ROUTINE_COUNT] = {0};
    size_t routines = 0;
    for (size_t i = 0; i < bounds.count; i++)
        if (!seen[bounds.entries[i].routine]++)
            routines++;
    printf("%s: %zu %s for %zu %s", path, bounds.count, bounds.count == 1 ? "entry" : "entries",
           routines, routines == 1 ? "routine" : "routines");
    if (bounds.cvar_count > 0)
        printf(", %zu control variables", bounds.cvar_count);
    print_spreads(&bounds);
    putchar('\n');
    sg_bounds_free(&bounds);
    return 0;
}

static int dump(const char *path)
{
    struct sg_bounds bounds;
    if (load(path, &bounds) != 0)
        return 1;
    const struct sg_platform *pf = &bounds.platform;
    const char *const platform[][2] = {
        {"mpi_library", pf->mpi_library}, {"hostname", pf->hostname},
        {"measured", pf->measured},       {"launcher", pf->launcher},
        {"cvars_rule", pf->cvars_rule},   {"cvars_digest", pf->cvars_digest}};
    int any = 0;
    for (size_t k = 0; k < sizeof platform / sizeof *platform; k++)
        if (platform[k][1][0]) {
            printf("%s\t%s=", any++ ? "" : "platform", platform[k][0]);
            for (const char *c = platform[k][1]; *c; c++) /* a tab separates fields */
                putchar(*c == '\t' ? ' ' : *c);
        }
    if (any)
        putchar('\n');
    for (size_t i = 0; i < bounds.count; i++) {
        const struct sg_bound_entry *e = &bounds.entries[i];
        printf("%s", sg_routines[e->routine].name);
        if (e->ordinal > 1)
            printf("#%u", e->ordinal);
        printf("\tclass=%s\ttrigger=%s\tbound=%" PRIu64 "\ttype_size=%" PRIu64
               "\tprocs=%" PRIu64 "\tsafe_count=%" PRIu64 "\tdelta=%" PRIu64
               "\tfailure=%s\tworkaround=%s\tinplace=%s\tnodes=%" PRIu64,
               sg_class_name(e->cls), e->cls == SG_CLASS_D ? "-" : sg_trigger_name(e->trigger),
               e->bound, e->type_size, e->procs, e->safe_count, e->delta,
               sg_failure_name(e->failure), sg_workaround_name(e->workaround),
               e->inplace ? "yes" : "no", e->nodes);
        if (e->safe_seconds[0])
            printf("\tsafe_seconds=%s", e->safe_seconds);
        if (e->fail_seconds[0])
            printf("\tfail_seconds=%s", e->fail_seconds);
        for (unsigned k = 0; k < e->avoid_count; k++)
            printf("%s%s=%s", k ? "," : "\tavoid_with=", e->avoid[k].name, e->avoid[k].value);
        if (e->avoid_count > 0)
            printf("\tavoid_checked=%" PRIu64, e->avoid_checked);
        if (e->avoid_seconds[0])
            printf("\tavoid_seconds=%s", e->avoid_seconds);
        if (e->workaround_seconds[0])
            printf("\tworkaround_seconds=%s", e->workaround_seconds);
        putchar('\n');
    }
    sg_bounds_free(&bounds);
    return 0;
}

static int replace(const char *path, const char *section, int argc, char **argv)
{
    /* Each entry's keys are a NULL-terminated run in `slots`. */
    const char **slots = calloc((size_t)argc * 2 + 1, sizeof *slots);
    const char *const **entries = calloc((size_t)argc + 1, sizeof *entries);
    if (!slots || !entries) {
        free(slots);
        free(entries);
        fprintf(stderr, "scaleguard-ini: error: out of memory\n");
        return 1;
    }
    size_t count = 0, used = 0;
    int status = 0;
    for (int i = 0; i < argc && status == 0; i++) {
        if (strcmp(argv[i], "--entry") == 0) {
            if (count > 0)
                slots[used++] = NULL;
            entries[count++] = &slots[used];
        } else if (count == 0) {
            fprintf(stderr, "scaleguard-ini: '%s' comes before the first --entry\n%s", argv[i],
                    usage);
            status = 2;
        } else if (!strchr(argv[i], '=')) {
            fprintf(stderr, "scaleguard-ini: '%s' is not KEY=VALUE\n%s", argv[i], usage);
            status = 2;
        } else {
            slots[used++] = argv[i];
        }
    }
    if (status == 0) {
        char error[1024];
        if (sg_bounds_replace(path, section, entries, count, error, sizeof error) != 0) {
            fprintf(stderr, "scaleguard-ini: error: %s\n", error);
            status = 1;
        }
    }
    free(slots);
    free(entries);
    return status;
}

static int parse_count(const char *text, uint64_t *value)
{
    char *end;
    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed == 0)
        return -1;
    *value = parsed;
    return 0;
}

static int parse_runs(const char *text, enum sg_verdict *verdict)
{
    if (strlen(text) != 4 || strspn(text, "pf-") != 4)
        return -1;
    /* A run not made (the job stopped at an earlier failure) proves nothing. */
    *verdict = sg_verdict_from_runs(text[0] == 'p', text[1] == 'f', text[2] == 'p', text[3] == 'f');
    return 0;
}

static int classify(char **argv)
{
    uint64_t safe_count, type_size, procs;
    enum sg_verdict at_double_procs, at_double_type_size;
    if (parse_count(argv[0], &safe_count) || parse_count(argv[1], &type_size) ||
        parse_count(argv[2], &procs))
        return usage_error("classify: SAFE_COUNT, TYPE_SIZE and PROCS are positive integers");
    if (parse_runs(argv[3], &at_double_procs) || parse_runs(argv[4], &at_double_type_size))
        return usage_error("classify: RUNS are four letters of p, f and -");
    struct sg_classification c =
        sg_classify(safe_count, type_size, procs, at_double_procs, at_double_type_size);
    printf("class=%s\ntrigger=%s\nbound=%" PRIu64 "\n", sg_class_name(c.cls),
           sg_trigger_name(c.trigger), c.bound);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        puts("scaleguard-ini " SCALEGUARD_VERSION);
        return 0;
    }
    if (argc < 2)
        return usage_error("no command given");
    if (strcmp(argv[1], "check") == 0) {
        int strict = argc == 4 && strcmp(argv[2], "--strict") == 0;
        if (argc != 3 + strict)
            return usage_error("check takes [--strict] and exactly one FILE");
        return check(argv[2 + strict], strict);
    }
    if (strcmp(argv[1], "dump") == 0) {
        if (argc != 3)
            return usage_error("dump takes exactly one FILE");
        return dump(argv[2]);
    }
    if (strcmp(argv[1], "replace") == 0) {
        if (argc < 4)
            return usage_error("replace needs FILE and SECTION");
        return replace(argv[2], argv[3], argc - 4, argv + 4);
    }
    if (strcmp(argv[1], "classify") == 0) {
        if (argc != 7)
            return usage_error("classify takes SAFE_COUNT TYPE_SIZE PROCS RUNS_2P RUNS_2S");
        return classify(argv + 2);
    }
    if (strcmp(argv[1], "routines") == 0 && argc == 2) {
        static const char *const layouts[] = {[SG_SIDE_NONE] = "none",
                                              [SG_SIDE_SINGLE] = "single",
                                              [SG_SIDE_REGULAR] = "regular",
                                              [SG_SIDE_V] = "v",
                                              [SG_SIDE_W] = "w",
                                              [SG_SIDE_PACKED] = "packed"};
        static const char *const reduces[] = {[SG_REDUCES_NONE] = "none",
                                              [SG_REDUCES_TO_ROOT] = "to-root",
                                              [SG_REDUCES_TO_ALL] = "to-all",
                                              [SG_REDUCES_SCATTERED] = "scattered",
                                              [SG_REDUCES_PREFIX] = "prefix",
                                              [SG_REDUCES_EXCLUSIVE_PREFIX] =
                                                  "exclusive-prefix"};
        for (int r = 0; r < SG_ROUTINE_COUNT; r++)
            printf("%s %s %s send=%s recv=%s reduces=%s blocks=%s\n", sg_routines[r].name,
                   sg_routines[r].irregular ? "irregular" : "regular",
                   sg_routines[r].in_place ? "in-place" : "no-in-place",
                   layouts[sg_routines[r].send], layouts[sg_routines[r].recv],
                   reduces[sg_routines[r].reduces],
                   sg_routines[r].neighbours ? "neighbours" : "ranks");
        return 0;
    }
    fprintf(stderr, "scaleguard-ini: unknown command '%s'\n%s", argv[1], usage);
    return 2;
}
