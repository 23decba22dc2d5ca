# Benchmarks and the tuning file.  nodeshm-bench (tools/nodeshm_bench/) runs each subcommand
# in quick mode (tiny sizes, few iterations) and bench_check.py checks the output's shape and
# sanity: columns present, numbers positive, JSON valid, report.md, plots and tuning.conf
# written.  Never timings: the machine is shared.  The tuning file round-trips (report writes
# it, the library reads it) and a bad one is a clear error at shmem_init / MPI_Init.
# These tests install nothing: plots are checked when matplotlib is there (make bench sets up
# .deps/py); the Python checks use only the standard library.
find_program(NODESHM_PYTHON3 python3)
if(NOT NODESHM_PYTHON3)
  message(STATUS "nodeshm: no python3: benchmark driver tests skipped")
  return()
endif()

set(_bench_env NODESHM_BENCH_QUICK=1)
foreach(sub p2p map coll pairs dt seed-gather seed-alltoall errors)
  string(REPLACE "-" "_" _name "${sub}")
  nodeshm_add_script_test(NAME bench_cli_${_name} TIMEOUT 300 ENV ${_bench_env}
    COMMAND bench_cli.sh ${sub})
endforeach()
# nodeshm-fft through the driver (fft.py): every strategy's pair and remap rows, at 3 ranks
if(NODESHM_FFT_ENABLED)
  nodeshm_add_script_test(NAME bench_cli_fft_np3 TIMEOUT 300 ENV ${_bench_env}
    COMMAND bench_cli.sh fft 3)
endif()
# other PE counts (oversubscribed on small machines, as usual in the tests)
nodeshm_add_script_test(NAME bench_cli_coll_np3 TIMEOUT 300 ENV ${_bench_env}
  COMMAND bench_cli.sh coll 3)
nodeshm_add_script_test(NAME bench_cli_map_np1 TIMEOUT 300 ENV ${_bench_env}
  COMMAND bench_cli.sh map 1)
