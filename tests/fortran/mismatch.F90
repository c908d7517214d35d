! A wrong MPI_GATHERV from Fortran, for the collective checks: the root
! (rank 0) expects 3 INTEGERs from rank 2, which sends 2 (the others 2 and
! 2), through the interface chosen when compiling (as gatherv.F90). Under
! the layer with SCALEGUARD_CHECK=collectives the job aborts before the
! call reaches MPI; rank 0 prints "mismatch: survived" if it ever returns.
program mismatch
#include "interface.h"
  integer :: ierr, rank, procs, k
  integer :: mine(3), all(64), counts(16), displs(16)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  mine = rank
  counts = 2
  counts(3) = 3
  displs = [(3 * k, k = 0, 15)]
  call MPI_Gatherv(mine, 2, MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, &
                   MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'mismatch: survived'
  call MPI_Finalize(ierr)
end program mismatch
