# Generates the variant space's C++ lists and the explicit SpMV instantiations of the
# variant registry (include/compound_sparse/variants/registry.hpp) from the one declaration,
# cmake/CompoundSparseVariantSpace.cmake, through the templates in cmake/templates/.
#
#   COMPOUND_SPARSE_VARIANT_ENTRIES  declared entry types compiled into the registry
#   COMPOUND_SPARSE_LAUNCH_BOUNDS    threads:min_teams_per_sm pairs (n_t:n_b)
#   COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS  the pairs whose variants also have an SpMM
#   COMPOUND_SPARSE_VARIANT_SPLIT    translation units: per entry type, per entry type and
#                                    outer layout, or per entry type and (outer, inner)
#                                    layout; auto picks by backend and variant set
#   COMPOUND_SPARSE_VARIANT_SET      default (tuning/default_variant_set.cmake) or full:
#                                    which variants of the space the registry compiles
#
# Output, under ${COMPOUND_SPARSE_GENERATED_DIR}:
#   compound_sparse/variant_space.hpp   the lists (installed with the headers)
#   compound_sparse/variant_space.json  the same for the Python scripts
#   compound_sparse/variant_set.hpp     the variants of each compiled entry type in the set
#   variants_<entry>_<first layout>.cpp, variant_registry_<entry>.cpp
# and the lists COMPOUND_SPARSE_VARIANT_SOURCES (library sources) and
# COMPOUND_SPARSE_DECLARED_ENTRIES (every declared entry type, for the tests).

# ---- reading the declaration -------------------------------------------------
set(COMPOUND_SPARSE_DECLARED_ENTRIES "")
set(_cs_entry_headers "")
set(_cs_outer_types "")
set(_cs_outer_names "")
set(_cs_inner_types "")
set(_cs_inner_names "")
set(_cs_kind_names "")
set(_cs_kind_enumerators "")

function(compound_sparse_entry_type name cpp_type components header)
  if(NOT name MATCHES "^([a-z0-9]+)_(float|double|mixed)$")
    message(FATAL_ERROR "compound_sparse_entry_type: '${name}' is not <class>_<float|double|mixed>")
  endif()
  set(COMPOUND_SPARSE_DECLARED_ENTRIES ${COMPOUND_SPARSE_DECLARED_ENTRIES} ${name} PARENT_SCOPE)
  set(_cs_entry_headers ${_cs_entry_headers} ${header} PARENT_SCOPE)
  set(_cs_entry_type_${name} "${cpp_type}" PARENT_SCOPE)
  set(_cs_entry_class_${name} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  set(_cs_entry_precision_${name} "${CMAKE_MATCH_2}" PARENT_SCOPE)
  set(_cs_entry_components_${name} "${components}" PARENT_SCOPE)
endfunction()
# compound_sparse_outer_layout(<C++ tag> <name>), compound_sparse_inner_layout(<C++ tag> <name>):
# the name is the tag's name(), the layout's part of a variant key.
function(compound_sparse_outer_layout cpp_type name)
  set(_cs_outer_types ${_cs_outer_types} "${cpp_type}" PARENT_SCOPE)
  set(_cs_outer_names ${_cs_outer_names} "${name}" PARENT_SCOPE)
endfunction()
function(compound_sparse_inner_layout cpp_type name)
  set(_cs_inner_types ${_cs_inner_types} "${cpp_type}" PARENT_SCOPE)
  set(_cs_inner_names ${_cs_inner_names} "${name}" PARENT_SCOPE)
endfunction()
# compound_sparse_schedule_kind(<name> <Enumerator> [FIXED_LANES] [SPLITS_ROWS] [OUTER <C++ tag>...]):
# FIXED_LANES for a kind that does not use lanes_per_row (it must be 1);
# SPLITS_ROWS for a kind that shares a long row among threads (selection keeps
# to such kinds for a matrix with a dense row); OUTER restricts the kind to those
# outer layouts (default: every declared one).
function(compound_sparse_schedule_kind name enumerator)
  cmake_parse_arguments(PARSE_ARGV 2 arg "FIXED_LANES;SPLITS_ROWS" "" "OUTER")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "compound_sparse_schedule_kind(${name}): unknown arguments '${arg_UNPARSED_ARGUMENTS}'")
  endif()
  set(_cs_kind_names ${_cs_kind_names} "${name}" PARENT_SCOPE)
  set(_cs_kind_enumerators ${_cs_kind_enumerators} "${enumerator}" PARENT_SCOPE)
  if(arg_FIXED_LANES)
    set(_cs_kind_uses_lanes_${name} false PARENT_SCOPE)
  else()
    set(_cs_kind_uses_lanes_${name} true PARENT_SCOPE)
  endif()
  if(arg_SPLITS_ROWS)
    set(_cs_kind_splits_rows_${name} true PARENT_SCOPE)
  else()
    set(_cs_kind_splits_rows_${name} false PARENT_SCOPE)
  endif()
  set(_cs_kind_outer_${name} "${arg_OUTER}" PARENT_SCOPE)
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/CompoundSparseVariantSpace.cmake)

