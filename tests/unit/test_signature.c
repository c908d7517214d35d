/* The signature hash tuples (checks/signature.h). */
#include "check.h"
#include "signature.h"

/* `a` repeated one at a time. */
static struct sg_signature slowly(struct sg_signature a, unsigned times)
{
    struct sg_signature all = SG_SIGNATURE_EMPTY;
    for (unsigned i = 0; i < times; i++)
        all = sg_signature_then(all, a);
    return all;
}

int main(void)
{
    struct sg_signature a = sg_signature_basic(0), b = sg_signature_basic(1),
                        c = sg_signature_basic(2);

    /* order counts; the empty sequence is the identity */
    CHECK(!sg_signature_same(sg_signature_then(a, b), sg_signature_then(b, a)));
    CHECK(sg_signature_same(sg_signature_then(SG_SIGNATURE_EMPTY, a), a));
    CHECK(sg_signature_same(sg_signature_then(a, SG_SIGNATURE_EMPTY), a));
    CHECK_U64(sg_signature_then(a, b).count, 2);

    /* associative: however a datatype groups its sequence, the same tuple */
    struct sg_signature ab = sg_signature_then(a, b), bc = sg_signature_then(b, c);
    CHECK(sg_signature_same(sg_signature_then(ab, c), sg_signature_then(a, bc)));

    /* repetition by squaring equals repetition one at a time, for a basic
     * datatype and a pair, across the 64-bit rotation's wrap */
    for (unsigned times = 0; times <= 200; times++) {
        CHECK(sg_signature_same(sg_signature_repeat(a, times), slowly(a, times)));
        CHECK(sg_signature_same(sg_signature_repeat(ab, times), slowly(ab, times)));
    }
    CHECK_U64(sg_signature_repeat(c, (uint64_t)1 << 40).count, (uint64_t)1 << 40);

    /* 2 x the first basic datatype is not 1 x another: the count differs,
     * and so (mostly) does the hash; two sequences of the same count whose
     * basic datatypes differ have different hashes */
    CHECK(!sg_signature_same(sg_signature_repeat(a, 2), b));
    CHECK(sg_signature_then(a, a).hash != sg_signature_then(b, b).hash);

    /* repetition does not cancel: k copies of two basic datatypes differ
     * for every k up to 300 and at powers of two up to 2^40 (the
     * XOR-and-rotate tuple of paper 000 is 0 for both at every multiple of
     * 128) */
    for (uint64_t k = 1; k <= 300; k++)
        CHECK(sg_signature_repeat(a, k).hash != sg_signature_repeat(b, k).hash);
    for (int j = 0; j <= 40; j++)
        CHECK(sg_signature_repeat(a, (uint64_t)1 << j).hash !=
              sg_signature_repeat(b, (uint64_t)1 << j).hash);

    /* no two ordered pairs of 64 basic datatypes collide, nor any two
     * basic datatypes in their low 24 bits (what 2^40 copies keep) */
    int collisions = 0;
    for (unsigned i = 0; i < 64; i++)
        for (unsigned j = 0; j < 64; j++) {
            if (j != i && (sg_signature_basic(i).hash & 0xffffff) ==
                              (sg_signature_basic(j).hash & 0xffffff))
                collisions++;
            for (unsigned k = 0; k < 64; k++)
                for (unsigned l = 0; l < 64; l++)
                    if ((i != k || j != l) &&
                        sg_signature_then(sg_signature_basic(i), sg_signature_basic(j)).hash ==
                            sg_signature_then(sg_signature_basic(k), sg_signature_basic(l)).hash)
                        collisions++;
        }
    CHECK_U64(collisions, 0);
    return check_exit();
}