# libnodeshm_mpi's MPI-4 large-count entries in nodeshm-bench-mpi_osu: its <row>_c rows at 3 ranks
if(EXISTS "${PROJECT_SOURCE_DIR}/bench/mpi_osu.c" AND EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  nodeshm_add_script_test(NAME bench_cli_osu_c_np3 TIMEOUT 300 ENV ${_bench_env}
    COMMAND bench_cli.sh osu_c 3)
endif()
# 4 PEs: dt's multi-pair run (dt-multi, -p 2) and 2 concurrent pairs, hot and --cold
nodeshm_add_script_test(NAME bench_cli_dt_np4 TIMEOUT 300 ENV ${_bench_env}
  COMMAND bench_cli.sh dt 4)
nodeshm_add_script_test(NAME bench_cli_pairs_np4 TIMEOUT 300 ENV ${_bench_env}
  COMMAND bench_cli.sh pairs 4)
# between pseudo-nodes: p2p's rma_put / rma_get (nodeshm beside MPI on the library's window)
nodeshm_add_script_test(NAME bench_rma_ppn1 TIMEOUT 300 ENV ${_bench_env}
  COMMAND bench_rma.sh)
# on emulated hosts (nodeshm-bench --hosts 2): every row tagged <test>_hosts2; p2p's pair on two
# hosts (its between-node tables: put, get, put-with-signal, atomics beside MPI on the library's
# window), the collectives of both faces at 2 hosts x 2 PEs.  Skipped (77) without namespaces.
foreach(_h p2p:2 coll:4)
  string(REPLACE ":" ";" _h "${_h}")
  list(GET _h 0 _sub)
  list(GET _h 1 _np)
  nodeshm_add_script_test(NAME bench_cli_${_sub}_np${_np}_host2 TIMEOUT 300 ENV ${_bench_env}
    COMMAND bench_cli.sh ${_sub} ${_np} 2)
  set_tests_properties(bench_cli_${_sub}_np${_np}_host2 PROPERTIES SKIP_RETURN_CODE 77
    LABELS "script;hosts")
endforeach()

nodeshm_add_test_executable(bench_tuning bench_tuning.c)
set(_tuning_env BENCH_TUNING_PROG=$<TARGET_FILE:nodeshm_t_bench_tuning>)
nodeshm_add_script_test(NAME bench_tuning_report TIMEOUT 600 ENV ${_tuning_env} ${_bench_env}
  COMMAND bench_tuning.sh report)
foreach(np 1 3)
  nodeshm_add_script_test(NAME bench_tuning_random_np${np} TIMEOUT 60 ENV ${_tuning_env}
    COMMAND bench_tuning.sh random ${np})
endforeach()
nodeshm_add_script_test(NAME bench_tuning_random_np4_ppn2 TIMEOUT 60 ENV ${_tuning_env}
  COMMAND bench_tuning.sh random 4 2)

# Bad tuning files: the message names the file, the line number and its text, and says what is
# wrong; the job ends with a nonzero status, nothing left behind (tests/expect_failure.sh).
set(_dir "${CMAKE_CURRENT_BINARY_DIR}/bench_tuning_files")
file(MAKE_DIRECTORY "${_dir}")
file(WRITE "${_dir}/bad_name.conf" "# a comment\n\nFOO_BAR=1\nNODESHM_MPI_GATHER_MAX=4096\n")
file(WRITE "${_dir}/no_equals.conf" "NODESHM_MPI_GATHER_MAX=4096\nNODESHM_MPI_BCAST_MAX 512\n")
file(WRITE "${_dir}/twice.conf" "NODESHM_SPIN_COUNT=10\n  # x\nNODESHM_SPIN_COUNT = 20\n")
file(WRITE "${_dir}/empty_value.conf" "NODESHM_SPIN_COUNT=\n")
file(WRITE "${_dir}/mpi_disable.conf" "# read by MPI_Init\nNODESHM_MPI_DISABLE=nonsense\n")
function(nodeshm_bench_bad name np file regex prog)
  nodeshm_add_script_test(NAME bench_tuning_bad_${name}_np${np} TIMEOUT 90
    ENV NODESHM_TUNING=${file} ${NODESHM_MPI_SHM_IGNORE}
    COMMAND expect_failure.sh ${np} "${regex}" ${prog})
endfunction()
set(_shmem $<TARGET_FILE:nodeshm_t_bench_tuning>)
foreach(np 1 2)
  nodeshm_bench_bad(name ${np} "${_dir}/bad_name.conf"
    "shmem_init: tuning file [^ ]*bad_name.conf line 3: 'FOO_BAR=1': NAME must start with NODESHM_"
    ${_shmem})
endforeach()
nodeshm_bench_bad(missing 2 "${_dir}/no_such.conf"
  "shmem_init: cannot read tuning file [^ ]*no_such.conf \\(NODESHM_TUNING\\): No such file" ${_shmem})
nodeshm_bench_bad(no_equals 1 "${_dir}/no_equals.conf"
  "tuning file [^ ]*no_equals.conf line 2: 'NODESHM_MPI_BCAST_MAX 512': expected NAME=value"
  ${_shmem})
nodeshm_bench_bad(twice 1 "${_dir}/twice.conf"
  "tuning file [^ ]*twice.conf line 3: 'NODESHM_SPIN_COUNT = 20': NAME given twice" ${_shmem})
nodeshm_bench_bad(empty_value 1 "${_dir}/empty_value.conf"
  "tuning file [^ ]*empty_value.conf line 1: 'NODESHM_SPIN_COUNT=': empty value" ${_shmem})
# a value from the file is checked like one from the environment (the library reads the file)
file(WRITE "${_dir}/bad_value.conf" "NODESHM_SPIN_COUNT=lots\n")
nodeshm_bench_bad(value 1 "${_dir}/bad_value.conf"
  "shmem_init: invalid NODESHM_SPIN_COUNT='lots'" ${_shmem})
# the MPI face (libnodeshm_mpi): at MPI_Init, before the MPI starts.  bench/ is configured after
# tests/, so test for the source, not the target.
if(EXISTS "${PROJECT_SOURCE_DIR}/bench/mpi_osu.c" AND EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  set(_mpi "${PROJECT_BINARY_DIR}/bench/nodeshm-bench-mpi_osu")
  nodeshm_bench_bad(mpi_name 2 "${_dir}/bad_name.conf"
    "nodeshm_mpi: MPI_Init: tuning file [^ ]*bad_name.conf line 3: 'FOO_BAR=1': NAME must start with NODESHM_"
    ${_mpi})
  nodeshm_bench_bad(mpi_value 1 "${_dir}/mpi_disable.conf"
    "nodeshm_mpi: MPI_Init: invalid NODESHM_MPI_DISABLE=.nonsense. \\(expected a comma-separated list of: barrier bcast" ${_mpi})
endif()
