/* This process's state record (record.c), as the helper thread (helper.c)
 * reads it. */
#ifndef SCALEGUARD_RECORD_H
#define SCALEGUARD_RECORD_H

#include "watch.h"

/* Seconds since the epoch (CLOCK_REALTIME: comparable across nodes whose
 * clocks are kept in step). */
double sg_watch_now(void);

/* A state that is no call's: not in MPI yet, in MPI_Finalize. */
void sg_watch_mark(enum sg_watch_kind kind, const char *routine);

/* The call entered is an MPI_Send held until received (held_send.c). */
void sg_watch_held(void);

/* How long a held send waits for its receive: past the limit, long
 * enough for the helper to see it there (helper.c). */
double sg_watch_hold_seconds(void);

/* Whether a rank is reporting a hang and will end the job (the action is
 * abort): a held send then waits for that rather than go on. */
int sg_watch_ending(void);

/* A consistent copy of the record (rank, pid and host left as they are). */
void sg_watch_snapshot(struct sg_watch_view *v);

#endif
