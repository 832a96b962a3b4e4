# Run by the package.downstream test (cmake -P): install the build into a scratch
# prefix, then configure, build and run the downstream project against it.
# Arguments: BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER CXX_FLAGS BUILD_TYPE.

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "downstream test: ${what} failed (${result})")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
# Installed to one prefix, then moved: neither the configure-time prefix nor the
# install prefix holds the package when the application runs, and the tuning
# database must still be found beside the package (its CMake config says where).
set(prefix "${WORK_DIR}/moved")
run_step("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/installed")
file(RENAME "${WORK_DIR}/installed" "${prefix}")
# Only the prefix is given: the package must find Kokkos on its own.
run_step("configure" ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
         "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
         "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
run_step("build" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run_step("run" "${WORK_DIR}/build/downstream_spmv" --expect-database-in "${prefix}/share/compound_sparse/tuning")
