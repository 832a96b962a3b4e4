# Running a command from a ctest driver script (cmake -P) and checking its exit status and
# output: the tools.<case> (tuning/run_tool_case.cmake) and zoo.<case>
# (perf_tests/zoo/run_zoo_case.cmake) drivers check both, since a PASS_REGULAR_EXPRESSION
# alone ignores the status.

# Runs the command; `out` gets stdout and stderr together, `rc` the exit status.
function(run out rc)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  message(STATUS "ran (${status}): ${ARGN}\n--- stdout:\n${stdout}--- stderr:\n${stderr}")
  set(${out} "${stdout}${stderr}" PARENT_SCOPE)
  set(${rc} "${status}" PARENT_SCOPE)
endfunction()
# Fails unless `rc` is `expected` (a number, or "nonzero").
function(expect_rc rc expected)
  if(expected STREQUAL "nonzero")
    if(rc EQUAL 0)
      message(FATAL_ERROR "expected a failure, the command exited 0")
    endif()
  elseif(NOT rc STREQUAL "${expected}")
    message(FATAL_ERROR "expected exit status ${expected}, got ${rc}")
  endif()
endfunction()
function(expect_match text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "output does not match '${regex}'")
  endif()
endfunction()
function(expect_no_match text regex)
  if(text MATCHES "${regex}")
    message(FATAL_ERROR "output matches '${regex}', it must not")
  endif()
endfunction()
# Runs the command and checks its exit status and output.
function(expect expected_rc regex)
  run(out rc ${ARGN})
  expect_rc("${rc}" "${expected_rc}")
  expect_match("${out}" "${regex}")
endfunction()