# ---- options -------------------------------------------------------------------
string(REPLACE ";" ", " _cs_declared_text "${COMPOUND_SPARSE_DECLARED_ENTRIES}")
set(COMPOUND_SPARSE_VARIANT_ENTRIES "${COMPOUND_SPARSE_DEFAULT_VARIANT_ENTRIES}" CACHE STRING
    "Entry types compiled into the variant registry (of: ${_cs_declared_text})")
if(COMPOUND_SPARSE_CUDA)
  set(_cs_default_bounds "${COMPOUND_SPARSE_DEFAULT_LAUNCH_BOUNDS_GPU}")
else()
  set(_cs_default_bounds "${COMPOUND_SPARSE_DEFAULT_LAUNCH_BOUNDS_HOST}")
endif()
set(COMPOUND_SPARSE_LAUNCH_BOUNDS "${_cs_default_bounds}" CACHE STRING
    "Launch bounds threads:min_teams_per_sm compiled for every variant")
# The launch bounds whose variants also register their SpMM (spmm.hpp). Each SpMM adds
# kernels per (entry type, matrix layout, row kind, pair): the tiled row kernel for each
# multivector layout (and, for entries of 32 bytes or less, the kernel whose lane sets share
# the loads), the segmented sum's three SpMM kernels, and the merge path's SpMV kernels of Soa
# vectors. On GPUs
# three pairs: 256:2 and 256:8, the two the first SpMM lab measured, each the fastest on some
# matrix and k, and 256:4, where the shared loads were fastest
# at k = 8 on helmholtz-box-xl and dirac-torus-xl.
# Measured over the H100's 74 records of tuning/sm_90.json at k = 2, 4, 8, 16 (296 cases,
# `launch_bounds.py --k 2,4,8,16`):
# 256:4 the fastest on 211, 256:2 on 68, 256:8 on 17; without 256:8 nine cases, small meshes,
# lose 2-12%, so none of the three is pruned. A variant of other bounds runs its SpMM with
# the nearest of these (TunedSpmv; the registry refuses it, supports_spmm).
if(COMPOUND_SPARSE_CUDA)
  set(_cs_default_spmm_bounds "${COMPOUND_SPARSE_DEFAULT_SPMM_LAUNCH_BOUNDS_GPU}")
else()
  set(_cs_default_spmm_bounds "${COMPOUND_SPARSE_LAUNCH_BOUNDS}")
endif()
set(COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS "${_cs_default_spmm_bounds}" CACHE STRING
    "Launch bounds (of COMPOUND_SPARSE_LAUNCH_BOUNDS) whose variants have an SpMM in the registry")
# Units of compilation (auto): on CUDA, where nvcc is slow per kernel and a GPU machine has
# many cores, per (outer, inner) layout for the full space, and per outer layout for the
# default set, whose units hold a third of the kernels: there nvcc's parse of the headers
# (about 8 s a unit) would cost as much as the kernels. Per entry type on host backends,
# where parsing Kokkos dominates and CI has two cores.
set(COMPOUND_SPARSE_VARIANT_SPLIT auto CACHE STRING
    "Translation units of the variant registry: one per entry type (entry), per entry type and outer layout (outer), per entry type and layout (layout), or auto")
