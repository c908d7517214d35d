/* Detector D and recovery: worked examples, then a property test over random
 * layouts truncated to C int as user code does, then arrays that must be
 * refused rather than guessed; then Alltoallw's byte displacements, each
 * block of its own datatype (sg_displs_recover_spans). */
#include <limits.h>
#include <stdlib.h>

#include "check.h"
#include "detectors.h"

static uint64_t rng_state = 0x5ca1e6a4d2026ULL;

static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t uniform(uint64_t below) { return below ? rng() % below : 0; }

/* log-uniform in [1, max]: small and huge values both get their share */
static uint64_t log_uniform(uint64_t max)
{
    int bits = 0;
    while (bits < 63 && (1ULL << bits) <= max)
        bits++;
    uint64_t top = 1ULL << uniform((uint64_t)bits);
    uint64_t v = top + uniform(top);
    return v > max ? max : v;
}

static int truncate_to_int(int64_t v) { return (int)(int32_t)(uint32_t)(uint64_t)v; }

static void test_examples(void)
{
    int64_t out[8];
    /* DESIGN.md: P = 4, n = 768 Mi chars, displacements summed in int. */
    const int n = 768 << 20;
    int counts[4] = {n, n, n, n};
    int displs[4] = {0, n, truncate_to_int(2LL * n), truncate_to_int(3LL * n)};
    CHECK(displs[2] > 0 && displs[3] < 0); /* 1536 Mi fits, 2304 Mi wraps */
    CHECK(sg_displs_suspicious(counts, displs, 4));
    struct sg_displs_report r = sg_displs_recover(counts, displs, 4, out);
    CHECK(r.status == SG_DISPLS_RECOVERED);
    CHECK_U64(r.index, 3);
    for (int i = 0; i < 4; i++)
        CHECK_U64(out[i], (int64_t)i * n);

    /* Past 2^32 the stored value is positive again: only the descent shows. */
    int big[3] = {INT_MAX, INT_MAX, INT_MAX};
    int wrapped[3] = {0, INT_MAX, truncate_to_int(2LL * INT_MAX + 4)};
    CHECK(wrapped[2] == 2);
    r = sg_displs_recover(big, wrapped, 3, out);
    CHECK(r.status == SG_DISPLS_RECOVERED);
    CHECK_U64(out[2], 2LL * INT_MAX + 4);

    /* An intact array passes untouched, even with overlapping send blocks. */
    int same[3] = {0, 0, 0}, ones[3] = {5, 5, 5};
    CHECK(!sg_displs_suspicious(ones, same, 3));
    r = sg_displs_recover(ones, same, 3, out);
    CHECK(r.status == SG_DISPLS_INTACT);

    /* Zero-count blocks may carry any displacement. */
    const int g = 1 << 30;
    int zc[4] = {g, 0, g, g};
    int zd[4] = {0, 0, g, truncate_to_int(2LL * g)};
    CHECK(sg_displs_recover(zc, zd, 4, out).status == SG_DISPLS_RECOVERED);
    CHECK_U64(out[3], 2LL * g);
    CHECK_U64(out[1], 0);

    /* A genuinely reversed layout is legal MPI, not a wrap: never "recovered". */
    int rc[2] = {100, 100}, rd[2] = {100, 0};
    CHECK(sg_displs_suspicious(rc, rd, 2));
    r = sg_displs_recover(rc, rd, 2, out);
    CHECK(r.status == SG_DISPLS_UNRECOVERABLE);
    CHECK_U64(r.index, 1);
    CHECK_STR(r.reason, "the layout is not non-descending");

    /* A negative first block cannot be told from a legal negative displacement. */
    int fc[2] = {1, 1}, fd[2] = {-4, 0};
    CHECK(sg_displs_recover(fc, fd, 2, out).status == SG_DISPLS_UNRECOVERABLE);

    /* A wrapped array whose recovered blocks overlap. */
    int od[4] = {0, n, 2 * n, truncate_to_int(3LL * n - 1)};
    r = sg_displs_recover(counts, od, 4, out);
    CHECK(r.status == SG_DISPLS_UNRECOVERABLE);
    CHECK_STR(r.reason, "blocks overlap");

    CHECK(sg_displs_recover(NULL, NULL, 0, out).status == SG_DISPLS_INTACT);
}

