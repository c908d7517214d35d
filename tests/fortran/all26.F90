! Each of the 26 collectives of the paper's Table V called once from Fortran,
! with small INTEGER data, through the interface chosen when compiling
! (-DSG_MPIF_H, -DSG_USE_MPI or -DSG_USE_MPI_F08, as gatherv.F90). Some
! calls pass MPI_IN_PLACE (Scatter and Iscatterv at the root on the receive
! side; Allgather; Ireduce at the root; Allreduce), the rest two buffers.
! Every rank checks every element it receives and exits with status 3 when
! one is wrong; no other collective is called, so that a PMPI layer's count
! of calls is exactly one per routine.
program all26
#include "interface.h"
  integer, parameter :: n = 5
#if defined(SG_USE_MPI_F08)
  type(MPI_Request) :: request
#else
  integer :: request
#endif
  integer :: ierr, rank, procs, k, i, j, bad
  ! got: written by the non-blocking calls after they return
  integer, allocatable, asynchronous :: got(:)
  integer, allocatable :: mine(:), blocks(:), counts(:), displs(:)
  integer, allocatable :: rows(:), row_want(:), long(:), sums(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  bad = 0
  allocate(mine(n), blocks(n * procs), got(n * procs), counts(procs), displs(procs), &
           rows(n * procs), row_want(n * procs), long(n * procs), sums(n * procs))
  mine = [(v(rank, i), i = 1, n)]
  ! every rank's block, in rank order: what a gather delivers
  blocks = [((v(k, i), i = 1, n), k = 0, procs - 1)]
  counts = n
  displs = [(k * n, k = 0, procs - 1)]
  ! the row this rank sends in an all-to-all (block k for rank k), and the
  ! row it receives (block k from rank k)
  rows = [((w(rank, k, i), i = 1, n), k = 0, procs - 1)]
  row_want = [((w(k, rank, i), i = 1, n), k = 0, procs - 1)]
  ! what the reductions reduce (element j differs per rank), and the sum
  long = [(1000 * (rank + 1) + j, j = 1, n * procs)]
  sums = [(1000 * procs * (procs + 1) / 2 + procs * j, j = 1, n * procs)]

  ! Bcast, Ibcast: from root 1 (the last rank if fewer)
  got(1:n) = -1
  if (rank == min(1, procs - 1)) got(1:n) = blocks(1:n)
  call MPI_Bcast(got, n, MPI_INTEGER, min(1, procs - 1), MPI_COMM_WORLD, ierr)
  call check('MPI_Bcast', got(1:n), blocks(1:n))
  got(1:n) = -1
  if (rank == 0) got(1:n) = blocks(1:n)
  call MPI_Ibcast(got, n, MPI_INTEGER, 0, MPI_COMM_WORLD, request, ierr)
  call complete()
  call check('MPI_Ibcast', got(1:n), blocks(1:n))

  ! Scatter (in place at the root: its block stays in the send buffer),
  ! Iscatter, Scatterv, Iscatterv (in place at the root)
  got(1:n) = -1
  if (rank == 0) then
    call MPI_Scatter(blocks, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    got(1:n) = blocks(1:n)
  else
    call MPI_Scatter(blocks, n, MPI_INTEGER, got, n, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  call check('MPI_Scatter', got(1:n), mine)
  got(1:n) = -1
  call MPI_Iscatter(blocks, n, MPI_INTEGER, got, n, MPI_INTEGER, 0, MPI_COMM_WORLD, request, ierr)
  call complete()
  call check('MPI_Iscatter', got(1:n), mine)
  got(1:n) = -1
  call MPI_Scatterv(blocks, counts, displs, MPI_INTEGER, got, n, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
  call check('MPI_Scatterv', got(1:n), mine)
  got(1:n) = -1
  if (rank == procs - 1) then
    call MPI_Iscatterv(blocks, counts, displs, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, &
                       procs - 1, MPI_COMM_WORLD, request, ierr)
    call complete()
    got(1:n) = blocks(displs(rank + 1) + 1:displs(rank + 1) + n)
  else
    call MPI_Iscatterv(blocks, counts, displs, MPI_INTEGER, got, n, MPI_INTEGER, procs - 1, &
                       MPI_COMM_WORLD, request, ierr)
    call complete()
  end if
  call check('MPI_Iscatterv', got(1:n), mine)

  ! Gather, Igather, Gatherv, Igatherv: to root 0 (only the root checks)
  got = -1
  call MPI_Gather(mine, n, MPI_INTEGER, got, n, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check('MPI_Gather', got, blocks)
  got = -1
  call MPI_Igather(mine, n, MPI_INTEGER, got, n, MPI_INTEGER, 0, MPI_COMM_WORLD, request, ierr)
  call complete()
  if (rank == 0) call check('MPI_Igather', got, blocks)
  got = -1
  call MPI_Gatherv(mine, n, MPI_INTEGER, got, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, &
                   ierr)
  if (rank == 0) call check('MPI_Gatherv', got, blocks)
  got = -1
  call MPI_Igatherv(mine, n, MPI_INTEGER, got, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, &
                    request, ierr)
  call complete()
  if (rank == 0) call check('MPI_Igatherv', got, blocks)

  ! Allgather (in place), Iallgather, Allgatherv, Iallgatherv
  got = -1
  got(rank * n + 1:rank * n + n) = mine
  call MPI_Allgather(MPI_IN_PLACE, n, MPI_INTEGER, got, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check('MPI_Allgather', got, blocks)
  got = -1
  call MPI_Iallgather(mine, n, MPI_INTEGER, got, n, MPI_INTEGER, MPI_COMM_WORLD, request, ierr)
  call complete()
  call check('MPI_Iallgather', got, blocks)
  got = -1
  call MPI_Allgatherv(mine, n, MPI_INTEGER, got, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, &
                      ierr)
  call check('MPI_Allgatherv', got, blocks)
  got = -1
  call MPI_Iallgatherv(mine, n, MPI_INTEGER, got, counts, displs, MPI_INTEGER, &
                       MPI_COMM_WORLD, request, ierr)
  call complete()
  call check('MPI_Iallgatherv', got, blocks)

  ! Alltoall, Ialltoall, Alltoallv, Ialltoallv
  got = -1
  call MPI_Alltoall(rows, n, MPI_INTEGER, got, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check('MPI_Alltoall', got, row_want)
  got = -1
  call MPI_Ialltoall(rows, n, MPI_INTEGER, got, n, MPI_INTEGER, MPI_COMM_WORLD, request, ierr)
  call complete()
  call check('MPI_Ialltoall', got, row_want)
  got = -1
  call MPI_Alltoallv(rows, counts, displs, MPI_INTEGER, got, counts, displs, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  call check('MPI_Alltoallv', got, row_want)
  got = -1
  call MPI_Ialltoallv(rows, counts, displs, MPI_INTEGER, got, counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD, request, ierr)
  call complete()
  call check('MPI_Ialltoallv', got, row_want)

  ! Reduce, Ireduce (in place at the root), Allreduce (in place), Iallreduce
  got = -1
  call MPI_Reduce(long, got, n * procs, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check('MPI_Reduce', got, sums)
  if (rank == procs - 1) then
    got = long
    call MPI_Ireduce(MPI_IN_PLACE, got, n * procs, MPI_INTEGER, MPI_SUM, procs - 1, &
                     MPI_COMM_WORLD, request, ierr)
    call complete()
    call check('MPI_Ireduce', got, sums)
  else
    call MPI_Ireduce(long, got, n * procs, MPI_INTEGER, MPI_SUM, procs - 1, MPI_COMM_WORLD, &
                     request, ierr)
    call complete()
  end if
  got = long
  call MPI_Allreduce(MPI_IN_PLACE, got, n * procs, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('MPI_Allreduce', got, sums)
  got = -1
  call MPI_Iallreduce(long, got, n * procs, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
  call complete()
  call check('MPI_Iallreduce', got, sums)

  ! Reduce_scatter, Ireduce_scatter, Reduce_scatter_block, Ireduce_scatter_block:
  ! this rank gets its block of the sums
  got(1:n) = -1
  call MPI_Reduce_scatter(long, got, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('MPI_Reduce_scatter', got(1:n), sums(rank * n + 1:rank * n + n))
  got(1:n) = -1
  call MPI_Ireduce_scatter(long, got, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, &
                           ierr)
  call complete()
  call check('MPI_Ireduce_scatter', got(1:n), sums(rank * n + 1:rank * n + n))
  got(1:n) = -1
  call MPI_Reduce_scatter_block(long, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('MPI_Reduce_scatter_block', got(1:n), sums(rank * n + 1:rank * n + n))
  got(1:n) = -1
  call MPI_Ireduce_scatter_block(long, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, &
                                 ierr)
  call complete()
  call check('MPI_Ireduce_scatter_block', got(1:n), sums(rank * n + 1:rank * n + n))

  call MPI_Finalize(ierr)
  if (bad /= 0) error stop 3
  if (rank == 0) write (*, '(a,i0,a)') 'all26: 26 collectives checked on ', procs, ' ranks'

contains

  ! block i of rank `from`
  pure integer function v(from, i)
    integer, intent(in) :: from, i
    v = 100 * (from + 1) + i
  end function

  ! element i of the block rank `from` sends to rank `to` in an all-to-all
  pure integer function w(from, to, i)
    integer, intent(in) :: from, to, i
    w = 10000 * (from + 1) + 100 * (to + 1) + i
  end function

  subroutine complete()
    if (ierr == MPI_SUCCESS) call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  end subroutine

  ! ierr of the call just made, and the data it delivered
  subroutine check(routine, actual, expected)
    character(len=*), intent(in) :: routine
    integer, intent(in) :: actual(:), expected(:)
    integer :: e
    if (ierr /= MPI_SUCCESS) then
      write (0, '(a,i0,3a,i0)') 'all26: rank ', rank, ': ', routine, ': MPI error ', ierr
      bad = bad + 1
      return
    end if
    do e = 1, size(expected)
      if (actual(e) /= expected(e)) then
        write (0, '(a,i0,3a,i0,a,i0,a,i0)') 'all26: rank ', rank, ': ', routine, ': element ', &
          e, ' is ', actual(e), ' instead of ', expected(e)
        bad = bad + 1
        return
      end if
    end do
  end subroutine

end program
