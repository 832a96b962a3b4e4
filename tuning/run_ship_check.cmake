# ctest driver for tuning.shipped_database (tuning/CMakeLists.txt): tuning/sm_90.json must be
# what `compound-tune --ship` makes of the committed tuner outputs, the H100's and the H200's
# (perf_tests/results/<device>/tuner_output.json.gz), joined as they were (--merge, the H100's
# first): the shipped file is never edited apart from the measurements it comes from.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${err}")
  endif()
endfunction()
set(inputs "")
foreach(device h100 h200)
  run("${GZIP}" -dc "${RESULTS}/${device}/tuner_output.json.gz" OUTPUT_FILE "${WORK}/${device}.json")
  list(APPEND inputs "${WORK}/${device}.json")
endforeach()
list(JOIN inputs "," inputs)
run("${TUNE}" --merge "${WORK}/full.json" --from "${inputs}")
run("${TUNE}" --ship "${WORK}/full.json" --out "${WORK}/sm_90.json")
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/sm_90.json" "${SHIPPED}" RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "${SHIPPED} is not what compound-tune --ship makes of ${RESULTS}/h100 and h200's "
                      "tuner_output.json.gz (made: ${WORK}/sm_90.json)")
endif()
file(REMOVE_RECURSE "${WORK}")
