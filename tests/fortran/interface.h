! The MPI interface a test program uses, chosen when compiling: -DSG_MPIF_H
! (include 'mpif.h'), -DSG_USE_MPI (use mpi) or -DSG_USE_MPI_F08 (use
! mpi_f08). Included (by the preprocessor) where a program's specification
! part begins.
#if defined(SG_USE_MPI_F08)
  use mpi_f08
#elif defined(SG_USE_MPI)
  use mpi
#endif
  implicit none
#if defined(SG_MPIF_H)
  include 'mpif.h'
#endif
