# Generates oshcc, oshc++ and oshrun twice: in <build>/bin (pointing at the
# source include dir and <build>/lib, used by tests) and for installation
# (pointing at the install prefix). Both record the MPI tools found now, so a
# different mpicc/mpiexec on PATH later cannot sneak in a mismatched MPI.

if(NOT MPI_C_COMPILER)
  message(WARNING "nodeshm: MPI was found without an mpicc wrapper; oshcc will not work")
endif()
get_filename_component(_nodeshm_mpi_bindir "${MPI_C_COMPILER}" DIRECTORY)

# The cached choices below belong to one mpicc; redo them if it changes.
if(DEFINED NODESHM_MPI_FOR AND NOT NODESHM_MPI_FOR STREQUAL MPI_C_COMPILER)
  unset(NODESHM_MPICXX CACHE)
  unset(NODESHM_MPIEXEC CACHE)
  unset(NODESHM_MPI_FLAVOR CACHE)
endif()
set(NODESHM_MPI_FOR "${MPI_C_COMPILER}" CACHE INTERNAL "mpicc the wrappers were set up for")

find_program(NODESHM_MPICXX NAMES mpicxx mpic++ mpiCC
  HINTS "${_nodeshm_mpi_bindir}" NO_DEFAULT_PATH
  DOC "MPI C++ compiler wrapper used by oshc++")
if(NOT NODESHM_MPICXX)
  set(NODESHM_MPICXX "")
endif()

# Prefer the mpiexec next to mpicc: FindMPI may pick another one from PATH.
find_program(NODESHM_MPIEXEC NAMES mpiexec mpirun
  HINTS "${_nodeshm_mpi_bindir}" NO_DEFAULT_PATH DOC "launcher used by oshrun")
if(NOT NODESHM_MPIEXEC)
  set(NODESHM_MPIEXEC "${MPIEXEC_EXECUTABLE}" CACHE FILEPATH "launcher used by oshrun" FORCE)
endif()
if(NOT NODESHM_MPIEXEC)
  message(FATAL_ERROR "nodeshm: no mpiexec found next to ${MPI_C_COMPILER}")
endif()

# oshrun adds launcher-specific options; which ones depends on the flavor (and for Open MPI
# the one-sided components to leave out: UCX everywhere; osc/rdma of Open MPI 4.x, whose
# launcher says OpenRTE, crashes in MPI_Win_free/finalize: Debian's 4.1.4 does).
execute_process(COMMAND "${NODESHM_MPIEXEC}" --version
  OUTPUT_VARIABLE _out ERROR_VARIABLE _out TIMEOUT 30)
# The shared-memory BTL between a host's ranks is "vader" in Open MPI 4.x and "sm" from 5.
if(_out MATCHES "OpenRTE")
  set(NODESHM_OMPI_OSC_EXCLUDE "^ucx,rdma")
  set(NODESHM_OMPI_SM_BTL "vader")
else()
  set(NODESHM_OMPI_OSC_EXCLUDE "^ucx")
  set(NODESHM_OMPI_SM_BTL "sm")
endif()
if(NOT NODESHM_MPI_FLAVOR)
  if(_out MATCHES "Open MPI|OpenRTE|PRRTE|prterun")
    set(_flavor openmpi)
  elseif(_out MATCHES "HYDRA|Hydra")
    set(_flavor mpich)
  else()
    set(_flavor unknown)
  endif()
  set(NODESHM_MPI_FLAVOR ${_flavor} CACHE STRING
    "MPI launcher flavor for oshrun: openmpi, mpich or unknown")
endif()
message(STATUS "nodeshm: mpicc ${MPI_C_COMPILER}, mpiexec ${NODESHM_MPIEXEC} (${NODESHM_MPI_FLAVOR})")

function(_nodeshm_wrappers outdir incdir libdir)
  set(NODESHM_WRAPPER_INCDIR "${incdir}")
  set(NODESHM_WRAPPER_LIBDIR "${libdir}")
  foreach(w oshcc oshc++)
    set(NODESHM_WRAPPER_NAME ${w})
    if(w STREQUAL "oshcc")
      set(NODESHM_WRAPPED_COMPILER "${MPI_C_COMPILER}")
    else()
      set(NODESHM_WRAPPED_COMPILER "${NODESHM_MPICXX}")
    endif()
    # configure_file keeps the template's executable bit.
    configure_file("${PROJECT_SOURCE_DIR}/tools/oshcc.in" "${outdir}/${w}" @ONLY)
  endforeach()
  configure_file("${PROJECT_SOURCE_DIR}/tools/oshrun.in" "${outdir}/oshrun" @ONLY)
