# ctest driver for perf.fem_assembly_small: compound-assembly-bench's finite-element cases at toy
# size on the host backend (fem_assembly_case.hpp), P1 and P2. The bench exits 1 when a way of summing is
# off the host assembly (a gather by a bit, a scatter by more than rounding), a coloured scatter
# differs from itself, or the COO path differs from the host; here every case must also report
# all five ways of summing, and a bad mesh must be a clear error.
cmake_policy(VERSION 3.19)  # string(JSON)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${BENCH}" --cases fem:1,fem-helmholtz:3,fem:2,fem-p2:2 --samples 1 --out "${OUT}/fem.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "all checks passed")
  message(FATAL_ERROR "compound-assembly-bench failed (${rc}):\n${out}")
endif()
file(READ "${OUT}/fem.json" report)
foreach(i RANGE 3)
  string(JSON name GET "${report}" cases ${i} case)
  string(JSON ways LENGTH "${report}" cases ${i} summations)
  if(NOT ways EQUAL 5)
    message(FATAL_ERROR "${name}: ${ways} ways of summing measured, expected 5")
  endif()
endforeach()
execute_process(COMMAND "${BENCH}" --cases "fem-mesh:${OUT}/missing" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0 OR NOT err MATCHES "missing.node")
  message(FATAL_ERROR "fem-mesh of a missing file: expected an error naming it, got ${rc}: ${err}")
endif()
file(REMOVE_RECURSE "${OUT}")
