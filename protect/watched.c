/* The calls the layer wraps for the watchdog alone (watch.h): the blocking
 * point-to-point calls whose waits make a deadlock, and MPI_Barrier. One
 * row each: what the call waits for -- its send side (dest, tag), its
 * receive side (source, tag), its communicator. With the watchdog off a
 * wrapper is one load and the PMPI call. MPI_Bsend is not here: it never
 * waits for its receiver. */
#include "layer.h"

/* X(Name, params, args, made by, kind, send side, receive side, comm):
 * MPI_Send is made by the watchdog, which holds it until received
 * (watchdog/held_send.c: potential deadlocks); the others by PMPI. */
#define SG_P2P_PARAMS (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
#define SG_P2P_ARGS (buf, count, type, dest, tag, comm)
#define SG_NO_SIDE (SG_WATCH_NONE, 0)
#define SG_WATCHED_CALLS(X)                                                                       \
    X(Send, SG_P2P_PARAMS, SG_P2P_ARGS, sg_watch_send, SG_WATCH_SEND, (dest, tag), SG_NO_SIDE,    \
      comm)                                                                                       \
    X(Ssend, SG_P2P_PARAMS, SG_P2P_ARGS, PMPI_Ssend, SG_WATCH_SEND, (dest, tag), SG_NO_SIDE, comm) \
    X(Rsend, SG_P2P_PARAMS, SG_P2P_ARGS, PMPI_Rsend, SG_WATCH_SEND, (dest, tag), SG_NO_SIDE, comm) \
    X(Recv,                                                                                       \
      (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,              \
       MPI_Status *status),                                                                       \
      (buf, count, type, source, tag, comm, status), PMPI_Recv, SG_WATCH_RECV, SG_NO_SIDE,       \
      (source, tag), comm)                                                                        \
    X(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status),                           \
      (source, tag, comm, status), PMPI_Probe, SG_WATCH_RECV, SG_NO_SIDE, (source, tag), comm)   \
    X(Sendrecv,                                                                                   \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,         \
       void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,             \
       MPI_Comm comm, MPI_Status *status),                                                        \
      (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,        \
       recvtag, comm, status),                                                                    \
      PMPI_Sendrecv, SG_WATCH_SENDRECV, (dest, sendtag), (source, recvtag), comm)                \
    X(Sendrecv_replace,                                                                           \
      (void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,  \
       MPI_Comm comm, MPI_Status *status),                                                        \
      (buf, count, type, dest, sendtag, source, recvtag, comm, status), PMPI_Sendrecv_replace,   \
      SG_WATCH_SENDRECV, (dest, sendtag), (source, recvtag), comm)                               \
    X(Barrier, (MPI_Comm comm), (comm), PMPI_Barrier, SG_WATCH_COLLECTIVE, SG_NO_SIDE,           \
      SG_NO_SIDE, comm)

#define SG_SIDE_RANK(rank, tag) rank
#define SG_SIDE_TAG(rank, tag) tag
#define SG_EXPAND(macro, side) macro side

#define SG_DEFINE_WATCHED(Name, params, args, made_by, watch_kind, send, receive, communicator) \
    SG_EXPORT int MPI_##Name params                                                             \
    {                                                                                           \
        if (!atomic_load_explicit(&sg_watching, memory_order_relaxed))                         \
            return PMPI_##Name args;                                                            \
        sg_watch_enter(&(struct sg_watch_call){                                                 \
            .kind = watch_kind, .routine = "MPI_" #Name, .comm = communicator,                 \
            .root = SG_WATCH_NONE, .dest = SG_EXPAND(SG_SIDE_RANK, send),                      \
            .dest_tag = SG_EXPAND(SG_SIDE_TAG, send),                                           \
            .source = SG_EXPAND(SG_SIDE_RANK, receive),                                         \
            .source_tag = SG_EXPAND(SG_SIDE_TAG, receive)});                                    \
        int err = made_by args;                                                                 \
        sg_watch_leave();                                                                       \
        return err;                                                                             \
    }

SG_WATCHED_CALLS(SG_DEFINE_WATCHED)
