# ctest driver for perf.bench_binary_zoo: the xl scale's path at toy size -- two small
# zoo matrices written as binary CSR (compound-zoo --format binary), benched from those
# files (checked against the reference like any run), then the same zoo with
# --device-memory far too small: every matrix is refused before its file is read,
# recorded under "skipped" with the reason, and the bench still succeeds; and once more
# from an index without rows and columns, where each is refused once read.
cmake_policy(VERSION 3.19)  # string(JSON)
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${ZOO}" --out "${OUT}/zoo" --scale small --format binary --only "${MATRICES}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compound-zoo --format binary failed (${rc})")
endif()
file(GLOB binaries "${OUT}/zoo/*.csrb")
file(GLOB texts "${OUT}/zoo/*.mtx")
list(LENGTH binaries n_binaries)
if(NOT n_binaries EQUAL 2 OR texts)
  message(FATAL_ERROR "expected two .csrb files and no .mtx, got: ${binaries} ${texts}")
endif()

execute_process(COMMAND "${BENCH}" --zoo "${OUT}/zoo/index.json" --out "${OUT}/bench" --precision double
                        --samples 2 --batch 1 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compound-bench on binary CSR files failed (${rc})")
endif()
file(READ "${OUT}/bench/bench.json" bench)
string(JSON n LENGTH "${bench}" matrices)
string(JSON n_skipped LENGTH "${bench}" skipped)
if(NOT n EQUAL 2 OR NOT n_skipped EQUAL 0)
  message(FATAL_ERROR "bench.json has ${n} matrices and ${n_skipped} skipped, expected 2 and 0")
endif()
foreach(i 0 1)
  string(JSON method GET "${bench}" matrices ${i} results 1 method)
  string(JSON ok GET "${bench}" matrices ${i} results 1 ok)
  if(NOT method STREQUAL "ours_tuned" OR NOT ok)
    message(FATAL_ERROR "matrix ${i}: ${method} ok=${ok}, expected ours_tuned to run correctly")
  endif()
  # Reruns of the tuned variant reproduce its bits (spmv is deterministic).
  string(JSON repeats GET "${bench}" matrices ${i} results 1 repeats)
  string(JSON differing GET "${bench}" matrices ${i} results 1 repeats_differing)
  if(NOT repeats GREATER 0 OR NOT differing EQUAL 0)
    message(FATAL_ERROR "matrix ${i}: ours_tuned reruns ${repeats}, ${differing} with other bits; expected some, none")
  endif()
endforeach()

# Benches the zoo of INDEX into OUT/DIR with --device-memory far too small: both matrices must
# be refused, said on stderr and recorded under "skipped", and the bench must still succeed.
function(expect_every_matrix_refused index dir)
  execute_process(COMMAND "${BENCH}" --zoo "${index}" --out "${OUT}/${dir}" --precision double
                          --samples 2 --batch 1 --device-memory 1000
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compound-bench on ${index} with --device-memory 1000 failed (${rc}): ${err}")
  endif()
  set(refusal "GB of device memory \\(3 copies of its [0-9.e-]+ GB CSR in this precision, and the vectors\\), more than 90% of the 1e-06 GB that --device-memory allows: not run")
  if(NOT err MATCHES "${refusal}")
    message(FATAL_ERROR "no refusal in the bench's output on ${index}: ${err}")
  endif()
  file(READ "${OUT}/${dir}/bench.json" bench)
  string(JSON n LENGTH "${bench}" matrices)
  string(JSON n_skipped LENGTH "${bench}" skipped)
  string(JSON reason GET "${bench}" skipped 0 reason)
  if(NOT n EQUAL 0 OR NOT n_skipped EQUAL 2 OR NOT reason MATCHES "${refusal}$")
    message(FATAL_ERROR "${index}: bench.json has ${n} matrices and ${n_skipped} skipped ('${reason}'), expected 0 and 2")
  endif()
endfunction()

# Refused before their files are read: the index gives their sizes.
expect_every_matrix_refused("${OUT}/zoo/index.json" refused)

# An index without the matrices' rows and columns (a hand-written one): each is refused as soon as
# it is read, before anything goes to the device, with the same reason.
file(READ "${OUT}/zoo/index.json" index)
string(JSON n_index LENGTH "${index}" matrices)
math(EXPR last "${n_index} - 1")
foreach(i RANGE ${last})
  foreach(key rows columns)
    string(JSON index REMOVE "${index}" matrices ${i} ${key})
  endforeach()
endforeach()
file(WRITE "${OUT}/zoo/index_without_sizes.json" "${index}")
expect_every_matrix_refused("${OUT}/zoo/index_without_sizes.json" refused_read)

# --variants: only the named variants of ours are measured, no search (profiling a chosen
# variant of an xl matrix); the bench records where its search came from and the host
# phases; a malformed name stops the run before any work (exit 2, with the reason).
# The variant: the first run's tuned choice of its first matrix (compiled in any build).
file(READ "${OUT}/bench/bench.json" bench)
string(JSON chosen GET "${bench}" matrices 0 results 1 variant)
execute_process(COMMAND "${BENCH}" --zoo "${OUT}/zoo/index.json" --out "${OUT}/variants" --precision double
                        --samples 2 --batch 1 --variants "${chosen}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compound-bench --variants ${chosen} failed (${rc}): ${err}")
endif()
if(NOT err MATCHES "search [0-9.]+, leaders [0-9.]+, cusparse [0-9.]+, kokkos_kernels [0-9.]+")
  message(FATAL_ERROR "no host phases on the bench's matrix lines: ${err}")
endif()
file(READ "${OUT}/variants/bench.json" bench)
foreach(i 0 1)
  string(JSON source GET "${bench}" matrices ${i} search_source)
  string(JSON n_search LENGTH "${bench}" matrices ${i} search)
  string(JSON tuned GET "${bench}" matrices ${i} results 1 variant)
  string(JSON ok GET "${bench}" matrices ${i} results 1 ok)
  string(JSON search_seconds GET "${bench}" matrices ${i} host_phase_seconds search)
  if(NOT source STREQUAL "--variants" OR NOT n_search EQUAL 1 OR NOT tuned STREQUAL "${chosen}" OR NOT ok
     OR NOT search_seconds GREATER_EQUAL 0)
    message(FATAL_ERROR "matrix ${i} with --variants: search from '${source}', ${n_search} searched, tuned "
                        "'${tuned}' ok=${ok}, search phase ${search_seconds} s; expected '--variants', 1, '${chosen}'")
  endif()
endforeach()
execute_process(COMMAND "${BENCH}" --zoo "${OUT}/zoo/index.json" --out "${OUT}/variants_bad" --variants "csr.aos.nonsense"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "bad value 'csr.aos.nonsense' for --variants")
  message(FATAL_ERROR "a malformed --variants name: exit ${rc}, expected 2 with the reason: ${err}")
endif()
