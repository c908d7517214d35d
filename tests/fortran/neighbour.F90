! The neighbourhood collectives from Fortran, through the interface chosen
! when compiling (-DSG_MPIF_H, -DSG_USE_MPI or -DSG_USE_MPI_F08, as
! gatherv.F90): over a periodic ring of the job's ranks (MPI_CART_CREATE,
! P >= 3: two neighbours), MPI_NEIGHBOR_ALLTOALLV, MPI_INEIGHBOR_ALLGATHER and
! MPI_NEIGHBOR_ALLTOALLW (the alltoallv's blocks, a datatype each, at
! INTEGER(KIND=MPI_ADDRESS_KIND) byte displacements, over the same ring as
! a distributed graph: MPICH 4.0.2's mpi_f08 MPI_Neighbor_alltoallw asks
! MPI_Dist_graph_neighbors_count whatever the topology, and fails bare on a
! Cartesian one) of n INTEGERs per block. Element i of the block rank s
! sends rank d is
! 1000000 s + 10000 d + i (the allgather's: 1000000 s + i); every rank checks
! every element of both blocks it receives and exits with status 3 when one
! is wrong. No other collective is called, so that a PMPI layer's count of
! calls is exactly one per routine.
program neighbours
#include "interface.h"
  integer, parameter :: n = 3000
#if defined(SG_USE_MPI_F08)
  type(MPI_Comm) :: ring, graph
  type(MPI_Request) :: request
  type(MPI_Datatype) :: types(2)
#else
  integer :: ring, graph
  integer :: request
  integer :: types(2)
#endif
  integer :: weights(2) = 1
  integer(kind=MPI_ADDRESS_KIND) :: bytes(2)
  integer :: ierr, rank, procs, i, bad, k, source, dest
  integer :: dims(1), counts(2), displs(2), from(2)
  logical :: periods(1)
  integer :: sent(2 * n), mine(n)
  ! got: written by the non-blocking call after it returns
  integer, asynchronous :: got(2 * n)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  bad = 0
  dims(1) = procs
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  ! the -1 then the +1 neighbour, each way (MPI 4.0, 7.6)
  call MPI_Cart_shift(ring, 0, 1, source, dest, ierr)
  from = [source, dest]
  counts = [n, n]
  displs = [0, n]
  do k = 1, 2
    sent((k - 1) * n + 1:k * n) = [(1000000 * rank + 10000 * from(k) + i, i = 1, n)]
  end do
  mine = [(1000000 * rank + i, i = 1, n)]

  got = -1
  call MPI_Neighbor_alltoallv(sent, counts, displs, MPI_INTEGER, got, counts, displs, &
                              MPI_INTEGER, ring, ierr)
  call check('MPI_Neighbor_alltoallv', 10000 * rank)
  got = -1
  call MPI_Ineighbor_allgather(mine, n, MPI_INTEGER, got, n, MPI_INTEGER, ring, request, ierr)
  if (ierr == MPI_SUCCESS) call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  call check('MPI_Ineighbor_allgather', 0)
  got = -1
  types = [MPI_INTEGER, MPI_INTEGER]
  bytes = [0_MPI_ADDRESS_KIND, int(n, MPI_ADDRESS_KIND) * storage_size(n) / 8]
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, from, weights, 2, from, weights, &
                                      MPI_INFO_NULL, .false., graph, ierr)
  call MPI_Neighbor_alltoallw(sent, counts, bytes, types, got, counts, bytes, types, graph, ierr)
  call check('MPI_Neighbor_alltoallw', 10000 * rank)
  call MPI_Comm_free(graph, ierr)

  call MPI_Comm_free(ring, ierr)
  call MPI_Finalize(ierr)
  if (bad /= 0) error stop 3
  if (rank == 0) write (*, '(a,i0,a)') 'neighbour: 3 neighbourhood collectives checked on ', &
    procs, ' ranks'

contains

  ! ierr of the call just made, and the blocks it delivered: from each
  ! neighbour s, 1000000 s + `to_me` + i
  subroutine check(routine, to_me)
    character(len=*), intent(in) :: routine
    integer, intent(in) :: to_me
    integer :: b, e, expected
    if (ierr /= MPI_SUCCESS) then
      write (0, '(a,i0,3a,i0)') 'neighbour: rank ', rank, ': ', routine, ': MPI error ', ierr
      bad = bad + 1
      return
    end if
    do b = 1, 2
      do e = 1, n
        expected = 1000000 * from(b) + to_me + e
        if (got((b - 1) * n + e) /= expected) then
          write (0, '(a,i0,3a,i0,a,i0,a,i0,a,i0)') 'neighbour: rank ', rank, ': ', routine, &
            ': block ', b, ' element ', e, ' is ', got((b - 1) * n + e), ' instead of ', expected
          bad = bad + 1
          return
        end if
      end do
    end do
  end subroutine

end program