set_property(CACHE COMPOUND_SPARSE_VARIANT_SPLIT PROPERTY STRINGS auto entry outer layout)

# Which variants of the space are compiled: the whole space (full: what compound-tune needs
# to tune, since it times only what is compiled) or the default set, derived from the
# shipped databases by tuning/default_variant_set.py: the variants they choose or rank near
# a record's best, and what quick tuning, the heuristic and the SpMM's fallback need, with
# every variant at the host build's launch bounds (its tests run each through the registry).
set(COMPOUND_SPARSE_VARIANT_SET default CACHE STRING
    "Variants compiled into the registry: default (tuning/default_variant_set.cmake) or full (the whole space)")
set_property(CACHE COMPOUND_SPARSE_VARIANT_SET PROPERTY STRINGS default full)
if(NOT COMPOUND_SPARSE_VARIANT_SET MATCHES "^(default|full)$")
  message(FATAL_ERROR "COMPOUND_SPARSE_VARIANT_SET: '${COMPOUND_SPARSE_VARIANT_SET}' is not default or full")
endif()

foreach(entry IN LISTS COMPOUND_SPARSE_VARIANT_ENTRIES)
  if(NOT entry IN_LIST COMPOUND_SPARSE_DECLARED_ENTRIES)
    message(FATAL_ERROR "COMPOUND_SPARSE_VARIANT_ENTRIES: unknown entry type '${entry}' "
                        "(declared in cmake/CompoundSparseVariantSpace.cmake: ${_cs_declared_text})")
  endif()
endforeach()
set(_cs_bounds_types "")
foreach(pair IN LISTS COMPOUND_SPARSE_LAUNCH_BOUNDS)
  if(NOT pair MATCHES "^([0-9]+):([0-9]+)$")
    message(FATAL_ERROR "COMPOUND_SPARSE_LAUNCH_BOUNDS: '${pair}' is not threads:min_teams")
  endif()
  list(APPEND _cs_bounds_types "LaunchBoundsPair<${CMAKE_MATCH_1}, ${CMAKE_MATCH_2}>")
endforeach()
set(_cs_spmm_bounds_types "")
foreach(pair IN LISTS COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS)
  if(NOT pair IN_LIST COMPOUND_SPARSE_LAUNCH_BOUNDS OR NOT pair MATCHES "^([0-9]+):([0-9]+)$")
    message(FATAL_ERROR "COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS: '${pair}' is not one of COMPOUND_SPARSE_LAUNCH_BOUNDS "
                        "(${COMPOUND_SPARSE_LAUNCH_BOUNDS})")
  endif()
  list(APPEND _cs_spmm_bounds_types "LaunchBoundsPair<${CMAKE_MATCH_1}, ${CMAKE_MATCH_2}>")
endforeach()
if(NOT COMPOUND_SPARSE_VARIANT_SPLIT MATCHES "^(auto|entry|outer|layout)$")
  message(FATAL_ERROR "COMPOUND_SPARSE_VARIANT_SPLIT: '${COMPOUND_SPARSE_VARIANT_SPLIT}' is not auto, entry, outer or layout")
endif()
set(_cs_split "${COMPOUND_SPARSE_VARIANT_SPLIT}")
if(_cs_split STREQUAL "auto")
  if(NOT COMPOUND_SPARSE_CUDA)
    set(_cs_split entry)
  elseif(COMPOUND_SPARSE_VARIANT_SET STREQUAL "full")
    set(_cs_split layout)
  else()
    set(_cs_split outer)
  endif()
endif()

# ---- the generated header and JSON -----------------------------------------------
set(COMPOUND_SPARSE_GENERATED_DIR "${CMAKE_BINARY_DIR}/generated")
set(_cs_dir "${COMPOUND_SPARSE_GENERATED_DIR}/compound_sparse")
set(_cs_templates "${CMAKE_CURRENT_LIST_DIR}/templates")

