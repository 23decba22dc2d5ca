# The OpenSHMEM profiling interface (include/pshmem.h).
#
# pshmem_complete: every exported shmem_ symbol of libnodeshm.so has its pshmem_ twin at the same
#   address and is weak, and pshmem.h declares them all (C11 and C++).
# profiling_preload: a tool library (profiling_tool.c) that defines shmem_putmem and
#   shmem_pcontrol over pshmem_putmem / pshmem_pcontrol, LD_PRELOADed into the PEs, counts
#   exactly the program's calls (on one node and in pseudo-nodes of 1 PE).
# profiling_static: the same tool linked as an object before libnodeshm.a: the library's weak
#   shmem_putmem gives way (a strong one would be a duplicate definition at link time).
nodeshm_add_script_test(NAME pshmem_complete COMMAND pshmem_complete.sh TIMEOUT 120)

add_library(nodeshm_profiling_tool SHARED profiling_tool.c)
target_link_libraries(nodeshm_profiling_tool PRIVATE nodeshm)

nodeshm_add_test_executable(profiling profiling.c)
target_link_libraries(nodeshm_t_profiling PRIVATE ${CMAKE_DL_LIBS})
foreach(_np 1 2 4)
  nodeshm_add_script_test(NAME profiling_preload_np${_np} TIMEOUT 60
    COMMAND profiling_preload.sh ${_np} $<TARGET_FILE:nodeshm_profiling_tool>
            $<TARGET_FILE:nodeshm_t_profiling>)
endforeach()
nodeshm_add_script_test(NAME profiling_preload_np2_ppn1 TIMEOUT 60 ENV NODESHM_PES_PER_NODE=1
  COMMAND profiling_preload.sh 2 $<TARGET_FILE:nodeshm_profiling_tool>
          $<TARGET_FILE:nodeshm_t_profiling>)
# without the tool the program must fail: it proves the preloaded runs above were intercepted
nodeshm_add_mpi_test(NAME profiling NP 2 SUFFIX _no_tool WILL_FAIL TIMEOUT 60)

add_executable(nodeshm_t_profiling_static profiling.c profiling_tool.c)
set_target_properties(nodeshm_t_profiling_static PROPERTIES OUTPUT_NAME profiling_static)
target_compile_definitions(nodeshm_t_profiling_static PRIVATE NODESHM_TOOL_LINKED)
target_include_directories(nodeshm_t_profiling_static PRIVATE "${PROJECT_SOURCE_DIR}/src")
target_link_libraries(nodeshm_t_profiling_static PRIVATE nodeshm_static ${CMAKE_DL_LIBS})
nodeshm_add_mpi_test(NAME profiling_static NP 2 TIMEOUT 60)
nodeshm_add_mpi_test(NAME profiling_static NP 2 PES_PER_NODE 1 TIMEOUT 60)
