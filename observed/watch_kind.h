/* What kind of call a rank is in, as the watchdog records it (watchdog/)
 * and the observers are told it (observed_call.h). Plain C, no MPI. */
#ifndef SCALEGUARD_WATCH_KIND_H
#define SCALEGUARD_WATCH_KIND_H

enum sg_watch_kind {
    SG_WATCH_OUTSIDE,    /* not in a watched call */
    SG_WATCH_COLLECTIVE, /* the protected routines, MPI_Barrier */
    SG_WATCH_SEND,       /* MPI_Send, Ssend, Rsend, Bsend */
    SG_WATCH_RECV,       /* MPI_Recv, MPI_Probe */
    SG_WATCH_SENDRECV,   /* MPI_Sendrecv(_replace): both sides */
    SG_WATCH_WAIT,       /* MPI_Wait, Waitall, Waitany, Waitsome */
    SG_WATCH_FINALIZE,   /* in MPI_Finalize */
    SG_WATCH_MISSING,    /* no state file (read side only): MPI_Finalize returned */
    SG_WATCH_KIND_COUNT
};

#define SG_WATCH_NONE (-3) /* no such peer, root or tag */
#define SG_WATCH_ANY (-2)  /* MPI_ANY_SOURCE, MPI_ANY_TAG */

#endif
