! libnodeshm_mpi from Fortran: the collectives a Fortran program calls (mpif.h or `use mpi`)
! reach the interposer and give the right values.  Built twice from this file: with `use mpi`
! and, with NODESHM_MPIFH defined, with include 'mpif.h' (tests/mpi_fortran.cmake).
!
! Every rank derives its data from the seed (NODESHM_TEST_SEED replays, rank 0's value wins),
! its rank and the element index, so every rank computes every expected value itself.  Runs on
! MPI_COMM_WORLD and on a reversed split of it (handles other than MPI_COMM_WORLD).  Besides the
! older collectives: Scan, Exscan, Reduce_scatter, Alltoallw (datatype arrays with a derived
! type) and the 12 non-blocking ops, completed in every way Fortran can (Wait, Waitall with and
! without statuses, Waitany, Waitsome, Test, Testall, Testany, Testsome, Request_get_status),
! several outstanding with point-to-point requests, in rank-dependent orders
! (tests/mpi_fortran_newer.inc, included below); where the MPI has them (NODESHM_F_PERSISTENT)
! the 7 MPI-4 persistent collectives, started by MPI_START and MPI_STARTALL beside persistent
! point-to-point requests, completed by those same 9 calls, freed by MPI_REQUEST_FREE
! (tests/mpi_fortran_persist.inc).
!
!   --expect-accel   the interposer must be there and have run calls (at 1 rank it runs none),
!                    and each of those newer ops (a persistent one: each start) exactly as many
!                    as this program expects: every call on a communicator of 2+ ranks on one
!                    node (the windows are set wide enough by tests/mpi_fortran.cmake), none on
!                    pseudo-nodes
!                    (NODESHM_PES_PER_NODE below the size: they are one-node ops or off between
!                    nodes by default)
!   --expect-none    it must have run none (NODESHM_MPI_DISABLE=all, or not loaded)
! nodeshm_mpi_accelerated is looked up with dlsym, so one program serves linked, LD_PRELOAD
! and plain runs.  Rank 0 prints "... PASS" or "... FAIL"; the exit status is 1 on failure.
program mpi_fortran
#ifdef NODESHM_MPIFH
  use, intrinsic :: iso_c_binding
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: prog = "mpi_fortran_mpifh"
#else
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none
  character(len=*), parameter :: prog = "mpi_fortran"
#endif
  interface
    function dlsym(handle, name) bind(C, name="dlsym")
      import :: c_ptr, c_funptr, c_char
      type(c_ptr), value :: handle
      character(kind=c_char) :: name(*)
      type(c_funptr) :: dlsym
    end function
    function accelerated_iface() bind(C)
      import :: c_long
      integer(c_long) :: accelerated_iface
    end function
    function accelerated_op_iface(op) bind(C)
      import :: c_long, c_char
      character(kind=c_char) :: op(*)
      integer(c_long) :: accelerated_op_iface
    end function
    integer(c_int) function usleep(us) bind(C, name="usleep")
      import :: c_int
      integer(c_int), value :: us
    end function
  end interface
  ! the newer ops, by their names in nodeshm_mpi_accelerated_op, and the calls each must have run
  integer, parameter :: K_SCAN = 1, K_EXSCAN = 2, K_RSCAT = 3, K_A2AW = 4, K_IBARRIER = 5, &
    K_IBCAST = 6, K_IALLREDUCE = 7, K_IREDUCE = 8, K_IGATHER = 9, K_IGATHERV = 10, K_ISCATTER = 11, &
    K_ISCATTERV = 12, K_IALLGATHER = 13, K_IALLGATHERV = 14, K_IALLTOALL = 15, K_IALLTOALLV = 16, &
    K_BARRIER_INIT = 17, K_ALLGATHER_INIT = 23, NOPS = 23
  character(len=*), parameter :: opnames(NOPS) = [character(len=14) :: "scan", "exscan", &
    "reduce_scatter", "alltoallw", "ibarrier", "ibcast", "iallreduce", "ireduce", "igather", &
    "igatherv", "iscatter", "iscatterv", "iallgather", "iallgatherv", "ialltoall", "ialltoallv", &
    "barrier_init", "bcast_init", "allreduce_init", "reduce_init", "gather_init", "scatter_init", &
    "allgather_init"]
  integer :: want(NOPS) = 0
  logical :: onenode
  integer(c_long) :: got
  procedure(accelerated_op_iface), pointer :: accelerated_op => null()
  integer(8), parameter :: MODULUS = 2147483647_8
  integer, parameter :: GUARD = -123456789
  integer :: ierr, wrank, wsize, expect, i, rev
  integer :: fails = 0, checks = 0, printed = 0
  integer :: tot(2), loc(2)
  integer(8) :: seed
  integer(c_long) :: n_accel, max_accel
  character(len=64) :: arg
  type(c_funptr) :: fp
  procedure(accelerated_iface), pointer :: accelerated => null()

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, wsize, ierr)
  expect = 0
  do i = 1, command_argument_count()
    call get_command_argument(i, arg)
    if (arg == "--expect-accel") expect = 1
    if (arg == "--expect-none") expect = -1
  end do

  seed = 0
  if (wrank == 0) then
    call get_environment_variable("NODESHM_TEST_SEED", arg, status=i)
    if (i == 0) then
      read (arg, *) seed
    else
      call system_clock(seed)
    end if
    seed = modulo(seed, MODULUS)
    print '(a, ": ", i0, " ranks, seed ", i0, " (replay with NODESHM_TEST_SEED=", i0, ")")', &
      prog, wsize, seed, seed
  end if
  call MPI_Bcast(seed, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  ! pseudo-nodes: the communicators span nodes
  call get_environment_variable("NODESHM_PES_PER_NODE", arg, status=i)
  onenode = .true.
  if (i == 0 .and. len_trim(arg) > 0) then
    read (arg, *) i
    onenode = i <= 0 .or. i >= wsize
  end if

  ! the blocking collectives first: a non-blocking op on a communicator no collective has set
  ! up yet goes to the MPI library (README)
  call test_comm(MPI_COMM_WORLD, "world")
  call test_newer(MPI_COMM_WORLD, "world")
  call MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, rev, ierr)
  call test_comm(rev, "reversed")
  call test_newer(rev, "reversed")
  do i = 1, 8
    call test_nb(MPI_COMM_WORLD, "world", i)
    call test_nb(rev, "reversed", i)
  end do
