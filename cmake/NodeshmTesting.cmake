# Helpers for tests/CMakeLists.txt. Every MPI test runs through the build
# tree's oshrun, exactly as users launch programs.
#
# nodeshm_add_test_executable(<name> <sources...>)
#   Builds executable <name> (target nodeshm_t_<name>) linked to nodeshm, with
#   src/ on the include path for white-box tests. Does nothing if it exists.
#
# nodeshm_add_mpi_test(NAME <name> SOURCES <files...> NP <counts...>
#                      [PES_PER_NODE <k>] [ARGS <args...>] [WILL_FAIL]
#                      [PASS_REGEX <re>] [TIMEOUT <s>] [ENV <VAR=val...>]
#                      [SUFFIX <s>] [HOSTS <k>])
#   One test per NP value: <name>_np<N>[_ppn<k>][_host<k>][<SUFFIX>] running
#   "oshrun [--hosts k] -np N <exe> <args>". PES_PER_NODE sets NODESHM_PES_PER_NODE=k.
#   HOSTS runs the job on k emulated hosts (tools/nshost-agent); exit status 77, where
#   this machine cannot make namespaces, skips the test.
#   SOURCES may be omitted when <name> was built by an earlier call; SUFFIX
#   keeps test names unique when the same NAME/NP is reused with other ARGS.
#
# nodeshm_add_script_test(NAME <name> COMMAND <cmd...> [ENV <VAR=val...>]
#                         [TIMEOUT <s>] [WILL_FAIL] [PASS_REGEX <re>])
#   Runs a script with OSHRUN, OSHCC, NODESHM_BUILD_DIR, NODESHM_SOURCE_DIR
#   set. COMMAND words naming files relative to the current source dir are
#   made absolute (tests run in the binary dir). Use
#   $<TARGET_FILE:nodeshm_t_<name>> to pass a test executable.

set(NODESHM_TEST_TIMEOUT 120 CACHE STRING "default per-test timeout in seconds")

function(nodeshm_add_test_executable name)
  set(target nodeshm_t_${name})
  if(TARGET ${target})
    return()
  endif()
  if(NOT ARGN)
    message(FATAL_ERROR "nodeshm test '${name}': no SOURCES given")
  endif()
  add_executable(${target} ${ARGN})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name})
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/src")
  target_link_libraries(${target} PRIVATE nodeshm)
endfunction()

# nodeshm_add_interposer_programs(<prog> [LIBS <lib>...] [LINKED_DEFINITIONS <def>...])
#   Two executables of tests/<prog>.c for libnodeshm_mpi: nodeshm_t_<prog> (output <prog>) linked
#   with it, and nodeshm_t_<prog>_plain (output <prog>_plain) linked with MPI only, for
#   LD_PRELOAD.  Both see the generated headers (nsm_bigcount_config.h: which MPI_<Op>_c and
#   MPI_<Op>_init this MPI has); LINKED_DEFINITIONS go to the linked one only.
function(nodeshm_add_interposer_programs prog)
  cmake_parse_arguments(A "" "" "LIBS;LINKED_DEFINITIONS" ${ARGN})
  foreach(kind linked plain)
    set(name ${prog})
    set(lib nodeshm_mpi)
    if(kind STREQUAL "plain")
      set(name ${prog}_plain)
      set(lib MPI::MPI_C)
    endif()
    add_executable(nodeshm_t_${name} ${prog}.c)
    set_target_properties(nodeshm_t_${name} PROPERTIES OUTPUT_NAME ${name})
    target_include_directories(nodeshm_t_${name} PRIVATE "${PROJECT_BINARY_DIR}/generated")
    target_link_libraries(nodeshm_t_${name} PRIVATE ${lib} ${CMAKE_DL_LIBS} ${A_LIBS})
    if(kind STREQUAL "linked" AND A_LINKED_DEFINITIONS)
      target_compile_definitions(nodeshm_t_${name} PRIVATE ${A_LINKED_DEFINITIONS})
    endif()
  endforeach()