enum { MAX_PROCS = 100000, LAYOUTS = 100000 };

/* A random non-descending layout of P blocks, its intended displacements in
 * `intended`, the int array user code would hold in `displs`. */
static size_t random_layout(int *counts, int64_t *intended, int *displs)
{
    /* mostly small P, every 50th up to the full 100,000 */
    size_t procs = (size_t)log_uniform(uniform(50) == 0 ? MAX_PROCS : 1000);
    uint64_t total = log_uniform(1ULL << 40);
    uint64_t mean = total / procs ? total / procs : 1;
    uint64_t max_count = mean * 2 > INT_MAX ? INT_MAX : mean * 2;
    int64_t next = (int64_t)uniform(1000);
    /* Recovery trusts the first non-empty block (it cannot have wrapped) and
     * gaps below 2^31 between non-empty blocks: generate exactly that. */
    int started = 0;
    int64_t gap_room = INT_MAX;
    for (size_t i = 0; i < procs; i++) {
        uint64_t kind = uniform(10);
        counts[i] = kind == 0 ? 0 : (int)uniform(max_count + 1);
        int64_t gap = kind == 1 && started ? (int64_t)uniform((uint64_t)gap_room + 1) : 0;
        gap_room = counts[i] ? INT_MAX : gap_room - gap;
        started |= counts[i] != 0;
        intended[i] = next + gap;
        next = intended[i] + counts[i];
        displs[i] = truncate_to_int(intended[i]);
    }
    return procs;
}

static void test_recovery_property(void)
{
    int *counts = malloc(MAX_PROCS * sizeof *counts);
    int *displs = malloc(MAX_PROCS * sizeof *displs);
    int64_t *intended = malloc(MAX_PROCS * sizeof *intended);
    int64_t *out = malloc(MAX_PROCS * sizeof *out);
    long recovered = 0, wrong = 0;

    for (int layout = 0; layout < LAYOUTS; layout++) {
        size_t procs = random_layout(counts, intended, displs);
        int wrapped = 0;
        for (size_t i = 0; i < procs; i++)
            wrapped |= counts[i] != 0 && intended[i] != displs[i];

        struct sg_displs_report r = sg_displs_recover(counts, displs, procs, out);
        if (r.status != (wrapped ? SG_DISPLS_RECOVERED : SG_DISPLS_INTACT)) {
            wrong++;
            continue;
        }
        recovered += wrapped;
        for (size_t i = 0; i < procs; i++)
            if (out[i] != (counts[i] ? intended[i] : displs[i])) {
                wrong++;
                break;
            }
    }
    CHECK_U64(wrong, 0);
    CHECK(recovered > LAYOUTS / 4); /* the generator really exercises wraps */
    fprintf(stderr, "recovery: %d layouts, %ld wrapped and recovered\n", LAYOUTS, recovered);

    /* Non-monotone: small values with one descent; no wrap can explain it. */
    long accepted = 0;
    for (int trial = 0; trial < 20000; trial++) {
        size_t procs = 3 + (size_t)uniform(200);
        int64_t next = 0;
        for (size_t i = 0; i < procs; i++) {
            counts[i] = 1 + (int)uniform(1 << 20);
            displs[i] = (int)next;
            next += counts[i] + (int64_t)uniform(1 << 10);
        }
        size_t j = 2 + (size_t)uniform(procs - 2); /* displs[j - 1] > 0 */
        displs[j] = (int)uniform((uint64_t)displs[j - 1]); /* strictly below */
        accepted += sg_displs_recover(counts, displs, procs, out).status != SG_DISPLS_UNRECOVERABLE;
    }
    CHECK_U64(accepted, 0);

    /* Overlapping: a wrapped layout with one block moved into its predecessor. */
    accepted = 0;
    for (int trial = 0; trial < 20000; trial++) {
        size_t procs = 3 + (size_t)uniform(100);
        int64_t next = 0;
        for (size_t i = 0; i < procs; i++) {
            counts[i] = (INT_MAX / 4) + (int)uniform(INT_MAX / 2);
            intended[i] = next;
            next += counts[i];
        }
        size_t j = 1 + (size_t)uniform(procs - 1);
        intended[j] = intended[j - 1] + (int64_t)uniform((uint64_t)counts[j - 1]);
        for (size_t i = 0; i < procs; i++)
            displs[i] = truncate_to_int(intended[i]);
        if (!sg_displs_suspicious(counts, displs, procs))
            continue; /* no wrap left to judge; MPI sees what the user wrote */
        accepted += sg_displs_recover(counts, displs, procs, out).status != SG_DISPLS_UNRECOVERABLE;
    }
    CHECK_U64(accepted, 0);

    free(counts);
    free(displs);
    free(intended);
    free(out);
}

