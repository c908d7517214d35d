/* A minimal assertion kit for the unit tests: every failed CHECK prints where
 * and what, the test goes on, and check_exit() turns the count into the exit
 * status ctest reads. */
#ifndef SCALEGUARD_CHECK_H
#define SCALEGUARD_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond)) {                                                            \
            check_failures++;                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                         \
    } while (0)

#define CHECK_U64(actual, expected)                                               \
    do {                                                                          \
        uint64_t check_a_ = (uint64_t)(actual), check_e_ = (uint64_t)(expected);  \
        if (check_a_ != check_e_) {                                               \
            check_failures++;                                                     \
            fprintf(stderr, "%s:%d: %s is %" PRIu64 ", expected %" PRIu64 "\n",   \
                    __FILE__, __LINE__, #actual, check_a_, check_e_);             \
        }                                                                         \
    } while (0)

#define CHECK_STR(actual, expected)                                               \
    do {                                                                          \
        const char *check_a_ = (actual), *check_e_ = (expected);                  \
        if (check_a_ == NULL || strcmp(check_a_, check_e_) != 0) {                \
            check_failures++;                                                     \
            fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__,   \
                    __LINE__, #actual, check_a_ ? check_a_ : "(null)", check_e_); \
        }                                                                         \
    } while (0)

static inline int check_exit(void)
{
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}

#endif
