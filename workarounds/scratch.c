#include "scratch.h"

#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Each block starts with its size; the caller's memory follows, aligned. */
struct block {
    alignas(max_align_t) size_t bytes;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct block *kept[SG_SCRATCH_KEPT];

void *sg_scratch_get(size_t bytes)
{
    struct block *b = NULL;
    if (bytes >= SG_SCRATCH_MIN) {
        pthread_mutex_lock(&lock);
        int best = -1; /* the smallest that fits */
        for (int i = 0; i < SG_SCRATCH_KEPT; i++)
            if (kept[i] != NULL && kept[i]->bytes >= bytes && kept[i]->bytes / 2 <= bytes &&
                (best < 0 || kept[i]->bytes < kept[best]->bytes))
                best = i;
        if (best >= 0) {
            b = kept[best];
            kept[best] = NULL;
        }
        pthread_mutex_unlock(&lock);
    }
    if (b == NULL) {
        if (bytes > SIZE_MAX - sizeof *b || (b = malloc(sizeof *b + bytes)) == NULL)
            return NULL;
        b->bytes = bytes;
    }
    return b + 1;
}

void sg_scratch_put(void *memory)
{
    if (memory == NULL)
        return;
    struct block *b = (struct block *)memory - 1;
    if (b->bytes >= SG_SCRATCH_MIN) {
        pthread_mutex_lock(&lock);
        int smallest = 0; /* an empty place, else the smallest block */
        for (int i = 1; i < SG_SCRATCH_KEPT && kept[smallest] != NULL; i++)
            if (kept[i] == NULL || kept[i]->bytes < kept[smallest]->bytes)
                smallest = i;
        struct block *out = kept[smallest];
        if (out == NULL || out->bytes < b->bytes) {
            kept[smallest] = b;
            b = out;
        }
        pthread_mutex_unlock(&lock);
    }
    free(b);
}

void sg_scratch_release_all(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SG_SCRATCH_KEPT; i++) {
        free(kept[i]);
        kept[i] = NULL;
    }
    pthread_mutex_unlock(&lock);
}

int sg_scratch_kept(size_t *bytes)
{
    int count = 0;
    *bytes = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SG_SCRATCH_KEPT; i++)
        if (kept[i] != NULL) {
            count++;
            *bytes += kept[i]->bytes;
        }
    pthread_mutex_unlock(&lock);
    return count;
}
