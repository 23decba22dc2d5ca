! nodeshm: node-shared data for Fortran MPI programs (libnodeshm_mpi), the twin of nodeshm.h.
!
! Interfaces only (ISO_C_BINDING), no MPI module: communicators are the INTEGER handles of
! mpif.h / `use mpi` (the two calls taking one go through the C shims of
! src/mpi/shared_fortran.c, which convert them).  Read include/nodeshm.h for what each call
! does; here a handle is a type(c_ptr), sizes are integer(c_size_t), epochs integer(c_int64_t),
! and every function returns MPI_SUCCESS or an MPI error code.
!
!   use nodeshm
!   type(c_ptr) :: h
!   real(c_double), pointer :: table(:)
!   ierr = nodeshm_shared_alloc(MPI_COMM_WORLD, bytes, h)
!   call c_f_pointer(nodeshm_shared_node_base(h, c_null_ptr), table, [n])
!   ierr = nodeshm_shared_sync(h)
!
! Optional size arguments of the C calls (size_t *bytes) are type(c_ptr), value: pass
! c_null_ptr or c_loc(a integer(c_size_t), target variable).
module nodeshm
  use, intrinsic :: iso_c_binding, only: c_int, c_long, c_size_t, c_int64_t, c_ptr
  implicit none
  private :: c_int, c_long, c_size_t, c_int64_t, c_ptr

  integer(c_int), parameter :: NODESHM_ALL_RANKS = -1

  interface
    ! collective over comm: the ranks of comm on my node; free it with MPI_Comm_free
    integer(c_int) function nodeshm_comm_split_node(comm, node) bind(C, name="nodeshm_comm_split_node_f")
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(out) :: node
    end function

    integer(c_int) function nodeshm_shared_alloc(comm, my_bytes, h) bind(C, name="nodeshm_shared_alloc_f")
      import :: c_int, c_size_t, c_ptr
      integer(c_int), value :: comm
      integer(c_size_t), value :: my_bytes
      type(c_ptr), intent(out) :: h
    end function

    integer(c_int) function nodeshm_shared_free(h) bind(C, name="nodeshm_shared_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: h
    end function

    type(c_ptr) function nodeshm_shared_ptr(h, rank, bytes) bind(C, name="nodeshm_shared_ptr")
      import :: c_int, c_ptr
      type(c_ptr), value :: h
      integer(c_int), value :: rank
      type(c_ptr), value :: bytes
    end function

    type(c_ptr) function nodeshm_shared_node_base(h, bytes) bind(C, name="nodeshm_shared_node_base")
      import :: c_ptr
      type(c_ptr), value :: h
      type(c_ptr), value :: bytes
    end function

    integer(c_int) function nodeshm_shared_node_info(h, node_rank, node_size, n_nodes, node) &
        bind(C, name="nodeshm_shared_node_info")
      import :: c_int, c_ptr
      type(c_ptr), value :: h
      integer(c_int), intent(out) :: node_rank, node_size, n_nodes, node
    end function

    integer(c_int) function nodeshm_shared_sync(h) bind(C, name="nodeshm_shared_sync")
      import :: c_int, c_ptr
      type(c_ptr), value :: h
    end function

    integer(c_int) function nodeshm_shared_publish(h, epoch) bind(C, name="nodeshm_shared_publish")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: h
      integer(c_int64_t), value :: epoch
    end function

    integer(c_int) function nodeshm_shared_wait(h, rank, epoch) bind(C, name="nodeshm_shared_wait")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: h
      integer(c_int), value :: rank
      integer(c_int64_t), value :: epoch
    end function

    integer(c_int) function nodeshm_shared_test(h, rank, epoch, flag) bind(C, name="nodeshm_shared_test")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: h
      integer(c_int), value :: rank
      integer(c_int64_t), value :: epoch
      integer(c_int), intent(out) :: flag
    end function

    integer(c_int) function nodeshm_shared_release(h, epoch) bind(C, name="nodeshm_shared_release")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: h
      integer(c_int64_t), value :: epoch
    end function

    integer(c_int) function nodeshm_shared_wait_released(h, rank, epoch) &
        bind(C, name="nodeshm_shared_wait_released")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: h
      integer(c_int), value :: rank
      integer(c_int64_t), value :: epoch
    end function

    ! collective calls libnodeshm_mpi has run itself in this process so far
    integer(c_long) function nodeshm_mpi_accelerated() bind(C, name="nodeshm_mpi_accelerated")
      import :: c_long
    end function
  end interface
end module nodeshm