endfunction()

# nodeshm-bench, the benchmark driver (Python): a launcher that holds where the package
# nodeshm_bench is (tools/nodeshm_bench; installed into <libexecdir>/nodeshm), where the
# benchmark programs and oshrun are, and the project's venv python with matplotlib for the plots
# (.deps/py, tools/bootstrap-py.sh; the driver falls back to the python on PATH without plots).
# Configured to a scratch file and copied, so it is executable whatever the template's mode.
function(_nodeshm_bench_driver outdir pkgparent benchdir oshrun)
  set(NODESHM_BENCH_PACKAGE_PARENT "${pkgparent}")
  set(NODESHM_BENCH_DIR "${benchdir}")
  set(NODESHM_BENCH_OSHRUN "${oshrun}")
  set(NODESHM_BENCH_PYTHON "${PROJECT_SOURCE_DIR}/.deps/py/bin/python")
  configure_file("${PROJECT_SOURCE_DIR}/tools/nodeshm-bench.in"
    "${PROJECT_BINARY_DIR}/CMakeFiles/nodeshm-bench-tmp/${outdir}/nodeshm-bench" @ONLY)
  file(COPY "${PROJECT_BINARY_DIR}/CMakeFiles/nodeshm-bench-tmp/${outdir}/nodeshm-bench"
    DESTINATION "${PROJECT_BINARY_DIR}/${outdir}"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
endfunction()

_nodeshm_wrappers("${PROJECT_BINARY_DIR}/bin"
  "${PROJECT_SOURCE_DIR}/include" "${PROJECT_BINARY_DIR}/lib")
_nodeshm_wrappers("${PROJECT_BINARY_DIR}/install-bin"
  "${CMAKE_INSTALL_FULL_INCLUDEDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
# benchmark programs: <build>/bench, installed into <libexecdir>/nodeshm (bench/CMakeLists.txt)
_nodeshm_bench_driver(bin "${PROJECT_SOURCE_DIR}/tools" "${PROJECT_BINARY_DIR}/bench"
  "${PROJECT_BINARY_DIR}/bin/oshrun")
_nodeshm_bench_driver(install-bin "${CMAKE_INSTALL_FULL_LIBEXECDIR}/nodeshm"
  "${CMAKE_INSTALL_FULL_LIBEXECDIR}/nodeshm" "${CMAKE_INSTALL_FULL_BINDIR}/oshrun")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/tools/nodeshm_bench"
  DESTINATION "${CMAKE_INSTALL_LIBEXECDIR}/nodeshm" FILES_MATCHING PATTERN "*.py"
  PATTERN "__pycache__" EXCLUDE)
# nshost-agent: what the MPI launcher runs instead of ssh under "oshrun --hosts K" (emulated
# hosts), beside the build tree's oshrun, which looks for it next to itself.  The stamp makes CMake
# copy it again when it changes (configure_file's FILE_PERMISSIONS needs CMake 3.19; we allow 3.18).
file(COPY "${PROJECT_SOURCE_DIR}/tools/nshost-agent" DESTINATION "${PROJECT_BINARY_DIR}/bin"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                   WORLD_READ WORLD_EXECUTE)
configure_file("${PROJECT_SOURCE_DIR}/tools/nshost-agent" "${PROJECT_BINARY_DIR}/nshost-agent.stamp"
  COPYONLY)
install(PROGRAMS
  "${PROJECT_BINARY_DIR}/install-bin/oshcc"
  "${PROJECT_BINARY_DIR}/install-bin/oshc++"
  "${PROJECT_BINARY_DIR}/install-bin/oshrun"
  "${PROJECT_BINARY_DIR}/install-bin/nodeshm-bench"
  "${PROJECT_SOURCE_DIR}/tools/nshost-agent"
  DESTINATION ${CMAKE_INSTALL_BINDIR})

set(NODESHM_OSHRUN "${PROJECT_BINARY_DIR}/bin/oshrun")
set(NODESHM_OSHCC "${PROJECT_BINARY_DIR}/bin/oshcc")