/* Alltoallw: displacements in bytes, block i counts[i] elements of a
 * datatype of its own, spanning counts[i] x its extent. */
static void test_byte_displacements(void)
{
    int64_t out[4];
    /* The case: rank 0 receives 1.1e9 bytes from itself (chars) and
     * from rank 1 (ints), 1 MiB from rank 2 (one contiguous element), the
     * byte displacements summed in int. */
    int counts[3] = {1100000000, 275000000, 1};
    int64_t spans[3] = {1100000000, 275000000LL * 4, 1 << 20};
    int displs[3] = {0, 1100000000, truncate_to_int(2200000000LL)};
    CHECK(displs[2] < 0 && sg_displs_suspicious(counts, displs, 3));
    struct sg_displs_report r = sg_displs_recover_spans(counts, spans, displs, 3, out);
    CHECK(r.status == SG_DISPLS_RECOVERED);
    CHECK_U64(r.index, 2);
    CHECK_U64(out[1], 1100000000);
    CHECK_U64(out[2], 2200000000LL);

    /* The spans, not the counts, judge overlap: 250 M doubles (2e9 bytes)
     * then a block 1000 bytes before their end, then a wrapped one. Read as
     * counts of chars the same array would pass as a wrap. */
    int doubles[3] = {250000000, 1, 1};
    int64_t bytes[3] = {2000000000, 8, 8};
    int overlap[3] = {0, 1999999000, truncate_to_int(2200000000LL)};
    r = sg_displs_recover_spans(doubles, bytes, overlap, 3, out);
    CHECK(r.status == SG_DISPLS_UNRECOVERABLE);
    CHECK_U64(r.index, 1);
    CHECK(sg_displs_recover(doubles, overlap, 3, out).status == SG_DISPLS_RECOVERED);

    /* Random layouts of mixed datatypes (extents 1 to 24 bytes), gaps under
     * 2^31 bytes: every wrapped one recovered exactly. */
    enum { BLOCKS = 64, TRIALS = 20000 };
    static const int extents[] = {1, 2, 4, 8, 12, 24};
    int c[BLOCKS], d[BLOCKS];
    int64_t span[BLOCKS], intended[BLOCKS], got[BLOCKS];
    long wrong = 0, wrapped_total = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        size_t procs = 2 + (size_t)uniform(BLOCKS - 1);
        int64_t next = (int64_t)uniform(1000);
        int wrapped = 0;
        for (size_t i = 0; i < procs; i++) {
            int64_t extent = extents[uniform(sizeof extents / sizeof *extents)];
            c[i] = uniform(8) == 0 ? 0 : 1 + (int)uniform((uint64_t)(INT_MAX / 4 / extent));
            span[i] = c[i] * extent;
            intended[i] = next;
            d[i] = truncate_to_int(next);
            wrapped |= c[i] != 0 && d[i] != intended[i];
            next += span[i] + (int64_t)log_uniform(1u << 20) - 1;
        }
        r = sg_displs_recover_spans(c, span, d, procs, got);
        if (r.status != (wrapped ? SG_DISPLS_RECOVERED : SG_DISPLS_INTACT)) {
            wrong++;
            continue;
        }
        wrapped_total += wrapped;
        for (size_t i = 0; i < procs; i++)
            if (got[i] != (c[i] ? intended[i] : d[i])) {
                wrong++;
                break;
            }
    }
    CHECK_U64(wrong, 0);
    CHECK(wrapped_total > TRIALS / 4);
    fprintf(stderr, "byte displacements: %d layouts, %ld wrapped and recovered\n", TRIALS,
            wrapped_total);
}

int main(void)
{
    test_examples();
    test_recovery_property();
    test_byte_displacements();
    return check_exit();
}
