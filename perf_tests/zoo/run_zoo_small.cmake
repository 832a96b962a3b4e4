# ctest driver for zoo_small: builds the small zoo into a fresh directory, then
# checks index.json against the files it lists.
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${ZOO}" --out "${OUT}" --scale small RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compound-zoo failed (${rc})")
endif()
# Every class has an irregular matrix whose longest row is over 1000 times its median one.
execute_process(COMMAND "${PYTHON}" "${CHECKER}" "${OUT}" --expect-classes complex,quaternion,block3
                        --expect-structures grid,irregular --irregular-ratio 1000
                        --variant-space "${VARIANT_SPACE}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_zoo.py failed (${rc})")
endif()
file(REMOVE_RECURSE "${OUT}")
