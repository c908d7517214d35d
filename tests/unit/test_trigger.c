/* Detectors G and X: the four trigger forms, saturation past 2^64, the
 * largest safe count and process count, and the documented Class X policy
 * off the measured point. */
#include "check.h"
#include "detectors.h"

static void test_forms(void)
{
    /* MPICH 4.0.2 MPI_Scatter, P = 3, chars: 700M passes, 750M fails. */
    const uint64_t bound = 2100000000;
    CHECK(!sg_trigger_exceeds(SG_TRIGGER_SNP, 1, 700000000, 3, bound));
    CHECK(sg_trigger_exceeds(SG_TRIGGER_SNP, 1, 700000001, 3, bound));
    CHECK(sg_trigger_exceeds(SG_TRIGGER_SNP, 2, 400000000, 3, bound));
    CHECK(!sg_trigger_exceeds(SG_TRIGGER_NP, 2, 700000000, 3, bound));
    CHECK(sg_trigger_exceeds(SG_TRIGGER_NP, 1, 700000000, 4, bound));
    CHECK(!sg_trigger_exceeds(SG_TRIGGER_SN, 1, 2100000000, 1000, bound));
    CHECK(sg_trigger_exceeds(SG_TRIGGER_SN, 4, 600000000, 1, bound));
    CHECK(!sg_trigger_exceeds(SG_TRIGGER_N, 8, 2100000000, 1000, bound));
    CHECK(sg_trigger_exceeds(SG_TRIGGER_N, 1, 2100000001, 1, bound));

    CHECK_U64(sg_trigger_value(SG_TRIGGER_SNP, 3, 5, 7), 105);
    CHECK_U64(sg_trigger_value(SG_TRIGGER_NP, 3, 5, 7), 35);
    CHECK_U64(sg_trigger_value(SG_TRIGGER_SN, 3, 5, 7), 15);
    CHECK_U64(sg_trigger_value(SG_TRIGGER_N, 3, 5, 7), 5);

    /* s*n*P past 2^64 saturates instead of wrapping to a small number. */
    CHECK_U64(sg_trigger_value(SG_TRIGGER_SNP, 1ULL << 20, 1ULL << 31, 1ULL << 20), UINT64_MAX);
    CHECK(sg_trigger_exceeds(SG_TRIGGER_SNP, 1ULL << 20, 1ULL << 31, 1ULL << 20, UINT64_MAX - 1));
    CHECK(!sg_trigger_exceeds(SG_TRIGGER_SNP, 1ULL << 20, 1ULL << 31, 1ULL << 20, UINT64_MAX));

    CHECK(sg_trigger_depends_on_type_size(SG_TRIGGER_SNP));
    CHECK(sg_trigger_depends_on_type_size(SG_TRIGGER_SN));
    CHECK(!sg_trigger_depends_on_type_size(SG_TRIGGER_NP));
    CHECK(!sg_trigger_depends_on_type_size(SG_TRIGGER_N));
}

static void test_max_count(void)
{
    CHECK_U64(sg_trigger_max_count(SG_TRIGGER_SNP, 1, 3, 2100000000), 700000000);
    CHECK_U64(sg_trigger_max_count(SG_TRIGGER_SNP, 8, 3, 2100000000), 87500000);
    CHECK_U64(sg_trigger_max_count(SG_TRIGGER_NP, 8, 3, 2100000000), 700000000);
    CHECK_U64(sg_trigger_max_count(SG_TRIGGER_SN, 8, 3, 2100000000), 262500000);
    CHECK_U64(sg_trigger_max_count(SG_TRIGGER_N, 8, 3, 2100000000), 2100000000);
    CHECK_U64(sg_trigger_max_count(SG_TRIGGER_SNP, 16, 4, 63), 0); /* even n = 1 triggers */
    CHECK_U64(sg_trigger_max_count(SG_TRIGGER_SNP, UINT64_MAX, 2, 1000), 0);
    /* the largest safe count really is safe, and one more is not */
    for (uint64_t s = 1; s <= 16; s *= 2)
        for (uint64_t p = 1; p <= 1000; p = p * 3 + 1)
            for (int t = SG_TRIGGER_SNP; t <= SG_TRIGGER_N; t++) {
                uint64_t n = sg_trigger_max_count((enum sg_trigger)t, s, p, 123456789);
                CHECK(!sg_trigger_exceeds((enum sg_trigger)t, s, n, p, 123456789));
                CHECK(sg_trigger_exceeds((enum sg_trigger)t, s, n + 1, p, 123456789));
            }
}

/* n exceeds the largest safe count exactly where the trigger is exceeded
 * (the layer's hot path asks the latter, which needs no division): edges
 * (0, 1, saturation, no bound) and random values of every magnitude. */
