# Finds Kokkos (and optionally Kokkos Kernels) and repairs the known quirks of
# Debian's packages, so that the rest of the build sees two clean targets:
#   Kokkos::kokkos                  core, with correct include directories
#   CompoundSparse::kokkoskernels   Kokkos Kernels, when found
#
# Debian's Kokkos 3.4.01 package (libtrilinos-kokkos-dev) exports
# Kokkos::kokkos with INTERFACE_INCLUDE_DIRECTORIES=/usr/lib/include (one
# directory off: the headers live in /usr/include/trilinos), and its Kokkos
# Kernels target is named trilinos_kokkoskernels with no namespaced alias.

find_package(Kokkos REQUIRED)
# 3.4 is the oldest Kokkos the library is built and tested with (Debian bookworm's); the
# versions it is tested with are listed in docs/building.md.
if(Kokkos_VERSION VERSION_LESS 3.4)
  message(FATAL_ERROR "CompoundSparse needs Kokkos 3.4 or newer; found Kokkos ${Kokkos_VERSION} "
                      "(${Kokkos_DIR}). docs/building.md lists the versions it is tested with.")
endif()

find_path(COMPOUND_SPARSE_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
  HINTS ${Kokkos_DIR}/../../../include ${Kokkos_DIR}/../../../../include
  PATH_SUFFIXES trilinos
  NO_CACHE)
get_target_property(_cs_kokkos_target Kokkos::kokkos ALIASED_TARGET)
if(NOT _cs_kokkos_target)
  set(_cs_kokkos_target Kokkos::kokkos)
endif()
get_target_property(_cs_kokkos_inc ${_cs_kokkos_target} INTERFACE_INCLUDE_DIRECTORIES)
set(_cs_inc_ok FALSE)
foreach(dir IN LISTS _cs_kokkos_inc)
  if(EXISTS "${dir}/Kokkos_Core.hpp")
    set(_cs_inc_ok TRUE)
  endif()
endforeach()
if(NOT _cs_inc_ok)
  if(NOT COMPOUND_SPARSE_KOKKOS_INCLUDE_DIR)
    message(FATAL_ERROR "Kokkos was found (${Kokkos_DIR}) but Kokkos_Core.hpp was not; "
                        "set COMPOUND_SPARSE_KOKKOS_INCLUDE_DIR to the directory that holds it")
  endif()
  message(STATUS "CompoundSparse: repairing Kokkos::kokkos include directory "
                 "(${_cs_kokkos_inc} -> ${COMPOUND_SPARSE_KOKKOS_INCLUDE_DIR})")
  set_target_properties(${_cs_kokkos_target} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${COMPOUND_SPARSE_KOKKOS_INCLUDE_DIR}")
endif()
message(STATUS "CompoundSparse: Kokkos ${Kokkos_VERSION}, devices: ${Kokkos_DEVICES}")
# One spelling of "is this a CUDA build" for the rest of the project.
if("CUDA" IN_LIST Kokkos_DEVICES OR Kokkos_ENABLE_CUDA)
  set(COMPOUND_SPARSE_CUDA ON)
else()
  set(COMPOUND_SPARSE_CUDA OFF)
endif()

# Kokkos' mdspan-based View (after 4.6, unless Kokkos_ENABLE_IMPL_VIEW_LEGACY) meets a GCC 12
# code-generation fault with [[no_unique_address]] in some snapshots: a default-constructed View's
# allocation tracker reads zero instead of its "no record" flag, and the program crashes when
# the View is assigned or destroyed. A host build runs a small program once to find out, and
# stops with the way round it rather than build a library whose every test would crash.
if(NOT COMPOUND_SPARSE_CUDA AND NOT CMAKE_CROSSCOMPILING AND Kokkos_VERSION VERSION_GREATER 4.6.1
   AND NOT Kokkos_ENABLE_IMPL_VIEW_LEGACY)
  try_run(_cs_view_ran _cs_view_compiled ${CMAKE_BINARY_DIR}/CMakeFiles/compound_sparse_default_view_check
          ${CMAKE_CURRENT_LIST_DIR}/checks/default_view.cpp
          COMPILE_DEFINITIONS -O2
          LINK_LIBRARIES Kokkos::kokkos
          COMPILE_OUTPUT_VARIABLE _cs_view_compile_output)
  if(NOT _cs_view_compiled)
    message(FATAL_ERROR "CompoundSparse: a program that uses Kokkos ${Kokkos_VERSION} (${Kokkos_DIR}) did not "
                        "compile; the compiler said:\n${_cs_view_compile_output}")
  elseif(NOT _cs_view_ran EQUAL 0)
    message(FATAL_ERROR "CompoundSparse: with Kokkos ${Kokkos_VERSION} and ${CMAKE_CXX_COMPILER_ID} "
                        "${CMAKE_CXX_COMPILER_VERSION}, a default-constructed Kokkos::View crashes when assigned "
                        "(${_cs_view_ran}): the mdspan View's [[no_unique_address]] members are miscompiled. "
                        "Build Kokkos, this library and your application with "
                        "-DCMAKE_CXX_FLAGS=-DMDSPAN_IMPL_USE_ATTRIBUTE_NO_UNIQUE_ADDRESS=0, all three alike "
                        "(docs/building.md).")
  endif()
endif()

if(COMPOUND_SPARSE_WITH_KOKKOS_KERNELS)
  find_package(KokkosKernels QUIET)
  if(TARGET Kokkos::kokkoskernels OR TARGET trilinos_kokkoskernels)
    message(STATUS "CompoundSparse: Kokkos Kernels found (${KokkosKernels_DIR}); its baselines are on")
  endif()
  if(TARGET Kokkos::kokkoskernels)
    add_library(CompoundSparse::kokkoskernels INTERFACE IMPORTED)
    target_link_libraries(CompoundSparse::kokkoskernels INTERFACE Kokkos::kokkoskernels)
  elseif(TARGET trilinos_kokkoskernels)
    add_library(CompoundSparse::kokkoskernels INTERFACE IMPORTED)
    target_link_libraries(CompoundSparse::kokkoskernels INTERFACE trilinos_kokkoskernels Kokkos::kokkos)
  else()
    message(STATUS "CompoundSparse: Kokkos Kernels not found; its baselines are off")
  endif()
endif()
