# GoogleTest for the test executables of unit_tests/ and perf_tests/: Debian's package, or its
# source where no package can be installed (the offline GPU machine gets /usr/src/googletest
# carried along, see scripts/stage_gpu_deps.sh). Included by the top-level CMakeLists.txt, so
# that GTest::gtest is seen by every directory whatever their order (find_package's imported
# targets are visible only below the directory that called it).
set(COMPOUND_SPARSE_GTEST_SOURCE_DIR "" CACHE PATH "Build GoogleTest from this source tree instead of find_package")
if(COMPOUND_SPARSE_GTEST_SOURCE_DIR)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  add_subdirectory(${COMPOUND_SPARSE_GTEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  add_library(GTest::gtest ALIAS gtest)
else()
  find_package(GTest REQUIRED)
endif()
include(GoogleTest)
