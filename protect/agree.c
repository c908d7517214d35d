/* The ranks agree on the bounds they loaded, once, inside MPI_Init.
 *
 * Every rank of a collective must take the same path through the layer, or
 * compute its own part of it locally (W2, Class D at the root); both follow
 * from the loaded bounds. A node without the INI, a typo in one copy, or a
 * SCALEGUARD_CONFIG that differs per rank would put the ranks on different
 * paths: mismatched collectives, hangs, messages left unmatched. So the
 * bounds take effect only when every process of MPI_COMM_WORLD has loaded
 * the same rules (the digest of layer.c), which one Allreduce of 16 bytes
 * inside MPI_Init (or MPI_Init_thread) tells; every communicator the job
 * makes later holds processes of this world, so its ranks agree too. When
 * they differ, every rank goes on with Class D protection only, which needs
 * no agreement, and rank 0 names each group of ranks, their hosts and what
 * it loaded.
 *
 * Processes started by MPI_Comm_spawn agree within their own world;
 * intercommunicators pass through the layer unprotected. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "layer.h"
#include "spread.h"
#include "w4.h"

int sg_init_seen;

/* What one rank loaded, as rank 0 reports it. */
struct loaded {
    uint64_t fingerprint;
    char host[64];
    char source[600];
};

/* Append "0,2-5,7" for the ranks of `all` whose fingerprint is `fp`. */
static void append_ranks(char *out, size_t size, const struct loaded *all, int procs,
                         uint64_t fp, int *members)
{
    *members = 0;
    for (int r = 0; r < procs; r++) {
        if (all[r].fingerprint != fp)
            continue;
        int last = r;
        while (last + 1 < procs && all[last + 1].fingerprint == fp)
            last++;
        size_t used = strlen(out);
        snprintf(out + used, size - used, last > r ? "%s%d-%d" : "%s%d", *members ? "," : "", r,
                 last);
        *members += last - r + 1;
        r = last;
    }
}

/* Append the hosts of the ranks of `all` whose fingerprint is `fp`: "host
 * a" or "hosts a,b,c", in the order of their first rank; past 8 hosts,
 * "and more" (a group of a large job may span many nodes; comparing with
 * the 8 named keeps this linear in the ranks). */
static void append_hosts(char *out, size_t size, const struct loaded *all, int procs,
                         uint64_t fp)
{
    enum { named_at_most = 8 };
    const char *named[named_at_most];
    int count = 0, more = 0;
    for (int r = 0; r < procs && !more; r++) {
        if (all[r].fingerprint != fp)
            continue;
        int seen = 0;
        for (int h = 0; h < count && !seen; h++)
            seen = strcmp(named[h], all[r].host) == 0;
        if (seen)
            continue;
        if (count == named_at_most)
            more = 1;
        else
            named[count++] = all[r].host;
    }
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s", count > 1 ? "hosts " : "host ");
    for (int h = 0; h < count; h++) {
        used = strlen(out);
        snprintf(out + used, size - used, "%s%s", h ? "," : "", named[h]);
    }
    if (more) {
        used = strlen(out);
        snprintf(out + used, size - used, " and more");
    }
}

/* Rank 0's one message: the groups of ranks by what they loaded, in the
 * order of each group's first rank, each with the hosts its ranks are on
 * (a node without the INI is named by its ranks' host). */
