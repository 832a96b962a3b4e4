# ctest driver for perf.device_build_assemble_small: compound-assembly-bench at toy size (CUDA:
# whether the build's backend is), awkward shapes included (stencil:1 is 1 x 1, stencil:5 has 125 rows, not a
# multiple of 16 or 32). The bench exits 1 when any layout's device build, refresh or
# assembly differs in a bit from the host path's, or a product is off its reference; here
# every case must also report every layout of the build and Kokkos Kernels' path (where built),
# and a bad case must be a usage error.
cmake_policy(VERSION 3.19)  # string(JSON)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(cases "stencil:1,elasticity:1,helmholtz:2,stencil:5")
execute_process(COMMAND "${BENCH}" --cases ${cases} --samples 1 --out "${OUT}/assembly.json" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "all checks passed")
  message(FATAL_ERROR "compound-assembly-bench failed (${rc}):\n${out}")
endif()
file(READ "${OUT}/assembly.json" report)
string(JSON n LENGTH "${report}" cases)
if(NOT n EQUAL 4)
  message(FATAL_ERROR "assembly.json has ${n} cases, expected 4")
endif()
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${report}" cases ${i} case)
  string(JSON layouts LENGTH "${report}" cases ${i} layouts)
  if(NOT layouts EQUAL ${LAYOUTS})
    message(FATAL_ERROR "${name}: ${layouts} layouts measured, the build has ${LAYOUTS}")
  endif()
  string(JSON form GET "${report}" cases ${i} cusparse form)
  string(JSON error ERROR_VARIABLE no_error GET "${report}" cases ${i} cusparse error)
  if(NOT CUDA AND NOT error STREQUAL "cuSPARSE needs the CUDA backend")
    message(FATAL_ERROR "${name}: cuSPARSE on the host backend says '${error}'")
  endif()
  # On CUDA cuSPARSE's path must run, but for the toy cases whose duplicate contributions
  # outnumber the matrix's positions, which its descriptors refuse (cusparse_coo_path.hpp).
  if(CUDA AND NOT no_error AND NOT error MATCHES "keeps duplicate contributions")
    message(FATAL_ERROR "${name}: cuSPARSE's path says '${error}'")
  endif()
  # Kokkos Kernels' path runs on every backend; its matrix is checked inside the bench.
  string(JSON kk_ok GET "${report}" cases ${i} kokkos_kernels ok)
  if(NOT kk_ok)
    string(JSON kk_error GET "${report}" cases ${i} kokkos_kernels error)
    if(NOT kk_error STREQUAL "built without Kokkos Kernels")
      message(FATAL_ERROR "${name}: Kokkos Kernels' path says '${kk_error}'")
    endif()
  endif()
endforeach()
# The re-assembling example's loop (reassembly_loop.hpp) at its smallest: our loop must converge
# and match the host path; cuSPARSE's needs CUDA.
execute_process(COMMAND "${BENCH}" --cases reassembly:1 --steps 2 --out "${OUT}/reassembly.json" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "all checks passed")
  message(FATAL_ERROR "compound-assembly-bench --cases reassembly:1 failed (${rc}):\n${out}")
endif()
file(READ "${OUT}/reassembly.json" report)
string(JSON steps LENGTH "${report}" cases 0 ours steps)
string(JSON error ERROR_VARIABLE no_error GET "${report}" cases 0 cusparse error)
if(CUDA)
  string(JSON cusparse_steps ERROR_VARIABLE no_steps LENGTH "${report}" cases 0 cusparse steps)
  if(NOT steps EQUAL 2 OR no_steps OR NOT cusparse_steps EQUAL 2)
    message(FATAL_ERROR "reassembly:1: ${steps} steps of our loop and ${cusparse_steps} of cuSPARSE's (expected 2 "
                        "each); cuSPARSE says '${error}'")
  endif()
elseif(NOT steps EQUAL 2 OR NOT error STREQUAL "cuSPARSE needs the CUDA backend")
  message(FATAL_ERROR "reassembly:1: ${steps} steps of our loop (expected 2), cuSPARSE says '${error}'")
endif()
execute_process(COMMAND "${BENCH}" --cases "stencil:0" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "stencil:0")
  message(FATAL_ERROR "--cases stencil:0: expected a usage error (2) naming it, got ${rc}: ${err}")
endif()
file(REMOVE_RECURSE "${OUT}")