endfunction()

# Sets properties shared by both test kinds; args come from cmake_parse_arguments.
function(_nodeshm_test_properties test timeout will_fail pass_regex env)
  if(NOT timeout)
    set(timeout ${NODESHM_TEST_TIMEOUT})
  endif()
  set_tests_properties(${test} PROPERTIES TIMEOUT ${timeout})
  if(env)
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "${env}")
  endif()
  if(will_fail)
    set_tests_properties(${test} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(pass_regex)
    set_tests_properties(${test} PROPERTIES PASS_REGULAR_EXPRESSION "${pass_regex}")
  endif()
endfunction()

function(nodeshm_add_mpi_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "WILL_FAIL"
    "NAME;PES_PER_NODE;PASS_REGEX;TIMEOUT;SUFFIX;HOSTS" "SOURCES;NP;ARGS;ENV")
  if(NOT T_NAME OR NOT T_NP)
    message(FATAL_ERROR "nodeshm_add_mpi_test: NAME and NP are required")
  endif()
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "nodeshm_add_mpi_test(${T_NAME}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  nodeshm_add_test_executable(${T_NAME} ${T_SOURCES})

  set(env ${T_ENV})
  set(suffix "")
  if(T_PES_PER_NODE)
    list(APPEND env "NODESHM_PES_PER_NODE=${T_PES_PER_NODE}")
    set(suffix "_ppn${T_PES_PER_NODE}")
  endif()
  set(hosts_opt)
  set(labels mpi)
  if(T_HOSTS)
    set(hosts_opt --hosts ${T_HOSTS})
    string(APPEND suffix "_host${T_HOSTS}")
    list(APPEND labels hosts)
  endif()
  foreach(np IN LISTS T_NP)
    set(test ${T_NAME}_np${np}${suffix}${T_SUFFIX})
    add_test(NAME ${test}
      COMMAND "${NODESHM_OSHRUN}" ${hosts_opt} -np ${np} $<TARGET_FILE:nodeshm_t_${T_NAME}> ${T_ARGS})
    _nodeshm_test_properties(${test} "${T_TIMEOUT}" "${T_WILL_FAIL}" "${T_PASS_REGEX}" "${env}")
    set_tests_properties(${test} PROPERTIES LABELS "${labels};np${np}")
    if(T_HOSTS)
      set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE 77)
    endif()
  endforeach()
endfunction()

function(nodeshm_add_script_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "WILL_FAIL"
    "NAME;PASS_REGEX;TIMEOUT" "COMMAND;ENV")
  if(NOT T_NAME OR NOT T_COMMAND)
    message(FATAL_ERROR "nodeshm_add_script_test: NAME and COMMAND are required")
  endif()
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "nodeshm_add_script_test(${T_NAME}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  set(cmd)
  foreach(word IN LISTS T_COMMAND)
    if(NOT IS_ABSOLUTE "${word}" AND NOT word MATCHES "^-|^\\$<"
        AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${word}"
        AND NOT IS_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/${word}")
      set(word "${CMAKE_CURRENT_SOURCE_DIR}/${word}")
    endif()
    list(APPEND cmd "${word}")
  endforeach()
  add_test(NAME ${T_NAME} COMMAND ${cmd})
  set(env
    "OSHRUN=${NODESHM_OSHRUN}" "OSHCC=${NODESHM_OSHCC}"
    "NODESHM_BUILD_DIR=${PROJECT_BINARY_DIR}"
    "NODESHM_SOURCE_DIR=${PROJECT_SOURCE_DIR}" ${T_ENV})
  _nodeshm_test_properties(${T_NAME} "${T_TIMEOUT}" "${T_WILL_FAIL}" "${T_PASS_REGEX}" "${env}")
  set_tests_properties(${T_NAME} PROPERTIES LABELS "script")
endfunction()