# C++ and JSON spellings of the lists, each a single placeholder in the templates.
set(_cs_compiled_types "")
foreach(entry IN LISTS COMPOUND_SPARSE_VARIANT_ENTRIES)
  list(APPEND _cs_compiled_types "${_cs_entry_type_${entry}}")
endforeach()
set(_cs_declared_types "")
set(_cs_entries_json "")
foreach(entry IN LISTS COMPOUND_SPARSE_DECLARED_ENTRIES)
  list(APPEND _cs_declared_types "${_cs_entry_type_${entry}}")
  if(entry IN_LIST COMPOUND_SPARSE_VARIANT_ENTRIES)
    set(compiled true)
  else()
    set(compiled false)
  endif()
  list(APPEND _cs_entries_json
       "    {\"name\": \"${entry}\", \"class\": \"${_cs_entry_class_${entry}}\", \"precision\": \"${_cs_entry_precision_${entry}}\", \"components\": ${_cs_entry_components_${entry}}, \"cpp_type\": \"${_cs_entry_type_${entry}}\", \"compiled\": ${compiled}}")
endforeach()
list(TRANSFORM _cs_kind_enumerators PREPEND "ScheduleKind::" OUTPUT_VARIABLE _cs_kind_values)
# Per kind: whether it uses lanes, and the outer layouts it is compiled for
# (a specialisation of schedule_outer_layouts where the declaration restricts them).
set(_cs_kind_uses_lanes_cpp "")
set(_cs_kind_splits_rows_cpp "")
set(_cs_kind_outer_specialisations "")
set(_cs_kind_json "")
set(_cs_kind_outer_count 0)  # (kind, outer layout) pairs compiled
list(LENGTH _cs_outer_types _cs_n_outer_all)
foreach(kind enumerator IN ZIP_LISTS _cs_kind_names _cs_kind_enumerators)
  list(APPEND _cs_kind_uses_lanes_cpp "${_cs_kind_uses_lanes_${kind}}")
  list(APPEND _cs_kind_splits_rows_cpp "${_cs_kind_splits_rows_${kind}}")
  set(outers "${_cs_kind_outer_${kind}}")
  if(outers)
    foreach(t IN LISTS outers)
      if(NOT t IN_LIST _cs_outer_types)
        message(FATAL_ERROR "compound_sparse_schedule_kind(${kind}): OUTER '${t}' is not a declared outer layout "
                            "(${_cs_outer_types})")
      endif()
    endforeach()
    list(JOIN outers ", " outers_cpp)
    string(APPEND _cs_kind_outer_specialisations
           "template <>\nstruct schedule_outer_layouts<ScheduleKind::${enumerator}> {\n  using type = TypeList<${outers_cpp}>;\n};\n")
    list(LENGTH outers n)
  else()
    set(outers "${_cs_outer_types}")
    set(n ${_cs_n_outer_all})
  endif()
  math(EXPR _cs_kind_outer_count "${_cs_kind_outer_count} + ${n}")
  list(TRANSFORM outers REPLACE "(.+)" "\"\\1\"" OUTPUT_VARIABLE outers_json)
  list(JOIN outers_json ", " outers_json)
  list(APPEND _cs_kind_json
       "    {\"name\": \"${kind}\", \"uses_lanes\": ${_cs_kind_uses_lanes_${kind}}, \"splits_rows\": ${_cs_kind_splits_rows_${kind}}, \"outer_layout_types\": [${outers_json}]}")
endforeach()
list(JOIN _cs_kind_uses_lanes_cpp ", " CS_SCHEDULE_KIND_USES_LANES)
list(JOIN _cs_kind_splits_rows_cpp ", " CS_SCHEDULE_KIND_SPLITS_ROWS)
set(CS_SCHEDULE_KIND_OUTER_SPECIALISATIONS "${_cs_kind_outer_specialisations}")
list(JOIN _cs_kind_json ",\n" CS_SCHEDULE_KINDS_JSON)
set(_cs_kind_names_cpp "")
set(_cs_kind_names_json "")
foreach(kind IN LISTS _cs_kind_names)
  list(APPEND _cs_kind_names_cpp "\"${kind}\"")
  list(APPEND _cs_kind_names_json "\"${kind}\"")