static void report(const struct loaded *all, int procs)
{
    size_t size = 8192;
    char *text = malloc(size), *ranks = malloc(size), *hosts = malloc(size);
    if (text == NULL || ranks == NULL || hosts == NULL) {
        free(text);
        free(ranks);
        free(hosts);
        sg_log(SG_LOG_WARN, NULL, "the ranks loaded different bounds: none is applied, on any "
                                  "rank (Class D protection only)");
        return;
    }
    snprintf(text, size, "the ranks loaded different bounds (SCALEGUARD_CONFIG), so none is "
                         "applied, on any rank (Class D protection only):");
    int groups = 0;
    for (int r = 0; r < procs; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = all[q].fingerprint != all[r].fingerprint;
        if (!first)
            continue;
        if (++groups > 8) {
            size_t used = strlen(text);
            snprintf(text + used, size - used, "; and more");
            break;
        }
        int members;
        ranks[0] = '\0';
        append_ranks(ranks, size, all, procs, all[r].fingerprint, &members);
        hosts[0] = '\0';
        append_hosts(hosts, size, all, procs, all[r].fingerprint);
        size_t used = strlen(text);
        snprintf(text + used, size - used, "%s rank%s %s (%s): %s", groups > 1 ? ";" : "",
                 members > 1 ? "s" : "", ranks, hosts, all[r].source);
    }
    sg_log(SG_LOG_WARN, NULL, "%s", text);
    free(text);
    free(ranks);
    free(hosts);
}

/* The running MPI against the one the bounds were measured on (its library,
 * its control variables: fingerprint/compare.h), on rank 0: the variables
 * that choose algorithms are alike on every rank. A difference is told;
 * the bounds still apply. */
static void compare_platform(const char *path, const struct sg_bounds *bounds)
{
    char message[2048];
    int differing = sg_fingerprint_compare(bounds, 8, "; ", message, sizeof message);
    if (differing > 0)
        sg_log(SG_LOG_WARN, NULL, "the running MPI is not the one the bounds of %s were measured "
                                  "on, so they may not hold (run the tester again; "
                                  "scaleguard-cvars --against %s lists every difference): %s",
               path, path, message);
    else if (differing < 0)
        sg_log(SG_LOG_WARN, NULL, "the running MPI could not be compared with the one the "
                                  "bounds of %s were measured on: %s", path, message);
}

static void tell_warning(const char *message) { sg_log(SG_LOG_WARN, NULL, "%s", message); }

/* After PMPI_Init: load, agree, apply. An error in the agreement itself
 * leaves Class D protection only, on this rank; it is MPI's own failure,
 * and MPI reports it on the others too. */
