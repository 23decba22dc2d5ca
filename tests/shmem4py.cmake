# shmem4py (PyPI's OpenSHMEM bindings for Python) against this build: tools/shmem4py.sh makes
# the build dir's venv, <build>/py, with numpy and cffi from PyPI and shmem4py compiled by this
# build's oshcc (so it loads this build's libnodeshm); then shmem4py's own test suite (unittest,
# from the same sdist) and tests/shmem4py_smoke.py (our values, on fresh random data) run through
# this build's oshrun.  All via tests/shmem4py_run.sh.
#
# shmem4py_build is a fixture the others require, so the build (40-50 s of CPU once per build
# dir, then a no-op while nodeshm's headers are unchanged) runs first and alone, under its own
# timeout.  When shmem4py cannot be built here (no PyPI, no python3-venv, no Python.h) every test
# is skipped with one line saying why (exit 77); a build that fails against nodeshm is a failure.
# -DNODESHM_SHMEM4PY=OFF leaves the tests out; NODESHM_SHMEM4PY=0 in the environment skips them.
option(NODESHM_SHMEM4PY "test shmem4py (from PyPI) against this build" ON)
if(NODESHM_SHMEM4PY)
  set(_s4p_common SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "shmem4py: SKIP")

  nodeshm_add_script_test(NAME shmem4py_build TIMEOUT 900 COMMAND shmem4py_run.sh build)
  set_tests_properties(shmem4py_build PROPERTIES ${_s4p_common}
    FIXTURES_SETUP shmem4py LABELS "script;shmem4py")

  # shmem4py's own suite: 110 tests (RMA, AMO, signals, collectives, reductions, teams, contexts,
  # locks, wait/test, ptr), each PE checking its neighbours' values.
  foreach(np 1 2 3 4)
    nodeshm_add_script_test(NAME shmem4py_suite_np${np} TIMEOUT 180
      COMMAND shmem4py_run.sh suite ${np})
    set_tests_properties(shmem4py_suite_np${np} PROPERTIES ${_s4p_common}
      FIXTURES_REQUIRED shmem4py LABELS "script;shmem4py;mpi;np${np}")
  endforeach()

  # Ours: puts/gets, put-with-signal, shmem.ptr, atomics, collectives and teams on numpy arrays,
  # checked against values recomputed from the seed; also between pseudo-nodes (the MPI path).
  foreach(np 1 2 3 4)
    nodeshm_add_script_test(NAME shmem4py_smoke_np${np} TIMEOUT 120
      COMMAND shmem4py_run.sh smoke ${np}
      PASS_REGEX "shmem4py_smoke: [0-9]+ PEs: .*PASS")
    set_tests_properties(shmem4py_smoke_np${np} PROPERTIES ${_s4p_common}
      FIXTURES_REQUIRED shmem4py LABELS "script;shmem4py;mpi;np${np}")
  endforeach()
  nodeshm_add_script_test(NAME shmem4py_smoke_np4_ppn2 TIMEOUT 120
    COMMAND shmem4py_run.sh smoke 4 ENV NODESHM_PES_PER_NODE=2
    PASS_REGEX "shmem4py_smoke: [0-9]+ PEs: .*PASS")
  set_tests_properties(shmem4py_smoke_np4_ppn2 PROPERTIES ${_s4p_common}
    FIXTURES_REQUIRED shmem4py LABELS "script;shmem4py;mpi;np4")
endif()