endforeach()
set(_cs_bounds_json "")
foreach(pair IN LISTS COMPOUND_SPARSE_LAUNCH_BOUNDS)
  list(APPEND _cs_bounds_json "\"${pair}\"")
endforeach()

list(REMOVE_DUPLICATES _cs_entry_headers)
list(TRANSFORM _cs_entry_headers REPLACE "(.+)" "#include <\\1>" OUTPUT_VARIABLE _cs_entry_includes)
list(JOIN _cs_entry_includes "\n" CS_ENTRY_TYPE_INCLUDES)
list(JOIN _cs_compiled_types ", " CS_COMPILED_ENTRY_TYPES)
list(JOIN _cs_declared_types ", " CS_DECLARED_ENTRY_TYPES)
list(JOIN _cs_outer_types ", " CS_OUTER_LAYOUT_TYPES)
list(JOIN _cs_inner_types ", " CS_INNER_LAYOUT_TYPES)
list(JOIN _cs_kind_enumerators ", " CS_SCHEDULE_KIND_ENUMERATORS)
list(JOIN _cs_kind_values ", " CS_SCHEDULE_KIND_VALUES)
list(JOIN _cs_kind_names_cpp ", " CS_SCHEDULE_KIND_NAMES)
list(JOIN _cs_bounds_types ", " CS_LAUNCH_BOUNDS_TYPES)
list(JOIN COMPOUND_SPARSE_VARIANT_ENTRIES "," CS_VARIANT_ENTRIES_TEXT)
list(JOIN COMPOUND_SPARSE_LAUNCH_BOUNDS "," CS_LAUNCH_BOUNDS_TEXT)
list(JOIN _cs_spmm_bounds_types ", " CS_SPMM_LAUNCH_BOUNDS_TYPES)
list(JOIN COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS "," CS_SPMM_LAUNCH_BOUNDS_TEXT)
list(JOIN _cs_entries_json ",\n" CS_ENTRIES_JSON)
list(JOIN _cs_kind_names_json ", " CS_SCHEDULE_KIND_NAMES_JSON)
list(JOIN _cs_bounds_json ", " CS_LAUNCH_BOUNDS_JSON)
set(_cs_outer_json "")
foreach(t IN LISTS _cs_outer_types)
  list(APPEND _cs_outer_json "\"${t}\"")
endforeach()
set(_cs_inner_json "")
foreach(t IN LISTS _cs_inner_types)
  list(APPEND _cs_inner_json "\"${t}\"")
endforeach()
list(JOIN _cs_outer_json ", " CS_OUTER_LAYOUT_TYPES_JSON)
list(JOIN _cs_inner_json ", " CS_INNER_LAYOUT_TYPES_JSON)

# The declared names of the layouts, which the registry checks against the tags' name().
set(_cs_outer_names_cpp "")
set(_cs_outer_names_json "")
foreach(name IN LISTS _cs_outer_names)
  list(APPEND _cs_outer_names_cpp "\"${name}\"")
endforeach()
set(_cs_inner_names_cpp "")
foreach(name IN LISTS _cs_inner_names)
  list(APPEND _cs_inner_names_cpp "\"${name}\"")
endforeach()
list(JOIN _cs_outer_names_cpp ", " CS_OUTER_LAYOUT_NAMES)
list(JOIN _cs_inner_names_cpp ", " CS_INNER_LAYOUT_NAMES)
# The defaults of the declaration, for tuning/default_variant_set.py: the set it derives is
# the default GPU and host builds' (whatever this build configured).
set(_cs_defaults_json "")
foreach(list_name LAUNCH_BOUNDS_GPU LAUNCH_BOUNDS_HOST SPMM_LAUNCH_BOUNDS_GPU)
  set(items "")
  foreach(pair IN LISTS COMPOUND_SPARSE_DEFAULT_${list_name})
    list(APPEND items "\"${pair}\"")
  endforeach()
  list(JOIN items ", " items)
  string(TOLOWER "${list_name}" key)
  list(APPEND _cs_defaults_json "\"${key}\": [${items}]")
