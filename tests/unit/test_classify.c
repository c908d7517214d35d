/* The Table IX classifier on the paper's own measurements (Prob. 10-13) and
 * on every row of the table. */
#include "check.h"
#include "detectors.h"
#include "routines.h"

#define M 1000000ULL

static struct sg_classification classify_measured(uint64_t ns, uint64_t s, uint64_t p,
                                                  uint64_t at_2p, uint64_t at_2s)
{
    uint64_t delta = ns / 16; /* f = 16 */
    return sg_classify(ns, s, p, sg_verdict_from_bound(ns, delta, at_2p),
                       sg_verdict_from_bound(ns, delta, at_2s));
}

static void test_paper_problems(void)
{
    /* Prob. 10/11: 42M at (1 B, 48), 21M at (1 B, 96), 42M at (2 B, 48) */
    struct sg_classification c = classify_measured(42 * M, 1, 48, 21 * M, 42 * M);
    CHECK(c.cls == SG_CLASS_G);
    CHECK(c.trigger == SG_TRIGGER_NP);
    CHECK_U64(c.bound, 2016 * M);

    /* Prob. 13: 42M, 21M, 21M: nP > 2016M bytes */
    c = classify_measured(42 * M, 1, 48, 21 * M, 21 * M);
    CHECK(c.cls == SG_CLASS_G);
    CHECK(c.trigger == SG_TRIGGER_SNP);
    CHECK_U64(c.bound, 2016 * M);

    /* Prob. 12: 124M, 62M at 2P, 68M at 2s: no row matches */
    c = classify_measured(124 * M, 1, 48, 62 * M, 68 * M);
    CHECK(c.cls == SG_CLASS_X);
    CHECK(c.trigger == SG_TRIGGER_N);
    CHECK_U64(c.bound, 124 * M);
    CHECK(sg_verdict_from_bound(124 * M, 124 * M / 16, 68 * M) == SG_VERDICT_NEITHER);
}

static void test_table_rows(void)
{
    const struct {
        enum sg_verdict at_2p, at_2s;
        enum sg_trigger trigger;
        uint64_t bound; /* at n_s = 1000, s = 4, P = 8 */
    } rows[] = {
        {SG_VERDICT_HALF, SG_VERDICT_HALF, SG_TRIGGER_SNP, 32000},
        {SG_VERDICT_HALF, SG_VERDICT_SAME, SG_TRIGGER_NP, 8000},
        {SG_VERDICT_SAME, SG_VERDICT_HALF, SG_TRIGGER_SN, 4000},
        {SG_VERDICT_SAME, SG_VERDICT_SAME, SG_TRIGGER_N, 1000},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct sg_classification c = sg_classify(1000, 4, 8, rows[i].at_2p, rows[i].at_2s);
        CHECK(c.cls == SG_CLASS_G);
        CHECK(c.trigger == rows[i].trigger);
        CHECK_U64(c.bound, rows[i].bound);
    }
    enum sg_verdict all[] = {SG_VERDICT_HALF, SG_VERDICT_SAME, SG_VERDICT_NEITHER};
    for (int a = 0; a < 3; a++) {
        struct sg_classification c = sg_classify(1000, 4, 8, all[a], SG_VERDICT_NEITHER);
        CHECK(c.cls == SG_CLASS_X && c.bound == 1000);
        c = sg_classify(1000, 4, 8, SG_VERDICT_NEITHER, all[a]);
        CHECK(c.cls == SG_CLASS_X && c.bound == 1000);
    }
}

static void test_verdicts(void)
{
    /* The four verification runs, in the paper's order. */
    CHECK(sg_verdict_from_runs(1, 1, 0, 0) == SG_VERDICT_HALF);
    CHECK(sg_verdict_from_runs(1, 0, 1, 1) == SG_VERDICT_SAME);
    CHECK(sg_verdict_from_runs(0, 0, 1, 1) == SG_VERDICT_SAME);
    CHECK(sg_verdict_from_runs(1, 0, 1, 0) == SG_VERDICT_NEITHER);
    CHECK(sg_verdict_from_runs(0, 1, 0, 1) == SG_VERDICT_NEITHER);
    /* Boundaries of the intervals [n_s/2, (n_s+d)/2) and [n_s, n_s+d). */
    CHECK(sg_verdict_from_bound(1001, 64, 500) == SG_VERDICT_HALF);
    CHECK(sg_verdict_from_bound(1001, 64, 531) == SG_VERDICT_HALF);
    CHECK(sg_verdict_from_bound(1001, 64, 532) == SG_VERDICT_NEITHER);
    CHECK(sg_verdict_from_bound(1001, 64, 499) == SG_VERDICT_NEITHER);
    CHECK(sg_verdict_from_bound(1001, 64, 1001) == SG_VERDICT_SAME);
    CHECK(sg_verdict_from_bound(1001, 64, 1064) == SG_VERDICT_SAME);
    CHECK(sg_verdict_from_bound(1001, 64, 1065) == SG_VERDICT_NEITHER);
    /* nothing can fail above UINT64_MAX, so no verdict but "neither" */
    CHECK(sg_verdict_from_bound(UINT64_MAX, UINT64_MAX, UINT64_MAX) == SG_VERDICT_NEITHER);
    CHECK(sg_verdict_from_bound(UINT64_MAX, 1, UINT64_MAX / 2) == SG_VERDICT_HALF);
    CHECK_STR(sg_verdict_name(SG_VERDICT_NEITHER), "neither");
}

static void test_routine_table(void)
{
    CHECK(SG_ROUTINE_COUNT == 21 * SG_FORM_COUNT);
    int irregular = 0, in_place = 0;
    for (int i = 0; i < SG_ROUTINE_COUNT; i++) {
        CHECK(sg_routine_by_name(sg_routines[i].name) == i);
        irregular += sg_routines[i].irregular;
        in_place += sg_routines[i].in_place;
    }
    CHECK(irregular == 8 * SG_FORM_COUNT);
    CHECK(in_place == 15 * SG_FORM_COUNT && !sg_routines[SG_MPI_Bcast].in_place && !sg_routines[SG_MPI_Ibcast].in_place);
    CHECK(sg_routine_by_name("MPI_Gatherv") == SG_MPI_Gatherv);
    CHECK(sg_routines[SG_MPI_Reduce_scatter].global_buffer == SG_GLOBAL_SN);
    CHECK(sg_routine_by_name("MPI_Send") == -1);
    CHECK(sg_routine_by_name_length("MPI_Gathervx", 11) == SG_MPI_Gatherv);
    CHECK(sg_routine_by_name_length("MPI_Gatherv", 10) == SG_MPI_Gather);
    CHECK(sg_routine_by_name_length("", 0) == -1);
    enum sg_class cls;
    CHECK(sg_class_parse("X", &cls) == 0 && cls == SG_CLASS_X);
    CHECK(sg_class_parse("g", &cls) == -1);
}

int main(void)
{
    test_paper_problems();
    test_table_rows();
    test_verdicts();
    test_routine_table();
    return check_exit();
}
