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
