/* The calls the layer wraps for its observers alone (observe.h: the
 * watchdog, the trace): the point-to-point calls whose waits make a
 * deadlock and whose messages make the trace's graph, and MPI_Barrier in
 * its three forms (completion calls: pending.c; MPI_Barrier_init's starts
 * are the MPI's own, as another persistent collective's without a plan:
 * persistent.c). One row each: what the call sends (dest,
 * tag) and receives (source, tag), on which communicator, what it moves
 * (count, type), its request. With no observer a wrapper is one load and
 * the PMPI call. */
#include "layer.h"

/* X(Name, params, args, made by, watchdog's kind, send side, receive side,
 *   comm, payload, request):
 * MPI_Send is made by the watchdog, which holds it until received
 * (watchdog/held_send.c: potential deadlocks); the others by PMPI. The
 * non-blocking point-to-point ones and MPI_Bsend never wait for their
 * peer: the watchdog leaves them (SG_WATCH_OUTSIDE). The three barriers
 * are collectives, numbered on their communicator in the order the ranks
 * call them, as the protected routines' I- and persistent forms are. */
#define SG_P2P_PARAMS (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
#define SG_P2P_ARGS (buf, count, type, dest, tag, comm)
#define SG_P2P_REQUEST_PARAMS                                                                   \
    (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,           \
     MPI_Request *request)
#define SG_P2P_REQUEST_ARGS (buf, count, type, dest, tag, comm, request)
#define SG_SEND_ROW(X, Name, made_by, kind)                                                      \
    X(Name, SG_P2P_PARAMS, SG_P2P_ARGS, made_by, kind, (dest, tag), SG_NO_SIDE, comm,           \
      (count, type), NULL)
#define SG_ISEND_ROW(X, Name)                                                                    \
    X(Name, SG_P2P_REQUEST_PARAMS, SG_P2P_REQUEST_ARGS, PMPI_##Name, SG_WATCH_OUTSIDE,          \
      (dest, tag), SG_NO_SIDE, comm, (count, type), request)
#define SG_NO_SIDE (SG_WATCH_NONE, 0)
#define SG_NO_PAYLOAD (-1, MPI_DATATYPE_NULL)
#define SG_OBSERVED_CALLS(X)                                                                      \
    SG_SEND_ROW(X, Send, sg_watch_send, SG_WATCH_SEND)                                            \
    SG_SEND_ROW(X, Ssend, PMPI_Ssend, SG_WATCH_SEND)                                              \
    SG_SEND_ROW(X, Rsend, PMPI_Rsend, SG_WATCH_SEND)                                              \
    SG_SEND_ROW(X, Bsend, PMPI_Bsend, SG_WATCH_OUTSIDE)                                           \
    SG_ISEND_ROW(X, Isend)                                                                        \
    SG_ISEND_ROW(X, Issend)                                                                       \
    SG_ISEND_ROW(X, Irsend)                                                                       \
    SG_ISEND_ROW(X, Ibsend)                                                                       \
    X(Recv,                                                                                       \
      (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,              \
       MPI_Status *status),                                                                       \
      (buf, count, type, source, tag, comm, status), PMPI_Recv, SG_WATCH_RECV, SG_NO_SIDE,       \
      (source, tag), comm, (count, type), NULL)                                                  \
    X(Irecv,                                                                                      \
      (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,              \
       MPI_Request *request),                                                                     \
      (buf, count, type, source, tag, comm, request), PMPI_Irecv, SG_WATCH_OUTSIDE, SG_NO_SIDE,  \
      (source, tag), comm, (count, type), request)                                               \
    X(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status),                           \
      (source, tag, comm, status), PMPI_Probe, SG_WATCH_RECV, SG_NO_SIDE, (source, tag), comm,   \
      SG_NO_PAYLOAD, NULL)                                                                        \
    X(Sendrecv,                                                                                   \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,         \
       void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,             \
       MPI_Comm comm, MPI_Status *status),                                                        \
      (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,        \
       recvtag, comm, status),                                                                    \
      PMPI_Sendrecv, SG_WATCH_SENDRECV, (dest, sendtag), (source, recvtag), comm,                \
      (sendcount, sendtype), NULL)                                                               \
    X(Sendrecv_replace,                                                                           \
      (void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,  \
       MPI_Comm comm, MPI_Status *status),                                                        \
      (buf, count, type, dest, sendtag, source, recvtag, comm, status), PMPI_Sendrecv_replace,   \
      SG_WATCH_SENDRECV, (dest, sendtag), (source, recvtag), comm, (count, type), NULL)          \
    X(Barrier, (MPI_Comm comm), (comm), PMPI_Barrier, SG_WATCH_COLLECTIVE, SG_NO_SIDE,           \
      SG_NO_SIDE, comm, SG_NO_PAYLOAD, NULL)                                                      \
    X(Ibarrier, (MPI_Comm comm, MPI_Request *request), (comm, request), PMPI_Ibarrier,           \
      SG_WATCH_COLLECTIVE, SG_NO_SIDE, SG_NO_SIDE, comm, SG_NO_PAYLOAD, NULL)                     \
    SG_BARRIER_INIT_ROW(X)
#if SCALEGUARD_PERSISTENT
#define SG_BARRIER_INIT_ROW(X)                                                                   \
    X(Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request), (comm, info, request), \
      PMPI_Barrier_init, SG_WATCH_COLLECTIVE, SG_NO_SIDE, SG_NO_SIDE, comm, SG_NO_PAYLOAD, NULL)
#else
#define SG_BARRIER_INIT_ROW(X)
#endif

#define SG_FIRST(a, b) a
#define SG_SECOND(a, b) b
#define SG_EXPAND(macro, pair) macro pair

#define SG_DEFINE_OBSERVED(Name, params, args, made_by, watch_kind, send, receive, communicator, \
                           payload, posted)                                                     \
    SG_FORWARDED_ENTRY(MPI_##Name)                                                              \
    int SG_ENTRY(MPI_##Name) params                                                             \
    {                                                                                           \
        if (!atomic_load_explicit(&sg_observing, memory_order_relaxed))                        \
            return PMPI_##Name args;                                                            \
        sg_observe_enter(&(struct sg_observed_call){                                            \
            .kind = watch_kind, .routine = "MPI_" #Name, .comm = communicator,                 \
            .root = SG_WATCH_NONE, .dest = SG_EXPAND(SG_FIRST, send),                          \
            .dest_tag = SG_EXPAND(SG_SECOND, send), .source = SG_EXPAND(SG_FIRST, receive),    \
            .source_tag = SG_EXPAND(SG_SECOND, receive),                                        \
            .count = SG_EXPAND(SG_FIRST, payload), .type = SG_EXPAND(SG_SECOND, payload),      \
            .request = posted});                                                                \
        return sg_observe_leave(made_by args);                                                  \
    }

SG_OBSERVED_CALLS(SG_DEFINE_OBSERVED)
