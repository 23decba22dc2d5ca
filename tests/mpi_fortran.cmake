# libnodeshm_mpi from Fortran (tests/mpi_fortran.f90): `use mpi` and include 'mpif.h' programs,
# linked to libnodeshm_mpi and plain under LD_PRELOAD, must get right values and be accelerated;
# with the interposer switched off or absent, nothing is.  Only when CMakeLists.txt's Fortran
# block found a Fortran compiler and a Fortran MPI (it says why not otherwise).
if(NODESHM_FORTRAN_ENABLED AND EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  find_program(NODESHM_ENV_PROGRAM env)
  # One source, two programs: NODESHM_MPIFH picks include 'mpif.h' over `use mpi`.
  set_source_files_properties(mpi_fortran.f90 PROPERTIES Fortran_PREPROCESS ON)
  # mpif.h declares no interfaces: gfortran >= 10 rejects one routine called with buffers of
  # several types in a file unless told to allow it (MPICH's mpif90 adds the flag, Open MPI's not)
  include(CheckFortranCompilerFlag)
  check_fortran_compiler_flag(-fallow-argument-mismatch NODESHM_F_ALLOW_MISMATCH)
  # the MPI-4 persistent collectives (tests/mpi_fortran_persist.inc) where the MPI's Fortran
  # library has all seven (Debian 12's Open MPI 4.1 has none, its MPICH 4.0 all): a program
  # calling them must link (this file is read before CMakeLists.txt checks mpi.h for them)
  include(CheckFortranSourceCompiles)
  set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_Fortran)
  check_fortran_source_compiles([[
program p
  include 'mpif.h'
  integer :: r(7), ierr, b(8)
  call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, r(1), ierr)
  call MPI_Bcast_init(b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, r(2), ierr)
  call MPI_Allreduce_init(b, b(2), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, r(3), ierr)
  call MPI_Reduce_init(b, b(2), 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, r(4), ierr)
  call MPI_Gather_init(b, 1, MPI_INTEGER, b(2), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, r(5), ierr)
  call MPI_Scatter_init(b, 1, MPI_INTEGER, b(2), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, r(6), ierr)
  call MPI_Allgather_init(b, 1, MPI_INTEGER, b(2), 1, MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, r(7), ierr)
end program
]] NODESHM_F_HAVE_PERSISTENT SRC_EXT f90)
  unset(CMAKE_REQUIRED_LIBRARIES)
  set(_f_persist ${NODESHM_F_HAVE_PERSISTENT})
  foreach(variant mpi_fortran mpi_fortran_mpifh)
    foreach(link linked plain)
      set(exe ${variant})
      if(link STREQUAL "plain")
        set(exe ${variant}_plain)
      endif()
      add_executable(nodeshm_t_${exe} mpi_fortran.f90)
      set_target_properties(nodeshm_t_${exe} PROPERTIES OUTPUT_NAME ${exe}
        Fortran_MODULE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/fortran_${exe}")
      if(_f_persist)
        target_compile_definitions(nodeshm_t_${exe} PRIVATE NODESHM_F_PERSISTENT)
      endif()
      if(variant STREQUAL "mpi_fortran_mpifh")
        target_compile_definitions(nodeshm_t_${exe} PRIVATE NODESHM_MPIFH)
        if(NODESHM_F_ALLOW_MISMATCH)
          target_compile_options(nodeshm_t_${exe} PRIVATE -fallow-argument-mismatch)
        endif()
      endif()
      if(link STREQUAL "linked") # libnodeshm_mpi before the MPI libraries
        target_link_libraries(nodeshm_t_${exe} PRIVATE nodeshm_mpi)
      endif()
      target_link_libraries(nodeshm_t_${exe} PRIVATE MPI::MPI_Fortran ${CMAKE_DL_LIBS})
      # -Wall -Wextra (CMakeLists.txt) flag every unused constant of mpif.h and the exact
      # comparisons of doubles this test makes on purpose
      target_compile_options(nodeshm_t_${exe} PRIVATE
        $<$<COMPILE_LANG_AND_ID:Fortran,GNU>:-Wno-unused-parameter -Wno-compare-reals>)
    endforeach()
  endforeach()

  # bcast is off by default (see src/mpi/init.c): switched on, as in tests/mpi.cmake.  Open MPI
  # 4.1's one-sided rdma component crashes in MPI_Finalize after shared windows (Debian 12):
  # the vader/sm one is the one that matters on a node.
  set(_f_env "NODESHM_MPI_BCAST_MAX=128k")
  if(NODESHM_MPI_FLAVOR STREQUAL "openmpi")
    list(APPEND _f_env "OMPI_MCA_osc=^ucx,rdma")
  endif()
  # The newer ops (scans, reduce_scatter, alltoallw, non-blocking, persistent) are counted per
  # op: on one node their windows are opened past the test's sizes on both MPIs (their defaults
  # differ: Open MPI's igatherv/iscatterv are off, its small scans and persistent ops below a
  # MIN), on pseudo-nodes they
  # keep the defaults, under which every one of them goes to the library between nodes (the four
  # non-blocking ones that run between nodes switched off there, below).
  set(_f_newer_env NODESHM_MPI_SCAN_MIN=0 NODESHM_MPI_EXSCAN_MIN=0)
  foreach(op scan exscan reduce_scatter alltoallw ibcast iallreduce ireduce igather igatherv
          iscatter iscatterv iallgather iallgatherv ialltoall ialltoallv bcast_init allreduce_init
          reduce_init gather_init scatter_init allgather_init)
    string(TOUPPER ${op} _up)
    list(APPEND _f_newer_env NODESHM_MPI_${_up}_MAX=64k)
    if(op MATCHES "_init$" AND NOT op STREQUAL "allreduce_init")
      list(APPEND _f_newer_env NODESHM_MPI_${_up}_MIN=0) # Open MPI's start at 64-512 B
    endif()
  endforeach()
  # Pass = exit status 0 (a rank crashing in MPI_Finalize fails it too, which a PASS regex
  # would hide) and no failed check in the output.
  set(_f_fail "check failed|: FAIL")
  set(_f_preload "${NODESHM_ENV_PROGRAM}" "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>")

  # name|exe|np|pes per node (0: physical nodes)|extra environment (or -)|preload (0/1)|
  # expectation
  set(_f_runs
    "mpi_fortran_np1|mpi_fortran|1|0|-|0|--expect-accel"
    "mpi_fortran_np2|mpi_fortran|2|0|-|0|--expect-accel"
    "mpi_fortran_np4|mpi_fortran|4|0|-|0|--expect-accel"
    "mpi_fortran_np4_ppn2|mpi_fortran|4|2|-|0|--expect-accel"
    "mpi_fortran_preload_np1|mpi_fortran_plain|1|0|-|1|--expect-accel"
    "mpi_fortran_preload_np2|mpi_fortran_plain|2|0|-|1|--expect-accel"
    "mpi_fortran_preload_np4|mpi_fortran_plain|4|0|-|1|--expect-accel"
    "mpi_fortran_preload_np4_ppn2|mpi_fortran_plain|4|2|-|1|--expect-accel"
    "mpi_fortran_mpifh_np2|mpi_fortran_mpifh|2|0|-|0|--expect-accel"
    "mpi_fortran_mpifh_np4_ppn2|mpi_fortran_mpifh|4|2|-|0|--expect-accel"
    "mpi_fortran_mpifh_preload_np4|mpi_fortran_mpifh_plain|4|0|-|1|--expect-accel"
    # switched off: the same values, and the counter proves no call was taken
    "mpi_fortran_preload_np2_disabled|mpi_fortran_plain|2|0|NODESHM_MPI_DISABLE=all|1|--expect-none"
    # no interposer at all
    "mpi_fortran_plain_np2|mpi_fortran_plain|2|0|-|0|--expect-none")
  foreach(row IN LISTS _f_runs)
    string(REPLACE "|" ";" run "${row}")
    list(GET run 0 name)
    list(GET run 1 exe)
    list(GET run 2 np)
    list(GET run 3 ppn)
    list(GET run 4 extra)
    list(GET run 5 preload)
    list(GET run 6 expect)
    set(cmd "${NODESHM_OSHRUN}" -np ${np})
    if(preload)
      list(APPEND cmd ${_f_preload})
    endif()
    add_test(NAME ${name} COMMAND ${cmd} $<TARGET_FILE:nodeshm_t_${exe}> ${expect})
    set(env ${_f_env})
    if(ppn)
      # Ibarrier, Ibcast, Iallreduce, Ireduce, Igather, Iscatter, Iallgather, Iallgatherv,
      # Ialltoall, Ialltoallv and the persistent forms of the first four run between nodes too, by
      # windows that differ per MPI
      # (tests/mpi_nonblocking.cmake, mpi_persistent.cmake count them there): kept the library's
      # here, where the test expects none of the newer ops
      list(APPEND env "NODESHM_PES_PER_NODE=${ppn}"
           "NODESHM_MPI_DISABLE=ibarrier,ibcast,iallreduce,ireduce,igather,iscatter,iallgather,iallgatherv,ialltoall,ialltoallv,barrier_init,bcast_init,allreduce_init,reduce_init")
    else()
      list(APPEND env ${_f_newer_env})
    endif()
    if(NOT extra STREQUAL "-")
      list(APPEND env "${extra}")
    endif()
    set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS "mpi;np${np};fortran"
      FAIL_REGULAR_EXPRESSION "${_f_fail}" ENVIRONMENT "${env}")
  endforeach()
  # the per-op counters catch an op handed to the library: one switched off must fail the run
  # (not a persistent one: Debian 12's MPICH 4.0.2, the one MPI here with them in Fortran, then
  # runs it and its own Testall aborts the job, MPI_ERR_IN_STATUS, before the counters are read)
  nodeshm_add_script_test(NAME mpi_fortran_np2_handed TIMEOUT 180
    ENV ${_f_env} ${_f_newer_env} NODESHM_MPI_DISABLE=ialltoallv EXPECT_FAILURE_TIMEOUT=150
        EXPECT_FAILURE_MAX_SECONDS=120
    COMMAND expect_failure.sh 2 "Fortran MPI_ialltoallv accelerated 0 calls, expected [1-9]"
            $<TARGET_FILE:nodeshm_t_mpi_fortran> --expect-accel)
  set_tests_properties(mpi_fortran_np2_handed PROPERTIES LABELS "script;mpi;np2;fortran")
endif()
