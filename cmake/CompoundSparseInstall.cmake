# Install rules and the exported CMake package:
#
#   find_package(CompoundSparse 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE CompoundSparse::compound_sparse)   # core
#   target_link_libraries(app PRIVATE CompoundSparse::zoo)               # matrix generators
#
# The package finds Kokkos itself (find_dependency) and applies the same repair
# of Debian's Kokkos package as this build (CompoundSparseKokkos.cmake is
# installed next to the config), so downstream projects need nothing else.

include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(COMPOUND_SPARSE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/CompoundSparse"
    CACHE STRING "Where the CompoundSparse CMake package is installed, relative to the prefix")

set_target_properties(compound_sparse_zoo PROPERTIES EXPORT_NAME zoo)
# compound_sparse_warnings is linked PRIVATE; a static library still names it in
# its exported link interface ($<LINK_ONLY:...>, which carries no flags), so it
# must be part of the export set.
set(_cs_installed_targets compound_sparse compound_sparse_zoo compound_sparse_warnings)
if(TARGET compound_sparse_generated)  # CUDA builds: CompoundSparse::generated_operators
  list(APPEND _cs_installed_targets compound_sparse_generated)
endif()
install(TARGETS ${_cs_installed_targets}
        EXPORT CompoundSparseTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(COMPOUND_SPARSE_GENERATED_DIR)  # headers generated at configure time (variant registry)
  install(DIRECTORY ${COMPOUND_SPARSE_GENERATED_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp")
endif()
# The committed tuning databases, where TunedSpmv looks for them by default
# (COMPOUND_SPARSE_INSTALLED_TUNING_DIR in the root CMakeLists.txt).
# The package's config also tells applications where they are, relative to wherever
# find_package finds it (COMPOUND_SPARSE_PACKAGE_TUNING_DIR, tuning/database.hpp).
set(COMPOUND_SPARSE_TUNING_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/compound_sparse/tuning)
file(GLOB _cs_tuning_databases CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tuning/*.json)
install(FILES ${_cs_tuning_databases} DESTINATION ${COMPOUND_SPARSE_TUNING_INSTALL_DIR})
install(EXPORT CompoundSparseTargets NAMESPACE CompoundSparse:: DESTINATION ${COMPOUND_SPARSE_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/CompoundSparseConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/CompoundSparseConfig.cmake
                              INSTALL_DESTINATION ${COMPOUND_SPARSE_INSTALL_CMAKEDIR}
                              PATH_VARS COMPOUND_SPARSE_TUNING_INSTALL_DIR)
# 0.x releases may break the API between minor versions.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CompoundSparseConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/CompoundSparseConfig.cmake
              ${PROJECT_BINARY_DIR}/CompoundSparseConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/CompoundSparseKokkos.cmake
        DESTINATION ${COMPOUND_SPARSE_INSTALL_CMAKEDIR})
# The Kokkos check that CompoundSparseKokkos.cmake runs, for a user's project too.
install(FILES ${PROJECT_SOURCE_DIR}/cmake/checks/default_view.cpp DESTINATION ${COMPOUND_SPARSE_INSTALL_CMAKEDIR}/checks)

# package.downstream: installs this build into a scratch prefix, then configures,
# builds and runs unit_tests/downstream against it, as a user's project would: with this
# build's compiler and flags (a flag that changes Kokkos' View layout must be the same in both).
if(COMPOUND_SPARSE_ENABLE_TESTS)
  add_test(NAME package.downstream
           COMMAND ${CMAKE_COMMAND}
                   -DBUILD_DIR=${PROJECT_BINARY_DIR}
                   -DSOURCE_DIR=${PROJECT_SOURCE_DIR}/unit_tests/downstream
                   -DWORK_DIR=${PROJECT_BINARY_DIR}/downstream_test
                   -DGENERATOR=${CMAKE_GENERATOR}
                   -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                   "-DCXX_FLAGS=${CMAKE_CXX_FLAGS}"
                   -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
                   -P ${PROJECT_SOURCE_DIR}/cmake/CompoundSparseDownstreamTest.cmake)
  set_tests_properties(package.downstream PROPERTIES TIMEOUT 300 LABELS package ENVIRONMENT
                       "COMPOUND_SPARSE_CACHE_DIR=${PROJECT_BINARY_DIR}/test_tuning_cache")
endif()
