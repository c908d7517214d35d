#!/bin/sh
# symbols.sh NM FLAVOR COLLECTIVES LIBSCALEGUARD MPI_LIBRARY...
# The Fortran entry points libscaleguard.so exports match the MPI's own
# Fortran bindings (the MPI_LIBRARY files, e.g. libmpi_mpifh.so):
#  - every Fortran name it exports (ompi_*_f, mpi_*, MPI_UPPER) is one the
#    MPI defines too, so none is misspelt and each really takes the place of
#    the MPI's;
#  - it exports COLLECTIVES C collectives (the routines of
#    detectors/routines.h, the large-count MPI_Xxx_c and the persistent
#    MPI_Xxx_init, MPI_Xxx_init_c where the MPI has them);
#  - openmpi: for each of them (the C MPI_Xxx it exports) all
#    five names of Open MPI 4.1's binding, ompi_xxx_f, mpi_xxx, mpi_xxx_,
#    mpi_xxx__ and MPI_XXX;
#    and those of MPI_Init, MPI_Init_thread, MPI_Finalize and the calls the
#    watchdog watches and the trace sees (ompi_send_f, ompi_isend_f,
#    ompi_irecv_f, ompi_barrier_f, ompi_ibarrier_f, ...);
#  - mpich: none of them (MPICH's bindings call MPI_Xxx, so the C wrappers
#    see Fortran callers already), and mpi_init_f08_, mpi_init_thread_f08_,
#    mpi_finalize_f08_, mpi_barrier_f08_ and mpi_ibarrier_f08_ (which call
#    PMPI_* there), and with the persistent collectives mpi_start_f08_,
#    mpi_startall_f08_, mpi_request_free_f08_ (the same:
#    protect/persistent.c) and mpi_barrier_init_f08_.
nm=$1 flavor=$2 expected=$3 layer=$4
shift 4
ours=$(mktemp) && theirs=$(mktemp) && fortran=$(mktemp) || exit 1
trap 'rm -f "$ours" "$theirs" "$fortran"' EXIT
"$nm" -D --defined-only "$layer" | awk 'NF == 3 { print $3 }' | sort -u >"$ours"
for library in "$@"; do
    "$nm" -D --defined-only "$library" | awk 'NF == 3 { print $3 }'
done | sort -u >"$theirs"

fail=0
problem() {
    echo "symbols.sh: $*" >&2
    fail=1
}
has() { grep -qx -- "$2" "$1"; }

grep -E '^(ompi_[a-z_]+_f|mpi_[a-z0-9_]+|MPI_[A-Z0-9_]+)$' "$ours" >"$fortran"
while read -r name; do
    has "$theirs" "$name" || problem "exports $name, which the MPI's Fortran libraries do not define"
done <"$fortran"

# the C exports that are not collectives: MPI_Init(_thread), MPI_Finalize,
# MPI_Comm_free (the collective checks judge what is open on it), the
# completion calls (protect/pending.c), the persistent requests' starts
# (protect/persistent.c) and the calls the watchdog watches and the trace
# sees (protect/observed.c)
completion='MPI_(Init|Init_thread|Finalize|Comm_free|Start|Startall|Wait|Waitall|Waitany|Waitsome|Test|Testall|Testany|Testsome|Request_free|Request_get_status|Send|Ssend|Rsend|Bsend|Isend|Issend|Irsend|Ibsend|Recv|Irecv|Probe|Sendrecv|Sendrecv_replace|Barrier|Ibarrier|Barrier_init)'
collectives=$(grep -E '^MPI_[A-Z][a-z_]+$' "$ours" | grep -vxE "$completion")
count=$(printf '%s\n' "$collectives" | grep -c .)
[ "$count" -eq "$expected" ] || problem "exports $count C collectives, expected $expected"
# the large-count forms (MPI_Xxx_c) have no Fortran binding of their own
# to replace: MPICH's mpi_f08 calls the C MPI_Xxx_c (protect/README.md)
for c in $(printf '%s\n' "$collectives" | grep -v '_c$'); do
    lower=$(printf '%s' "${c#MPI_}" | tr '[:upper:]' '[:lower:]')
    upper=$(printf '%s' "${c#MPI_}" | tr '[:lower:]' '[:upper:]')
    for name in "ompi_${lower}_f" "mpi_${lower}" "mpi_${lower}_" "mpi_${lower}__" "MPI_${upper}"; do
        case $flavor in
        openmpi) has "$ours" "$name" || problem "does not export $name" ;;
        mpich) ! has "$ours" "$name" || problem "exports $name, which MPICH's binding needs" ;;
        esac
    done
    has "$theirs" "mpi_${lower}_" || problem "the MPI's Fortran libraries do not define mpi_${lower}_"
done
case $flavor in
openmpi) for name in ompi_init_f mpi_init_ ompi_init_thread_f mpi_init_thread_ ompi_finalize_f \
        mpi_finalize_ ompi_send_f ompi_ssend_f ompi_rsend_f ompi_recv_f ompi_probe_f \
        ompi_sendrecv_f ompi_sendrecv_replace_f ompi_barrier_f MPI_BARRIER mpi_barrier__ \
        ompi_ibarrier_f MPI_IBARRIER mpi_ibarrier_ \
        ompi_bsend_f ompi_isend_f ompi_issend_f ompi_irsend_f ompi_ibsend_f ompi_irecv_f mpi_irecv_; do
        has "$ours" "$name" || problem "does not export $name"
    done ;;
mpich) for name in mpi_init_f08_ mpi_init_thread_f08_ mpi_finalize_f08_ mpi_barrier_f08_ \
        mpi_ibarrier_f08_; do
        has "$ours" "$name" || problem "does not export $name"
    done
    if has "$ours" MPI_Start; then
        for name in mpi_start_f08_ mpi_startall_f08_ mpi_request_free_f08_ mpi_barrier_init_f08_; do
            has "$ours" "$name" || problem "does not export $name"
        done
    fi ;;
*) problem "unknown MPI flavour $flavor" ;;
esac
[ "$fail" -eq 0 ] && echo "symbols.sh: $flavor: $(grep -c . "$fortran") Fortran entry points, all the MPI's own"
exit "$fail"
