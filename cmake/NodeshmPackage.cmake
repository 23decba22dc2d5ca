# Install-side metadata: CMake package (find_package(nodeshm) ->
# nodeshm::nodeshm / nodeshm::nodeshm_static) and pkg-config file nodeshm.pc.
include(CMakePackageConfigHelpers)

set(NODESHM_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/nodeshm")
install(EXPORT nodeshmTargets NAMESPACE nodeshm:: DESTINATION "${NODESHM_CMAKE_DIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/nodeshmConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/nodeshmConfig.cmake" INSTALL_DESTINATION "${NODESHM_CMAKE_DIR}"
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/nodeshmConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/nodeshmConfig.cmake"
  "${PROJECT_BINARY_DIR}/nodeshmConfigVersion.cmake" DESTINATION "${NODESHM_CMAKE_DIR}")

# pkg-config: consumers not using an MPI wrapper still need MPI's flags.
set(NODESHM_PC_CFLAGS "")
foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
  string(APPEND NODESHM_PC_CFLAGS " -I${dir}")
endforeach()
# MPI libraries by full path, plus an rpath since they may live in a venv.
set(NODESHM_PC_LIBS_PRIVATE "")
foreach(lib IN LISTS MPI_C_LIBRARIES)
  get_filename_component(dir "${lib}" DIRECTORY)
  string(APPEND NODESHM_PC_LIBS_PRIVATE " -Wl,-rpath,${dir} ${lib}")
endforeach()
if(Threads_FOUND)
  string(APPEND NODESHM_PC_LIBS_PRIVATE " -pthread")
endif()
foreach(lib rt ${CMAKE_DL_LIBS})
  if(lib IN_LIST NODESHM_SYSTEM_LIBS)
    string(APPEND NODESHM_PC_LIBS_PRIVATE " -l${lib}")
  endif()
endforeach()
configure_file("${PROJECT_SOURCE_DIR}/cmake/nodeshm.pc.in" "${PROJECT_BINARY_DIR}/nodeshm.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/nodeshm.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