#ifdef NODESHM_F_PERSISTENT
  ! where nodeshm runs every start: Debian 12's MPICH 4.0.2 (the one MPI here with them in
  ! Fortran) gets its own persistent gather and allgather wrong at 1-4 ranks and fails its
  ! Testall and Waitall on them, without nodeshm
  if (expect == 1 .and. onenode .and. wsize > 1) then
    call test_persist(MPI_COMM_WORLD, "world", 0)
    call test_persist(rev, "reversed", 3)
  end if
#endif
  call MPI_Comm_free(rev, ierr)
  call test_barrier(MPI_COMM_WORLD)

  n_accel = 0
  fp = dlsym(c_null_ptr, "nodeshm_mpi_accelerated" // c_null_char) ! RTLD_DEFAULT
  if (c_associated(fp)) then
    call c_f_procpointer(fp, accelerated)
    n_accel = accelerated()
  end if
  call MPI_Allreduce(n_accel, max_accel, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (expect == 1) then
    call check(c_associated(fp), "nodeshm_mpi_accelerated not found: the interposer is not loaded")
    call check(max_accel > 0 .or. wsize == 1, "the interposer accelerated no call")
  else if (expect == -1) then
    call check(max_accel == 0, "the interposer accelerated calls it should have left to MPI")
    want = 0
  end if
  ! per op: a total that other ops could make up proves nothing
  fp = dlsym(c_null_ptr, "nodeshm_mpi_accelerated_op" // c_null_char)
  if (c_associated(fp) .and. expect /= 0) then
    call c_f_procpointer(fp, accelerated_op)
    do i = 1, NOPS
      got = accelerated_op(trim(opnames(i)) // c_null_char)
      write (arg, '(i0, " calls, expected ", i0)') got, want(i)
      call check(got == want(i), "Fortran MPI_" // trim(opnames(i)) // " accelerated " // trim(arg))
    end do
  end if

  loc = [fails, checks]
  call MPI_Allreduce(loc, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (wrank == 0) then
    print '(a, ": ", i0, " ranks: ", i0, " checks, ", i0, " failed, ", i0, &
      & " calls accelerated on the busiest rank: ", a)', prog, wsize, tot(2), tot(1), max_accel, &
      merge("PASS", "FAIL", tot(1) == 0 .and. tot(2) > 0)
  end if
  call MPI_Finalize(ierr)
  if (tot(1) /= 0 .or. tot(2) == 0) stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (ok) return
    fails = fails + 1
    printed = printed + 1
    if (printed <= 20) print '(a, ": rank ", i0, ": check failed: ", a)', prog, wrank, what
  end subroutine

  ! Element i of rank r's stream `tag`: a few steps of a Park-Miller generator from the seed.
  integer(8) function raw(r, i, tag)
    integer, intent(in) :: r, i, tag
    raw = modulo(seed + 1000003_8 * r + 7919_8 * i + 104729_8 * tag, MODULUS)
    raw = modulo(48271_8 * raw + 12345_8, MODULUS)
    raw = modulo(48271_8 * raw + 12345_8, MODULUS)
    raw = modulo(48271_8 * raw + 12345_8, MODULUS)
  end function

  integer function ival(r, i, tag)
    integer, intent(in) :: r, i, tag
    ival = int(modulo(raw(r, i, tag), 2001_8)) - 1000
  end function

  ! integers in a double: sums are exact whatever order the ranks' values are added in
  double precision function dval(r, i, tag)
    integer, intent(in) :: r, i, tag
    dval = dble(modulo(raw(r, i, tag), 200001_8) - 100000_8) * 4.0d0
  end function

  character(len=160) function what(op, cname, n, extra)
    character(len=*), intent(in) :: op, cname
    integer, intent(in) :: n, extra
    write (what, '(a, " on ", a, ", count ", i0, ", root/variant ", i0, ": wrong values or guard")') &
      op, cname, n, extra
  end function

  subroutine test_comm(comm, cname)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: cname
    integer :: crank, csize, ierr, ni, n, r, root, k, i, j, tag
    integer, parameter :: counts(6) = [0, 1, 7, 1001, 8191, 40001]
    integer, parameter :: blocks(4) = [1, 3, 17, 1500]
    integer, allocatable :: is(:), ir(:), ie(:)
    double precision, allocatable :: ds(:), dr(:), de(:)
    logical :: ok

    call MPI_Comm_rank(comm, crank, ierr)
    call MPI_Comm_size(comm, csize, ierr)

    ! ---- MPI_Allreduce: sum and max, integer and double precision, in place
    do ni = 1, size(counts)
      n = counts(ni)
      allocate(is(n), ir(n + 1), ie(n), ds(n), dr(n + 1), de(n))
      is = [(ival(crank, i, ni), i = 1, n)]
      ds = [(dval(crank, i, ni), i = 1, n)]
      ! integer sum
      ir = GUARD
      call MPI_Allreduce(is, ir, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      ie = [(sum([(ival(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == ie) .and. ir(n + 1) == GUARD, &
                 trim(what("MPI_Allreduce(MPI_INTEGER, MPI_SUM)", cname, n, 0)))
      ! integer max
      ir = GUARD
      call MPI_Allreduce(is, ir, n, MPI_INTEGER, MPI_MAX, comm, ierr)
      ie = [(maxval([(ival(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == ie) .and. ir(n + 1) == GUARD, &
                 trim(what("MPI_Allreduce(MPI_INTEGER, MPI_MAX)", cname, n, 0)))
      ! integer sum in place
      ir(1:n) = is
      call MPI_Allreduce(MPI_IN_PLACE, ir, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      ie = [(sum([(ival(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == ie) .and. ir(n + 1) == GUARD, &
                 trim(what("MPI_Allreduce(MPI_IN_PLACE, MPI_INTEGER, MPI_SUM)", cname, n, 0)))
      ! double sum
      dr = -1.5d0
      call MPI_Allreduce(ds, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
      de = [(sum([(dval(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(dr(1:n) == de) .and. dr(n + 1) == -1.5d0, &
                 trim(what("MPI_Allreduce(MPI_DOUBLE_PRECISION, MPI_SUM)", cname, n, 0)))
      ! double max
      dr = -1.5d0
      call MPI_Allreduce(ds, dr, n, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
      de = [(maxval([(dval(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(dr(1:n) == de) .and. dr(n + 1) == -1.5d0, &
                 trim(what("MPI_Allreduce(MPI_DOUBLE_PRECISION, MPI_MAX)", cname, n, 0)))
      deallocate(is, ir, ie, ds, dr, de)
    end do

    ! ---- MPI_Bcast from every root, integer and double precision
    do root = 0, csize - 1
      do ni = 1, 4
        n = counts(ni + 1) + mod(ni, 2) ! 2, 7, 1002, 8191
        tag = 100 + root * 10 + ni
        allocate(ir(n + 1), dr(n + 1))
        ir = GUARD
        dr = -1.5d0
        if (crank == root) then
          ir(1:n) = [(ival(root, i, tag), i = 1, n)]
          dr(1:n) = [(dval(root, i, tag), i = 1, n)]
        end if
        call MPI_Bcast(ir, n, MPI_INTEGER, root, comm, ierr)
        call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == [(ival(root, i, tag), i = 1, n)]) &
                   .and. ir(n + 1) == GUARD, trim(what("MPI_Bcast(MPI_INTEGER)", cname, n, root)))
        call MPI_Bcast(dr, n, MPI_DOUBLE_PRECISION, root, comm, ierr)
        call check(ierr == MPI_SUCCESS .and. all(dr(1:n) == [(dval(root, i, tag), i = 1, n)]) &
                   .and. dr(n + 1) == -1.5d0, &
                   trim(what("MPI_Bcast(MPI_DOUBLE_PRECISION)", cname, n, root)))
        deallocate(ir, dr)
      end do
    end do

    ! ---- MPI_Gather to the first and the last crank
    do ni = 1, size(blocks)
      k = blocks(ni)
      do j = 0, 1
        root = j * (csize - 1)
        tag = 200 + ni
        allocate(is(k), ir(k * csize + 1))
        is = [(ival(crank, i, tag), i = 1, k)]
        ir = GUARD
        call MPI_Gather(is, k, MPI_INTEGER, ir, k, MPI_INTEGER, root, comm, ierr)
        ok = ierr == MPI_SUCCESS .and. ir(k * csize + 1) == GUARD
        if (crank == root) then
          do r = 0, csize - 1
            ok = ok .and. all(ir(r * k + 1:r * k + k) == [(ival(r, i, tag), i = 1, k)])
          end do
        end if
        call check(ok, trim(what("MPI_Gather(MPI_INTEGER)", cname, k, root)))
        deallocate(is, ir)
      end do
    end do

    ! ---- MPI_Allgather, and in place (each crank's block already in the receive buffer)
    do ni = 1, size(blocks)
      k = blocks(ni)
      tag = 300 + ni
      allocate(is(k), ir(k * csize + 1), ie(k * csize))
      is = [(ival(crank, i, tag), i = 1, k)]
      do r = 0, csize - 1
        ie(r * k + 1:r * k + k) = [(ival(r, i, tag), i = 1, k)]
      end do
      ir = GUARD
      call MPI_Allgather(is, k, MPI_INTEGER, ir, k, MPI_INTEGER, comm, ierr)
      call check(ierr == MPI_SUCCESS .and. all(ir(1:k * csize) == ie) .and. ir(k * csize + 1) == GUARD, &
                 trim(what("MPI_Allgather(MPI_INTEGER)", cname, k, 0)))
      ir = GUARD
      ir(crank * k + 1:crank * k + k) = is
      call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ir, k, MPI_INTEGER, comm, ierr)
      call check(ierr == MPI_SUCCESS .and. all(ir(1:k * csize) == ie) .and. ir(k * csize + 1) == GUARD, &
                 trim(what("MPI_Allgather(MPI_IN_PLACE, MPI_INTEGER)", cname, k, 1)))
      deallocate(is, ir, ie)
    end do

    ! ---- MPI_Alltoall: block j of crank r goes to crank j
    do ni = 1, size(blocks)
      k = blocks(ni)
      tag = 400 + ni
      allocate(is(k * csize), ir(k * csize + 1), ie(k * csize))
      is = [(ival(crank, i, tag), i = 1, k * csize)]
      do r = 0, csize - 1
        ie(r * k + 1:r * k + k) = [(ival(r, crank * k + i, tag), i = 1, k)]
      end do
      ir = GUARD
      call MPI_Alltoall(is, k, MPI_INTEGER, ir, k, MPI_INTEGER, comm, ierr)
      call check(ierr == MPI_SUCCESS .and. all(ir(1:k * csize) == ie) .and. ir(k * csize + 1) == GUARD, &
                 trim(what("MPI_Alltoall(MPI_INTEGER)", cname, k, 0)))
      deallocate(is, ir, ie)
    end do
  end subroutine

  include 'mpi_fortran_newer.inc'
#ifdef NODESHM_F_PERSISTENT
#include "mpi_fortran_persist.inc"
#endif

  ! A late crank stores a flag in a shared window just before it enters MPI_Barrier; everyone must
  ! see it after leaving.  A barrier that does not wait fails this (the late crank sleeps 20 ms
  ! first); load cannot make a correct barrier fail it.  Needs every crank on one machine.
  subroutine test_barrier(comm)
    integer, intent(in) :: comm
    integer :: crank, csize, shm, shm_size, win, disp_unit, ierr, late, round, seen, i
    integer(kind=MPI_ADDRESS_KIND) :: bytes, base
    integer, pointer, volatile :: flags(:)
    double precision :: t0

    call MPI_Comm_rank(comm, crank, ierr)
    call MPI_Comm_size(comm, csize, ierr)
    call MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, crank, MPI_INFO_NULL, shm, ierr)
    call MPI_Comm_size(shm, shm_size, ierr)
    if (shm_size == csize) then
      bytes = 0
      if (crank == 0) bytes = 4_MPI_ADDRESS_KIND * csize
      call MPI_Win_allocate_shared(bytes, 4, MPI_INFO_NULL, shm, base, win, ierr)
      call MPI_Win_shared_query(win, 0, bytes, disp_unit, base, ierr)
      call c_f_pointer(transfer(base, c_null_ptr), flags, [csize])
      call MPI_Win_lock_all(MPI_MODE_NOCHECK, win, ierr)
      if (crank == 0) flags = 0
      call MPI_Win_sync(win, ierr)
      call MPI_Barrier(comm, ierr)
      round = 0
      late = 0
      do while (late < csize)
        round = round + 1
        call MPI_Barrier(comm, ierr)
        if (crank == late) then
          t0 = MPI_Wtime()
          do while (MPI_Wtime() - t0 < 0.02d0)
            i = usleep(1000)
          end do
          flags(late + 1) = round
          call MPI_Win_sync(win, ierr)
        end if
        call MPI_Barrier(comm, ierr)
        call MPI_Win_sync(win, ierr)
        seen = flags(late + 1)
        call check(ierr == MPI_SUCCESS .and. seen == round, &
                   "MPI_Barrier returned before the late crank (20 ms) arrived")
        late = late + merge(csize - 1, 1, csize > 2)
      end do
      call MPI_Win_unlock_all(win, ierr)
      call MPI_Win_free(win, ierr)
    end if
    call MPI_Comm_free(shm, ierr)
    do i = 1, 50
      call MPI_Barrier(comm, ierr)
    end do
  end subroutine
end program
