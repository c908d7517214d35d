/* Type signatures as hash tuples, after Gropp (2000) and MPE collchk
 * (paper 000, section 3.1): a sequence of n basic datatypes is a tuple
 * (h, n), and the tuple of one sequence followed by another is computed
 * from theirs alone, by an operation that is associative but not
 * commutative. So the tuple of a signature is the same however the
 * datatype that has it is built (contiguous(2, INT) and 2 x INT alike),
 * and the order of its basic types counts.
 *
 * The paper's operation, (a, n) + (b, m) = (a XOR (b ROTL n), n + m), is
 * not the one here: over 64 bits it cancels on repetition. k copies of one
 * basic datatype hash to the XOR of its k rotations, which is 0 for every
 * basic datatype once k is a multiple of 128 (each rotation twice), so
 * 128 x MPI_INT and 128 x MPI_FLOAT would match. Here the tuple is a
 * polynomial hash modulo 2^64, (h, n) + (g, m) = (h B^m + g, n + m), whose
 * repetitions keep the basic datatype's low 64 - v(k) bits (B = 1 mod 4:
 * the 2-adic valuation of 1 + B + ... + B^(k-1) is that of k), with each
 * basic datatype's hash a mixed 64-bit value. Pure C11, no MPI: decoding
 * an MPI datatype into it is type_signature.c. */
#ifndef SCALEGUARD_SIGNATURE_H
#define SCALEGUARD_SIGNATURE_H

#include <stdint.h>

struct sg_signature {
    uint64_t hash;
    uint64_t count; /* basic datatypes in the sequence (saturating at UINT64_MAX) */
    uint64_t shift; /* B^count modulo 2^64: what a sequence after this one multiplies it by */
};

/* The empty sequence: the identity of sg_signature_then. */
#define SG_SIGNATURE_EMPTY ((struct sg_signature){0, 0, 1})

#define SG_SIGNATURE_BASE UINT64_C(0x9e3779b97f4a7c15) /* odd, and 1 modulo 4 */

/* splitmix64's finalizer: every bit of z in every bit of the result. */
static inline uint64_t sg_signature_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Basic datatype number `index` (0, 1, 2, ...): its hash is index + 1
 * mixed, so that any two differ in their low bits too. */
static inline struct sg_signature sg_signature_basic(unsigned index)
{
    return (struct sg_signature){sg_signature_mix((uint64_t)index + 1), 1, SG_SIGNATURE_BASE};
}

/* `a` followed by `b`. */
static inline struct sg_signature sg_signature_then(struct sg_signature a, struct sg_signature b)
{
    uint64_t count;
    if (__builtin_add_overflow(a.count, b.count, &count))
        count = UINT64_MAX;
    return (struct sg_signature){a.hash * b.shift + b.hash, count, a.shift * b.shift};
}

/* Whether two tuples are one signature (as far as the hash can tell). */
static inline int sg_signature_same(struct sg_signature a, struct sg_signature b)
{
    return a.hash == b.hash && a.count == b.count;
}

/* `a` repeated `times` times, in O(log times) steps. */
struct sg_signature sg_signature_repeat(struct sg_signature a, uint64_t times);

#endif
