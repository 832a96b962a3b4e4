# ctest driver for tuning.compound_tune_small (tuning/CMakeLists.txt).
# Only generated matrices (no mesh files), so it runs wherever the build does.
file(REMOVE_RECURSE "${WORK}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
function(require_text file text)
  file(READ "${file}" content)
  string(FIND "${content}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${file} does not contain '${text}'")
  endif()
endfunction()

run("${ZOO}" --out "${WORK}/zoo" --scale small --only dirac-torus-small,elasticity-lshape-small,elasticity-box-small)
set(quick --search reduced --precision double --samples 2 --batch 2 --warmup 1 --top 2 --final-samples 3
          --final-batch 2 --db-dir "${WORK}/db")
run("${TUNE}" --zoo "${WORK}/zoo/index.json" --matrices dirac-torus-small,elasticity-box-small ${quick})
run("${TUNE}" --zoo "${WORK}/zoo/index.json" --matrices elasticity-lshape-small ${quick})  # merges
file(GLOB dbs "${WORK}/db/*.json")
list(LENGTH dbs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one database in ${WORK}/db, found: ${dbs}")
endif()
foreach(name dirac-torus-small elasticity-lshape-small elasticity-box-small "\"best\": \"" "\"schema_version\": 1"
        "\"timing\": \"${EXPECTED_TIMING}\"")
  require_text("${dbs}" "${name}")
endforeach()
run("${TUNE}" --loo "${dbs}" --out "${WORK}/loo")
require_text("${WORK}/loo.md" "| elasticity-lshape-small | block3 | double | nearest | elasticity-box-small")
require_text("${WORK}/loo.json" "\"meets_target\"")
# Quick tuning simulated for every record: both modes summarised, a ratio per row.
require_text("${WORK}/loo.md" "## Quick tuning (simulated)")
require_text("${WORK}/loo.json" "\"quick_tuning\"")
require_text("${WORK}/loo.json" "\"quick_ratio\"")