endforeach()
list(JOIN _cs_defaults_json ", " CS_DEFAULTS_JSON)

configure_file(${_cs_templates}/variant_space.hpp.in ${_cs_dir}/variant_space.hpp @ONLY)
configure_file(${_cs_templates}/variant_space.json.in ${_cs_dir}/variant_space.json @ONLY)

# ---- the variant set: compound_sparse/variant_set.hpp ------------------------------
# Per compiled entry type, the variants of the default set at this build's launch bounds as
# a list of VariantPoints, and the bounds at which every variant is compiled; the registry
# (impl/register_variants.hpp) instantiates only those. Full: no list, every variant.
list(LENGTH _cs_inner_types _cs_n_inner_types)
math(EXPR _cs_per_entry_all "${_cs_kind_outer_count} * ${_cs_n_inner_types} * ${_cs_n_inner_types}")
# The body of a TypeList<...> of the given types, one a line ("" for none).
function(_cs_type_list_body out)
  if(ARGN)
    list(JOIN ARGN ",\n    " body)
    set(${out} "\n    ${body}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()
set(CS_VARIANT_SET_NAME "${COMPOUND_SPARSE_VARIANT_SET}")
set(CS_VARIANT_SET_SPECIALISATIONS "")
set(_cs_every_bounds_types "")
list(LENGTH COMPOUND_SPARSE_LAUNCH_BOUNDS _cs_n_compiled_bounds)
math(EXPR _cs_n_set_variants "0")
math(EXPR _cs_n_set_spmm "0")  # of the listed variants (the every-variant bounds not counted)
if(COMPOUND_SPARSE_VARIANT_SET STREQUAL "default")
  set(_cs_set_file "${CMAKE_CURRENT_LIST_DIR}/../tuning/default_variant_set.cmake")
  include("${_cs_set_file}")
  set(_cs_every_compiled 0)
  foreach(pair IN LISTS COMPOUND_SPARSE_LAUNCH_BOUNDS)
    if(pair IN_LIST COMPOUND_SPARSE_DEFAULT_SET_EVERY_VARIANT_AT)
      string(REPLACE ":" ", " numbers "${pair}")
      list(APPEND _cs_every_bounds_types "LaunchBoundsPair<${numbers}>")
      math(EXPR _cs_every_compiled "${_cs_every_compiled} + 1")
    endif()
  endforeach()
  foreach(entry IN LISTS COMPOUND_SPARSE_VARIANT_ENTRIES)
    if(NOT DEFINED COMPOUND_SPARSE_DEFAULT_SET_${entry})
      message(FATAL_ERROR "${_cs_set_file} lists no variants of ${entry}: regenerate it (tuning/default_variant_set.py)")
    endif()
    set(points "")
    set(spmm_points "")
    foreach(variant IN LISTS COMPOUND_SPARSE_DEFAULT_SET_SPMM_${entry})
      if(NOT variant IN_LIST COMPOUND_SPARSE_DEFAULT_SET_${entry})
        message(FATAL_ERROR "${_cs_set_file}: '${variant}' (${entry}) has an SpMM but is not in the set: regenerate it")
      endif()
    endforeach()
    foreach(variant IN LISTS COMPOUND_SPARSE_DEFAULT_SET_${entry})
      if(NOT variant MATCHES "^([a-z0-9]+)\\.([a-z0-9]+)\\.([a-z0-9]+)\\.([a-z_]+)\\.t([0-9]+)\\.b([0-9]+)$")
        message(FATAL_ERROR "${_cs_set_file}: '${variant}' (${entry}) is not outer.inner.vector.kind.tN.bM")
      endif()
      set(outer "${CMAKE_MATCH_1}")
      set(inner "${CMAKE_MATCH_2}")
      set(vector "${CMAKE_MATCH_3}")
      set(kind "${CMAKE_MATCH_4}")
      set(pair "${CMAKE_MATCH_5}:${CMAKE_MATCH_6}")
      set(bounds_cpp "${CMAKE_MATCH_5}, ${CMAKE_MATCH_6}")
      list(FIND _cs_outer_names "${outer}" outer_at)
      list(FIND _cs_inner_names "${inner}" inner_at)
      list(FIND _cs_inner_names "${vector}" vector_at)
      list(FIND _cs_kind_names "${kind}" kind_at)
      if(outer_at EQUAL -1 OR inner_at EQUAL -1 OR vector_at EQUAL -1 OR kind_at EQUAL -1)
        message(FATAL_ERROR "${_cs_set_file}: '${variant}' (${entry}) names a layout or kind that "
                            "cmake/CompoundSparseVariantSpace.cmake does not declare: regenerate it")
      endif()
      list(GET _cs_outer_types ${outer_at} outer_type)
      if(_cs_kind_outer_${kind} AND NOT outer_type IN_LIST _cs_kind_outer_${kind})
        message(FATAL_ERROR "${_cs_set_file}: '${variant}' (${entry}): ${kind} does not run on ${outer}")
      endif()
      if(pair IN_LIST COMPOUND_SPARSE_LAUNCH_BOUNDS AND NOT pair IN_LIST COMPOUND_SPARSE_DEFAULT_SET_EVERY_VARIANT_AT)
        list(GET _cs_inner_types ${inner_at} inner_type)
        list(GET _cs_inner_types ${vector_at} vector_type)
        list(GET _cs_kind_enumerators ${kind_at} enumerator)
        set(point "VariantPoint<${outer_type}, ${inner_type}, ${vector_type}, ScheduleKind::${enumerator}, ${bounds_cpp}>")
        list(APPEND points "${point}")
        if(variant IN_LIST COMPOUND_SPARSE_DEFAULT_SET_SPMM_${entry} AND pair IN_LIST COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS)
          list(APPEND spmm_points "${point}")
          math(EXPR _cs_n_set_spmm "${_cs_n_set_spmm} + 1")
        endif()
      endif()
    endforeach()
    list(LENGTH points n)
    math(EXPR _cs_n_set_variants "${_cs_n_set_variants} + ${n} + ${_cs_per_entry_all} * ${_cs_every_compiled}")
    _cs_type_list_body(points_cpp ${points})
    _cs_type_list_body(spmm_cpp ${spmm_points})
    string(APPEND CS_VARIANT_SET_SPECIALISATIONS
           "template <>\nstruct compiled_variant_set<${_cs_entry_type_${entry}}> {\n  static constexpr bool every = false;\n"
           "  using type = TypeList<${points_cpp}>;\n  using with_spmm = TypeList<${spmm_cpp}>;\n};\n")
  endforeach()
else()
  list(LENGTH COMPOUND_SPARSE_VARIANT_ENTRIES _cs_n_set_entries)
  math(EXPR _cs_n_set_variants "${_cs_n_set_entries} * ${_cs_per_entry_all} * ${_cs_n_compiled_bounds}")
endif()
list(JOIN _cs_every_bounds_types ", " CS_VARIANT_SET_EVERY_BOUNDS)
configure_file(${_cs_templates}/variant_set.hpp.in ${_cs_dir}/variant_set.hpp @ONLY)

# ---- the registry's translation units ---------------------------------------------
# A unit instantiates the layouts [first, last) of the (outer x inner) product that
# variant_space.hpp enumerates (impl/variant_units.hpp); the registry unit of an entry
# type calls them all with the same unit size, so both sides derive from the lists.
list(LENGTH _cs_outer_types _cs_n_outer)
list(LENGTH _cs_inner_types _cs_n_inner)
list(LENGTH _cs_kind_names _cs_n_kinds)
math(EXPR CS_LAYOUT_COUNT "${_cs_n_outer} * ${_cs_n_inner}")
if(_cs_split STREQUAL "layout")
  set(CS_UNIT_SIZE 1)
elseif(_cs_split STREQUAL "outer")
  set(CS_UNIT_SIZE ${_cs_n_inner})
else()
  set(CS_UNIT_SIZE ${CS_LAYOUT_COUNT})
endif()
math(EXPR _cs_last_first "${CS_LAYOUT_COUNT} - 1")

set(COMPOUND_SPARSE_VARIANT_SOURCES "")
foreach(entry IN LISTS COMPOUND_SPARSE_VARIANT_ENTRIES)
  set(CS_ENTRY_NAME ${entry})
  set(CS_ENTRY_TYPE "${_cs_entry_type_${entry}}")
  set(CS_ENTRY_COMPONENTS ${_cs_entry_components_${entry}})
  foreach(first RANGE 0 ${_cs_last_first} ${CS_UNIT_SIZE})
    set(CS_FIRST_LAYOUT ${first})
    math(EXPR CS_LAST_LAYOUT "${first} + ${CS_UNIT_SIZE}")
    configure_file(${_cs_templates}/variant_unit.cpp.in ${COMPOUND_SPARSE_GENERATED_DIR}/variants_${entry}_${first}.cpp
                   @ONLY)
    list(APPEND COMPOUND_SPARSE_VARIANT_SOURCES ${COMPOUND_SPARSE_GENERATED_DIR}/variants_${entry}_${first}.cpp)
  endforeach()
  configure_file(${_cs_templates}/variant_registry.cpp.in
                 ${COMPOUND_SPARSE_GENERATED_DIR}/variant_registry_${entry}.cpp @ONLY)
  list(APPEND COMPOUND_SPARSE_VARIANT_SOURCES ${COMPOUND_SPARSE_GENERATED_DIR}/variant_registry_${entry}.cpp)
endforeach()

list(LENGTH COMPOUND_SPARSE_VARIANT_ENTRIES _cs_n_entries)
list(LENGTH COMPOUND_SPARSE_LAUNCH_BOUNDS _cs_n_bounds)
math(EXPR _cs_per_entry "${_cs_kind_outer_count} * ${_cs_n_inner} * ${_cs_n_inner}")
math(EXPR _cs_n_variants "${_cs_n_entries} * ${_cs_per_entry} * ${_cs_n_bounds}")
# SpMMs: the listed ones and every variant's at the bounds where the set (or the full space)
# compiles every variant.
set(_cs_n_set_spmm_all ${_cs_n_set_spmm})
foreach(pair IN LISTS COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS)
  if(COMPOUND_SPARSE_VARIANT_SET STREQUAL "full" OR pair IN_LIST COMPOUND_SPARSE_DEFAULT_SET_EVERY_VARIANT_AT)
    math(EXPR _cs_n_set_spmm_all "${_cs_n_set_spmm_all} + ${_cs_n_entries} * ${_cs_per_entry}")
  endif()
endforeach()
message(STATUS "CompoundSparse: ${_cs_n_set_variants} of the space's ${_cs_n_variants} SpMV variants compiled, "
               "${_cs_n_set_spmm_all} of them with their SpMM (variant set ${COMPOUND_SPARSE_VARIANT_SET}; space: "
               "${_cs_n_entries} entry types x ${_cs_per_entry} layouts/kinds x ${_cs_n_bounds} launch bounds; "
               "${CS_UNIT_SIZE} layout(s) a unit)")

# Stops the configuration with the reason when `what` (a part of this project:
# tests, examples, a tool) calls the registry for entry types the build does not
# compile; without it, a smaller COMPOUND_SPARSE_VARIANT_ENTRIES would end in
# a static_assert (variant_registry) deep inside that part's build.
#   compound_sparse_require_variant_entries(<what> <option that turns it off> <entry>...)
function(compound_sparse_require_variant_entries what option)
  set(missing "")
  foreach(entry IN LISTS ARGN)
    if(NOT entry IN_LIST COMPOUND_SPARSE_VARIANT_ENTRIES)
      list(APPEND missing ${entry})
    endif()
  endforeach()
  if(missing)
    list(JOIN missing ", " missing)
    message(FATAL_ERROR "CompoundSparse: COMPOUND_SPARSE_VARIANT_ENTRIES (${COMPOUND_SPARSE_VARIANT_ENTRIES}) "
                        "leaves out ${missing}, which ${what} use: add them, or configure with -D${option}=OFF")
  endif()
endfunction()