static void agree(void)
{
    sg_init_seen = 1;
    int rank, procs;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &procs);
    sg_world = (struct sg_world){.procs = procs, .rank = rank};
    const struct sg_layer *layer = sg_layer();
    /* One digest of the bounds and the checks', the watchdog's and the
     * trace's settings, 2 words, and only where the ranks differ the four
     * apart (the ranks do alike). */
    const struct sg_checks_setting *wanted = &layer->checks_loaded;
    uint64_t checks = (uint64_t)wanted->options.batch << 2 |
                      (uint64_t)wanted->options.action << 1 | (uint64_t)wanted->collectives;
    uint64_t watchdog = (uint64_t)(layer->watchdog_loaded.seconds * 1000) << 1 |
                        (uint64_t)layer->watchdog_loaded.action;
    uint64_t trace = (uint64_t)layer->trace_loaded.on;
    uint64_t w4 = sg_w4_start(&layer->bounds); /* which entries' W4 can run here */
    uint64_t digest = layer->fingerprint ^ (checks + 1) * UINT64_C(0x9e3779b97f4a7c15) ^
                      (watchdog + 1) * UINT64_C(0xc2b2ae3d27d4eb4f) ^
                      (trace + 1) * UINT64_C(0x165667b19e3779f9) ^
                      (w4 + 1) * UINT64_C(0x27d4eb2f165667c5);
    uint64_t mine[2] = {digest, ~digest}, extremes[10];
    if (PMPI_Allreduce(mine, extremes, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return;
    int agreed = extremes[0] == ~extremes[1]; /* max == min */
    unsigned settings_agreed = agreed ? SG_AGREED_CHECKS | SG_AGREED_WATCHDOG | SG_AGREED_TRACE
                                      : 0;
    int w4_agreed = agreed;
    if (!agreed) {
        uint64_t apart[10] = {layer->fingerprint, ~layer->fingerprint, checks, ~checks,
                              watchdog, ~watchdog, trace, ~trace, w4, ~w4};
        if (PMPI_Allreduce(apart, extremes, 10, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) !=
            MPI_SUCCESS)
            return;
        agreed = extremes[0] == ~extremes[1];
        settings_agreed = (extremes[2] == ~extremes[3] ? SG_AGREED_CHECKS : 0) |
                          (extremes[4] == ~extremes[5] ? SG_AGREED_WATCHDOG : 0) |
                          (extremes[6] == ~extremes[7] ? SG_AGREED_TRACE : 0);
        w4_agreed = extremes[8] == ~extremes[9];
    }
    sg_layer_apply(agreed, settings_agreed);
    if (agreed && rank == 0 && layer->path != NULL)
        compare_platform(layer->path, &layer->bounds);
    sg_w4_settle(w4_agreed, agreed && rank == 0, layer->path, tell_warning);
    if (layer->checks.collectives)
        sg_check_prepare_world(&layer->checks.options);
    sg_observe_start(layer->watchdog.seconds, layer->watchdog.action,
                     layer->trace.on ? layer->trace.dir : NULL);
    if (!(settings_agreed & SG_AGREED_CHECKS) && rank == 0)
        sg_log(SG_LOG_WARN, NULL, "the ranks read different settings of the collective "
                                  "checks (SCALEGUARD_CHECK, _ACTION, _BATCH or [checks]): no "
                                  "checks, on any rank");
    if (!(settings_agreed & SG_AGREED_WATCHDOG) && rank == 0)
        sg_log(SG_LOG_WARN, NULL, "the ranks read different settings of the watchdog "
                                  "(SCALEGUARD_WATCHDOG or _ACTION): no watchdog, on any rank");
    if (!(settings_agreed & SG_AGREED_TRACE) && rank == 0)
        sg_log(SG_LOG_WARN, NULL, "the ranks read different settings of the trace "
                                  "(SCALEGUARD_TRACE set on some ranks only): no trace, on any "
                                  "rank");
    if (agreed) {
        if (rank == 0 && layer->path != NULL)
            sg_log(SG_LOG_INFO, NULL, "loaded %zu bound entries from %s", layer->bounds.count,
                   layer->path);
        if (layer->bounds.count > 0) /* which entries judge a call follows from its spread */
            sg_spread_prepare_world();
        sg_protect_prepare_world();
        return;
    }

    struct loaded own = {.fingerprint = layer->fingerprint};
    if (gethostname(own.host, sizeof own.host - 1) != 0)
        snprintf(own.host, sizeof own.host, "?");
    snprintf(own.source, sizeof own.source, "%s", layer->source);
    struct loaded *all = rank == 0 ? malloc((size_t)procs * sizeof *all) : NULL;
    /* every rank takes part, even when rank 0 has no room: it then reports less */
    int have_room = rank != 0 || all != NULL;
    PMPI_Bcast(&have_room, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (have_room)
        PMPI_Gather(&own, (int)sizeof own, MPI_BYTE, all, (int)sizeof own, MPI_BYTE, 0,
                    MPI_COMM_WORLD);
    if (rank == 0 && have_room)
        report(all, procs);
    else if (rank == 0)
        sg_log(SG_LOG_WARN, NULL, "the ranks loaded different bounds: none is applied, on any "
                                  "rank (Class D protection only)");
    free(all);
}

SG_EXPORT int MPI_Init(int *argc, char ***argv)
{
    if (sg_foreign_mpi)
        return sg_foreign_init(argc, argv);
    int err = PMPI_Init(argc, argv);
    if (err == MPI_SUCCESS)
        agree();
    return err;
}

SG_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (sg_foreign_mpi)
        return sg_foreign_init_thread(argc, argv, required, provided);
    int err = PMPI_Init_thread(argc, argv, required, provided);
    if (err == MPI_SUCCESS)
        agree();
    return err;
}