static void test_max_count_matches_exceeds(void)
{
    const uint64_t edges[] = {0, 1, 2, 3, 7, 1000, 123456789, 2147483647, 2147483648ULL,
                              1ULL << 32, 1ULL << 40, UINT64_MAX / 3, UINT64_MAX - 1, UINT64_MAX};
    const size_t count = sizeof edges / sizeof *edges;
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (int round = 0; round < 200000; round++) {
        uint64_t v[4];
        for (int i = 0; i < 4; i++) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            v[i] = round < 20000 ? edges[state % count] : state >> (state % 64);
        }
        enum sg_trigger t = (enum sg_trigger)(round % 4);
        uint64_t s = v[0], n = v[1], p = v[2], bound = v[3];
        int exceeds = sg_trigger_exceeds(t, s, n, p, bound);
        if (exceeds != (n > sg_trigger_max_count(t, s, p, bound))) {
            CHECK(!"sg_trigger_max_count and sg_trigger_exceeds disagree");
            return;
        }
    }
}

static void test_max_procs(void)
{
    /* MPICH 4.0.2 MPI_Scatter, chars: s*n*P <= 2.1e9 */
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_SNP, 1, 700000000, 2100000000), 3);
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_SNP, 1, 700000001, 2100000000), 2);
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_SNP, 4, 700000000, 2100000000), 0);
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_NP, 4, 700000000, 2100000000), 3);
    /* the forms without P: any P or none */
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_SN, 3, 700000000, 2100000000), UINT64_MAX);
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_SN, 4, 700000000, 2100000000), 0);
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_N, 8, 2100000000, 2100000000), UINT64_MAX);
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_N, 1, 2100000001, 2100000000), 0);
    /* nothing moves, no bound, and s*n past 2^64 */
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_SNP, 8, 0, 10), UINT64_MAX);
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_NP, 8, 1ULL << 40, UINT64_MAX), UINT64_MAX);
    CHECK_U64(sg_trigger_max_procs(SG_TRIGGER_SNP, 1ULL << 33, 1ULL << 33, UINT64_MAX - 1), 0);
    /* the largest P really is safe, and one more is not */
    for (uint64_t s = 1; s <= 16; s *= 2)
        for (uint64_t n = 1; n <= 100000; n = n * 7 + 3)
            for (int t = SG_TRIGGER_SNP; t <= SG_TRIGGER_N; t++) {
                uint64_t p = sg_trigger_max_procs((enum sg_trigger)t, s, n, 123456789);
                if (p > 0)
                    CHECK(!sg_trigger_exceeds((enum sg_trigger)t, s, n, p, 123456789));
                if (p < UINT64_MAX)
                    CHECK(sg_trigger_exceeds((enum sg_trigger)t, s, n, p + 1, 123456789));
            }
}

static void test_class_x_policy(void)
{
    /* Prob. 12 measured at (1 B, 48): n_s = 124M. */
    const uint64_t b = 124000000;
    int exact = 0;
    CHECK_U64(sg_x_effective_bound(b, 1, 48, 1, 48, &exact), b);
    CHECK(exact);
    CHECK(!sg_x_exceeds(b, 1, 48, 1, b, 48));
    CHECK(sg_x_exceeds(b, 1, 48, 1, b + 1, 48));
    /* larger P or s shrink the bound in proportion (the snP form) */
    CHECK_U64(sg_x_effective_bound(b, 1, 48, 1, 96, &exact), 62000000);
    CHECK(!exact);
    CHECK_U64(sg_x_effective_bound(b, 1, 48, 2, 48, NULL), 62000000);
    CHECK_U64(sg_x_effective_bound(b, 1, 48, 2, 96, NULL), 31000000);
    /* smaller s or P never grow it (the n form) */
    CHECK_U64(sg_x_effective_bound(b, 1, 48, 1, 24, NULL), b);
    CHECK_U64(sg_x_effective_bound(b, 4, 48, 1, 24, NULL), b);
    /* mixed: bigger s, smaller P: the s dimension alone shrinks it */
    CHECK_U64(sg_x_effective_bound(b, 1, 48, 4, 24, NULL), 31000000);
    CHECK(sg_x_exceeds(b, 1, 48, 4, 31000001, 24));
    /* the policy is the minimum over the four Class G forms through the point */
    for (uint64_t s = 1; s <= 8; s++)
        for (uint64_t p = 1; p <= 200; p += 7) {
            uint64_t expect = b;
            for (int t = SG_TRIGGER_SNP; t <= SG_TRIGGER_N; t++) {
                uint64_t g = sg_trigger_value((enum sg_trigger)t, 2, b, 48);
                uint64_t n = sg_trigger_max_count((enum sg_trigger)t, s, p, g);
                expect = n < expect ? n : expect;
            }
            uint64_t got = sg_x_effective_bound(b, 2, 48, s, p, NULL);
            /* rounding down happens once per shrunk dimension: at most 1 apart */
            CHECK(got <= expect && expect - got <= 1);
        }
}

static void test_names(void)
{
    enum sg_trigger t;
    CHECK(sg_trigger_parse("nP", &t) == 0 && t == SG_TRIGGER_NP);
    CHECK(sg_trigger_parse("NP", &t) == -1);
    CHECK(sg_trigger_parse("", &t) == -1);
    for (int i = SG_TRIGGER_SNP; i <= SG_TRIGGER_N; i++)
        CHECK(sg_trigger_parse(sg_trigger_name((enum sg_trigger)i), &t) == 0 && (int)t == i);
}

int main(void)
{
    test_forms();
    test_max_count();
    test_max_count_matches_exceeds();
    test_max_procs();
    test_class_x_policy();
    test_names();
    return check_exit();
}
