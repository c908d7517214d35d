/* The workarounds' temporaries kept between calls (workarounds/scratch.h):
 * a size given back serves the next request of about that size, small
 * ones are not kept, at most SG_SCRATCH_KEPT (the largest) are, and
 * MPI_Finalize's release frees them all. */
#include "check.h"
#include "scratch.h"

#include <stdint.h>

#define MIB ((size_t)1 << 20)

static size_t kept_bytes(int *count)
{
    size_t bytes;
    *count = sg_scratch_kept(&bytes);
    return bytes;
}

static void test_reuse(void)
{
    int count;
    char *a = sg_scratch_get(64 * MIB);
    CHECK(a != NULL);
    CHECK((uintptr_t)a % _Alignof(max_align_t) == 0);
    a[0] = 1, a[64 * MIB - 1] = 2; /* all of it is there */
    sg_scratch_put(a);
    CHECK_U64(kept_bytes(&count), 64 * MIB);
    CHECK_U64(count, 1);
    /* the same size, and one down to half of it, take the kept block */
    char *b = sg_scratch_get(64 * MIB);
    CHECK(b == a);
    CHECK_U64(kept_bytes(&count), 0);
    sg_scratch_put(b);
    char *c = sg_scratch_get(32 * MIB);
    CHECK(c == a);
    /* while it is lent, a second request gets its own block */
    char *d = sg_scratch_get(32 * MIB);
    CHECK(d != NULL && d != c);
    sg_scratch_put(c);
    sg_scratch_put(d);
    CHECK_U64(kept_bytes(&count), 96 * MIB);
    CHECK_U64(count, 2);
    /* below half of every kept block, or above all: a block of its own */
    char *e = sg_scratch_get(8 * MIB), *f = sg_scratch_get(128 * MIB);
    CHECK(e != a && e != d && f != a && f != d);
    sg_scratch_put(e);
    sg_scratch_put(f);
    CHECK_U64(kept_bytes(&count), (64 + 32 + 8 + 128) * MIB);
    CHECK_U64(count, 4);
    sg_scratch_release_all();
    CHECK_U64(kept_bytes(&count), 0);
}

static void test_small_not_kept(void)
{
    int count;
    char *a = sg_scratch_get(SG_SCRATCH_MIN - 1);
    CHECK(a != NULL);
    sg_scratch_put(a);
    CHECK_U64(kept_bytes(&count), 0);
    sg_scratch_put(NULL);
    char *zero = sg_scratch_get(0);
    CHECK(zero != NULL);
    sg_scratch_put(zero);
    CHECK_U64(kept_bytes(&count), 0);
}

static void test_largest_kept(void)
{
    int count;
    char *blocks[SG_SCRATCH_KEPT + 2];
    /* 1, 2, ... 6 MiB lent at once: the largest SG_SCRATCH_KEPT stay */
    for (int i = 0; i < SG_SCRATCH_KEPT + 2; i++)
        blocks[i] = sg_scratch_get((size_t)(i + 1) * MIB);
    for (int i = 0; i < SG_SCRATCH_KEPT + 2; i++)
        sg_scratch_put(blocks[i]);
    CHECK_U64(kept_bytes(&count), (3 + 4 + 5 + 6) * MIB);
    CHECK_U64(count, SG_SCRATCH_KEPT);
    /* a smaller one given back is not kept */
    sg_scratch_put(sg_scratch_get(SG_SCRATCH_MIN));
    CHECK_U64(kept_bytes(&count), (3 + 4 + 5 + 6) * MIB);
    sg_scratch_release_all();
    CHECK_U64(kept_bytes(&count), 0);
    CHECK_U64(count, 0);
}

static void test_too_large(void)
{
    CHECK(sg_scratch_get(SIZE_MAX) == NULL);
    CHECK(sg_scratch_get(SIZE_MAX - 8) == NULL);
}

int main(void)
{
    test_reuse();
    test_small_not_kept();
    test_largest_kept();
    test_too_large();
    return check_exit();
}
