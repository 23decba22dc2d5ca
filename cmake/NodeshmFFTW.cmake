# FFTW 3 for nodeshm-fft (fft/): tools/fftw.sh finds the machine's or provides it without root
# (Debian's packages unpacked into .deps/fftw), and builds FFTW's MPI library with this build's
# MPI (the reference peer of the nodeshm-fft command).  Sets NODESHM_FFT_ENABLED and the
# imported targets nodeshm_fftw3 (double and single) and, when it could be built, nodeshm_fftw3_mpi.
option(NODESHM_FFT "nodeshm-fft (needs FFTW 3; provided into .deps when missing)" ON)
set(NODESHM_FFT_ENABLED OFF)
set(NODESHM_FFTW_MPI_FOUND OFF)
if(NODESHM_FFT)
  execute_process(COMMAND "${PROJECT_SOURCE_DIR}/tools/fftw.sh" "${MPI_C_COMPILER}"
    OUTPUT_VARIABLE _fftw_out RESULT_VARIABLE _fftw_rc)
  if(NOT _fftw_rc EQUAL 0)
    message(FATAL_ERROR "nodeshm: FFTW 3 is missing (see the line above); or configure with "
      "-DNODESHM_FFT=OFF (CMAKE_ARGS=-DNODESHM_FFT=OFF) to build without nodeshm-fft")
  endif()
  string(REGEX MATCH "serial ([^ ]+) ([^ ]+) ([^\n]+)" _m "${_fftw_out}")
  set(_inc "${CMAKE_MATCH_1}")
  set(_lib "${CMAKE_MATCH_2}")
  set(NODESHM_FFTW_VERSION "${CMAKE_MATCH_3}")
  find_library(NODESHM_FFTW3_LIB fftw3 HINTS "${_lib}" NO_DEFAULT_PATH)
  find_library(NODESHM_FFTW3F_LIB fftw3f HINTS "${_lib}" NO_DEFAULT_PATH)
  if(NOT NODESHM_FFTW3_LIB OR NOT NODESHM_FFTW3F_LIB OR NOT EXISTS "${_inc}/fftw3.h")
    message(FATAL_ERROR "nodeshm: FFTW 3 (libfftw3, libfftw3f, fftw3.h) not found in ${_lib}, "
      "${_inc}: install libfftw3-dev, or -DNODESHM_FFT=OFF")
  endif()
  add_library(nodeshm_fftw3 INTERFACE IMPORTED)
  set_target_properties(nodeshm_fftw3 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_inc}"
    INTERFACE_LINK_LIBRARIES "${NODESHM_FFTW3_LIB};${NODESHM_FFTW3F_LIB};m")
  set(NODESHM_FFT_ENABLED ON)
  if(_fftw_out MATCHES "mpi (/[^ ]+) (/[^\n]+)")
    set(_minc "${CMAKE_MATCH_1}")
    set(_mlib "${CMAKE_MATCH_2}")
    unset(NODESHM_FFTW3_MPI_LIB CACHE) # keyed by the MPI: look again each configure
    find_library(NODESHM_FFTW3_MPI_LIB fftw3_mpi HINTS "${_mlib}" NO_DEFAULT_PATH)
    if(NODESHM_FFTW3_MPI_LIB)
      add_library(nodeshm_fftw3_mpi INTERFACE IMPORTED)
      set_target_properties(nodeshm_fftw3_mpi PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_minc}"
        INTERFACE_LINK_LIBRARIES "${NODESHM_FFTW3_MPI_LIB};nodeshm_fftw3")
      set(NODESHM_FFTW_MPI_FOUND ON)
    endif()
  else()
    string(REGEX MATCH "mpi none ([^\n]*)" _m "${_fftw_out}")
    message(STATUS "nodeshm: no FFTW-MPI reference for nodeshm-fft: ${CMAKE_MATCH_1}")
  endif()
  message(STATUS "nodeshm: FFTW ${NODESHM_FFTW_VERSION} (${_lib}); FFTW-MPI ${NODESHM_FFTW_MPI_FOUND}")
endif()
