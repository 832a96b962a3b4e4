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
# Selection measured here (--check-selection): each matrix left out of the database,
# TunedSpmv in three modes, each choice timed beside the exhaustive best.
cmake_policy(SET CMP0054 NEW)  # "quick" below is a string, not the variable of that name
run("${TUNE}" --check-selection "${dbs}" --zoo "${WORK}/zoo/index.json" --out "${WORK}/check" --precision double
    --final-samples 3 --final-batch 2 --quick-spmvs 60)
file(READ "${WORK}/check.json" check)
string(JSON rows LENGTH "${check}" rows)
if(NOT rows EQUAL 3)
  message(FATAL_ERROR "check.json: expected 3 rows, found ${rows}")
endif()
math(EXPR last "${rows} - 1")
foreach(i RANGE ${last})
  string(JSON matrix GET "${check}" rows ${i} matrix)
  string(JSON error GET "${check}" rows ${i} error)
  string(JSON spmvs GET "${check}" rows ${i} always spmvs)
  string(JSON rule GET "${check}" rows ${i} always rule)
  string(JSON best GET "${check}" rows ${i} best_seconds)
  if(NOT error STREQUAL "" OR NOT rule STREQUAL "quick" OR spmvs LESS 5 OR spmvs GREATER 60 OR best STREQUAL "0")
    message(FATAL_ERROR "check.json, ${matrix}: error '${error}', always: rule ${rule}, ${spmvs} SpMVs "
                        "(expected quick, 5..60), best ${best} s")
  endif()
  foreach(mode never always auto)
    string(JSON ratio GET "${check}" rows ${i} ${mode} ratio)
    if(ratio STREQUAL "0")  # JSON 0: no time (a ratio is 0.97..., 1.0...)
      message(FATAL_ERROR "check.json, ${matrix}: ${mode} has no ratio (${ratio})")
    endif()
  endforeach()
endforeach()
require_text("${WORK}/check.md" "| always | 3 |")
# A matrix with no exhaustive record cannot be judged: the report still says so, and the tool exits 1.
run("${TUNE}" --zoo "${WORK}/zoo/index.json" --matrices dirac-torus-small ${quick} --db-dir "${WORK}/db_one")
file(GLOB one "${WORK}/db_one/*.json")
execute_process(COMMAND "${TUNE}" --check-selection "${dbs}" --best-from "${one}" --zoo "${WORK}/zoo/index.json"
                        --matrices elasticity-box-small --precision double --final-samples 2 --final-batch 1
                        --out "${WORK}/check_one" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "1 pair\\(s\\) not judged: elasticity-box-small block3/double: no exhaustive record")
  message(FATAL_ERROR "--check-selection without a record: rc ${rc}, stderr:\n${err}")
endif()
require_text("${WORK}/check_one.md" "no exhaustive record of elasticity-box-small block3/double")
