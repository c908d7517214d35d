/* What W1-A's algorithms share: the groups of ranks and their
 * sub-communicators (w1a_groups.c), and the entry of each algorithm
 * (w1a_rooted.c, w1a_gather_to_all.c, w1a_reduce.c); w1a.c picks one. */
#ifndef SCALEGUARD_W1A_PARTS_H
#define SCALEGUARD_W1A_PARTS_H

#include "w1a.h"

/* The groups of one call, in the order they run. Group g is ranks[start[g]]
 * to ranks[start[g + 1] - 1], ascending, the root included. When `own` is
 * set, group 0 is the root's own group: the one that holds its own block
 * (its contribution to Reduce), and it runs first. */
struct partition {
    int count, own;
    int *start, *ranks;
};

/* What w1a_subs_of returns to a runner that looks only (sg_w1a_made) when
 * the communicators are made; the algorithms return it before running. */
#define W1A_FOUND (-3)

/* ---- w1a_groups.c ---- */
void w1a_add_group(struct partition *p, const int *list, int n, int root);
void w1a_add_runs(struct partition *p, int first, int n, int step, int first2, int n2);
int w1a_new_partition(struct partition *p, int lists, int total);
int w1a_partition(int procs, int root, int members, const struct sg_windows *w,
                  struct partition *p);
void w1a_free_partition(struct partition *p);
int w1a_member(const int *ranks, int n, int rank);
int w1a_subs_of(const struct sg_runner *runner, MPI_Comm parent, const struct partition *p,
                int me, MPI_Comm **subs);

/* ---- w1a.c ---- */
int w1a_grid_columns(int procs, int members);

/* ---- The algorithms ---- */
int w1a_rooted(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
               int members, const struct sg_windows *w, int me);
int w1a_gather_to_all(struct sg_runner *runner, const struct sg_call *c,
                      const struct sg_described *d, int members, int me);
int w1a_by_parts(const struct sg_runner *runner, const struct sg_call *c, int columns,
                 int per_part);
int w1a_reduce_by_parts(struct sg_runner *runner, const struct sg_call *c,
                        const struct sg_described *d, int columns, int per_part, int me);
int w1a_reduce_to_all(struct sg_runner *runner, const struct sg_call *c,
                      const struct sg_described *d, int columns, int me);

#endif
