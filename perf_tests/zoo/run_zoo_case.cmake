# ctest driver for the zoo.<case> tests (perf_tests/zoo/CMakeLists.txt): compound-zoo adding
# matrices to an existing zoo directory and refusing inputs it cannot use, each case checking
# the exit status as well as the message. Only the small set's quickest matrices are built.
#   cmake -DCASE=<case> -DZOO=... -DWORK=DIR [-DPYTHON=... -DCHECKER=... -DVARIANT_SPACE=...] -P run_zoo_case.cmake
cmake_policy(VERSION 3.19)  # string(JSON)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/CompoundSparseCommandChecks.cmake")  # run, expect, ...
# The names index.json lists, in order.
function(index_names dir out)
  file(READ "${dir}/index.json" index)
  string(JSON n LENGTH "${index}" matrices)
  set(names "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${index}" matrices ${i} name)
      list(APPEND names "${name}")
    endforeach()
  endif()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()
# Fails unless `dir` holds only matrix files and index.json (and the lock beside it): no
# temporary index left behind.
function(expect_no_stray_files dir)
  file(GLOB entries RELATIVE "${dir}" "${dir}/*" "${dir}/.*")
  foreach(entry IN LISTS entries)
    if(NOT entry MATCHES "\\.(mtx|csrb)$" AND NOT entry STREQUAL "index.json" AND NOT entry STREQUAL "index.json.lock")
      message(FATAL_ERROR "${dir} holds '${entry}' besides the zoo")
    endif()
  endforeach()
endfunction()

set(zoo "${WORK}/zoo")
if(CASE STREQUAL "only_keeps_index")
  # --only into an existing zoo adds to its index: the other matrices stay listed, a
  # regenerated one keeps its place, once.
  expect(0 "wrote 2 matrices" "${ZOO}" --out "${zoo}" --only elasticity-box-small,helmholtz-box-small)
  expect(0 "wrote 1 matrices" "${ZOO}" --out "${zoo}" --only dirac-torus-small)
  index_names("${zoo}" names)
  if(NOT names STREQUAL "helmholtz-box-small;elasticity-box-small;dirac-torus-small")
    message(FATAL_ERROR "after adding dirac-torus-small index.json lists: ${names}")
  endif()
  file(READ "${zoo}/index.json" before)
  expect(0 "wrote 1 matrices" "${ZOO}" --out "${zoo}" --only elasticity-box-small)
  index_names("${zoo}" names)
  if(NOT names STREQUAL "helmholtz-box-small;elasticity-box-small;dirac-torus-small")
    message(FATAL_ERROR "after regenerating elasticity-box-small index.json lists: ${names}")
  endif()
  file(READ "${zoo}/index.json" after)
  if(NOT before STREQUAL after)  # the generators are deterministic
    message(FATAL_ERROR "regenerating elasticity-box-small changed index.json:\n${before}\n->\n${after}")
  endif()
  # Two runs at once into the directory (execute_process runs its COMMANDs concurrently, as a
  # pipeline): each merges into the index the other wrote, under the lock.
  execute_process(COMMAND "${ZOO}" --out "${zoo}" --only elasticity-lshape-small
                  COMMAND "${ZOO}" --out "${zoo}" --only elasticity-cylinder-small
                  RESULTS_VARIABLE statuses OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  message(STATUS "exit statuses ${statuses}\n${stdout}${stderr}")
  if(NOT statuses STREQUAL "0;0")
    message(FATAL_ERROR "a concurrent compound-zoo failed: ${statuses}")
  endif()
  index_names("${zoo}" names)
  list(SORT names)
  if(NOT names STREQUAL "dirac-torus-small;elasticity-box-small;elasticity-cylinder-small;elasticity-lshape-small;helmholtz-box-small")
    message(FATAL_ERROR "after two concurrent runs index.json lists: ${names}")
  endif()
  expect_no_stray_files("${zoo}")
  execute_process(COMMAND "${PYTHON}" "${CHECKER}" "${zoo}" --variant-space "${VARIANT_SPACE}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "check_zoo.py failed (${rc})")
  endif()
  # Another scale's matrices are not added to this one's index, which stays as it was.
  file(READ "${zoo}/index.json" before_refusal)
  expect(1 "compound-zoo: .*/zoo/index.json is a zoo of --scale small, not unseen: give another --out"
         "${ZOO}" --out "${zoo}" --scale unseen --only elasticity-box-36)
  file(READ "${zoo}/index.json" refused)
  if(NOT refused STREQUAL before_refusal)
    message(FATAL_ERROR "the refused run changed index.json")
  endif()

elseif(CASE STREQUAL "unreadable_index_refused")
  # An index.json that does not read as a zoo index is not overwritten with less: the run
  # stops before any work, naming the file and what is wrong, and leaves it as it was.
  file(MAKE_DIRECTORY "${zoo}")
  foreach(text "{\"matrices\": [{\"name\": \"a\", \"fi" "{\"matrices\": {}}" "[1, 2]" "{\"matrices\": [{\"file\": \"a.mtx\"}]}")
    file(WRITE "${zoo}/index.json" "${text}")
    expect(1 "compound-zoo: .*/zoo/index.json( is not valid JSON \\(truncated or corrupt\\?\\)| has no \"matrices\" list|: matrix #1 has no string \"name\").*not adding to it \\(move it away or give another --out\\)"
           "${ZOO}" --out "${zoo}" --only elasticity-box-small)
    file(READ "${zoo}/index.json" kept)
    if(NOT kept STREQUAL text)
      message(FATAL_ERROR "index.json was changed to:\n${kept}")
    endif()
    if(EXISTS "${zoo}/elasticity-box-small.mtx")
      message(FATAL_ERROR "a matrix was generated although index.json does not read")
    endif()
  endforeach()

elseif(CASE STREQUAL "missing_input_paths")
  # --meshes and --mhd1280b that do not exist are usage errors naming the path; a matrix
  # that --only asks for whose input is absent is an error, not a skip.
  expect(2 "compound-zoo: bad value '${WORK}/nonexistent' for --meshes \\(no such directory\\)" "${ZOO}" --out "${zoo}"
         --meshes "${WORK}/nonexistent" --only dirac-woody)
  expect(2 "compound-zoo: bad value '${WORK}/nonexistent' for --mhd1280b \\(no such file\\)" "${ZOO}" --out "${zoo}"
         --mhd1280b "${WORK}/nonexistent" --only mhd1280b)
  file(MAKE_DIRECTORY "${WORK}/meshes")  # a directory without woody.obj
  expect(1 "compound-zoo: .*--only asks for matrices whose input is absent: dirac-woody: [^ ]*/meshes/woody.obj not found \\(--meshes DIR\\)"
         "${ZOO}" --out "${zoo}" --meshes "${WORK}/meshes" --only dirac-woody,elasticity-box-small)
  if(EXISTS "${zoo}/index.json" OR EXISTS "${zoo}/elasticity-box-small.mtx")
    message(FATAL_ERROR "the refused run wrote into ${zoo}")
  endif()

else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()
file(REMOVE_RECURSE "${WORK}")
