# The variant space of CompoundSparse, declared once.
#
# Every SpMV variant is one point of
#   entry type x outer layout x matrix inner layout x vector layout x schedule kind x launch bounds
# (plus lanes_per_row, chosen at run time). This file is the only place that lists
# the dimensions. cmake/CompoundSparseVariants.cmake turns it into
#   - compound_sparse/variant_space.hpp (cmake/templates/variant_space.hpp.in): the
#     C++ lists that the registry, the variant-name parser, the heuristic, the unit
#     tests and the tools loop over, and the ScheduleKind enum;
#   - the registry's translation units (cmake/templates/variant_*.cpp.in);
#   - the SpMV unit-test executables, one per entry type (unit_tests/test_spmv_entry.cpp.in);
#   - variant_space.json for the Python report and zoo scripts.
# docs/architecture.md shows, as worked examples, what to touch to add an entry
# type or a schedule kind.

# Entry types: <class>_<precision> (float, double or mixed), the C++ type, its number of scalar components
# and the header that defines it (with its component_traits, entry_traits and
# io::mm_field specialisations). The class is the Matrix Market field name that io/compound_format.hpp
# gives the type (checked by the generated unit tests), so that the zoo, the tuning
# database and the tools name it alike. Declared types are all tested; those in
# COMPOUND_SPARSE_VARIANT_ENTRIES are compiled into the variant registry.
compound_sparse_entry_type(complex_float "Kokkos::complex<float>" 2 Kokkos_Core.hpp)
compound_sparse_entry_type(complex_double "Kokkos::complex<double>" 2 Kokkos_Core.hpp)
compound_sparse_entry_type(quaternion_float "compound_sparse::Quaternion<float>" 4 compound_sparse/entries/quaternion.hpp)
compound_sparse_entry_type(quaternion_double "compound_sparse::Quaternion<double>" 4 compound_sparse/entries/quaternion.hpp)
compound_sparse_entry_type(block2_float "compound_sparse::Block<float, 2>" 4 compound_sparse/entries/block.hpp)
compound_sparse_entry_type(block2_double "compound_sparse::Block<double, 2>" 4 compound_sparse/entries/block.hpp)
compound_sparse_entry_type(block3_float "compound_sparse::Block<float, 3>" 9 compound_sparse/entries/block.hpp)
compound_sparse_entry_type(block3_double "compound_sparse::Block<double, 3>" 9 compound_sparse/entries/block.hpp)
compound_sparse_entry_type(block4_float "compound_sparse::Block<float, 4>" 16 compound_sparse/entries/block.hpp)
compound_sparse_entry_type(block4_double "compound_sparse::Block<double, 4>" 16 compound_sparse/entries/block.hpp)
# Mixed precision (compound_sparse/entries/mixed_precision.hpp): float entries, double
# vectors and arithmetic, the precision "mixed".
compound_sparse_entry_type(complex_mixed "compound_sparse::Mixed<Kokkos::complex<float>>" 2
                           compound_sparse/entries/mixed_precision.hpp)
compound_sparse_entry_type(quaternion_mixed "compound_sparse::Mixed<compound_sparse::Quaternion<float>>" 4
                           compound_sparse/entries/mixed_precision.hpp)
compound_sparse_entry_type(block3_mixed "compound_sparse::Mixed<compound_sparse::Block<float, 3>>" 9
                           compound_sparse/entries/mixed_precision.hpp)
set(COMPOUND_SPARSE_DEFAULT_VARIANT_ENTRIES
    complex_float complex_double quaternion_float quaternion_double block3_float block3_double
    complex_mixed quaternion_mixed block3_mixed)

# Outer layouts: the tag (layouts.hpp) and its name in variant keys, which is the tag's
# name() (the registry checks the two agree; the name lets a variant set, below, be listed
# by name). The first is the default layout, the heuristic's choice and compound-bench's
# schedule-only baseline; when the memory budget rules it out, the heuristic takes
# the next one that fits, in this order.
compound_sparse_outer_layout("compound_sparse::Csr" csr)
compound_sparse_outer_layout("compound_sparse::SlicedEll<32>" sell32)
compound_sparse_outer_layout("compound_sparse::SlicedEll<16>" sell16)
compound_sparse_outer_layout("compound_sparse::Ell" ell)
# Sliced ELL with 16-bit column offsets from a base column per slice (sell32c16):
# fewer bytes per non-zero than any layout above, for matrices whose slices span at
# most 65536 columns (others refuse it before conversion, layout_refusal). Last, so
# that the heuristic's fallback order is not changed by a layout that may not apply.
compound_sparse_outer_layout("compound_sparse::SlicedEll<32, 16>" sell32c16)

# Inner layouts, for the matrix entries and, independently, for x and y, with their names
# as above. The first is the default.
compound_sparse_inner_layout("compound_sparse::Aos" aos)
compound_sparse_inner_layout("compound_sparse::Soa" soa)

# Schedule kinds: the name in variant keys and the ScheduleKind enumerator, then
# FIXED_LANES if the kind does not use lanes_per_row (always 1), SPLITS_ROWS if it
# shares a long row among threads, and OUTER <tag>... if it runs only on those
# outer layouts. Their behaviour is in
# impl/spmv_functor.hpp (the row schedules), impl/merge_path.hpp and
# impl/segmented_sum.hpp.
compound_sparse_schedule_kind(static Static)
compound_sparse_schedule_kind(dynamic_team DynamicTeam)
compound_sparse_schedule_kind(dynamic_warp DynamicWarp)
# Work split by non-zeros and rows together (merge path): a long row is shared by
# many threads and teams. One thread walks each part of the merge, so no lanes.
compound_sparse_schedule_kind(merge_path MergePath FIXED_LANES SPLITS_ROWS OUTER "compound_sparse::Csr")
# Work split by non-zeros alone, 64 per warp, rows summed by a warp's segmented scan
# (impl/segmented_sum.hpp): no search, no scratch, no barrier.
compound_sparse_schedule_kind(segmented_sum SegmentedSum FIXED_LANES SPLITS_ROWS OUTER "compound_sparse::Csr")

# Launch bounds threads:min_teams_per_sm (n_t:n_b). GPUs: teams of 256 threads at 256,
# 512, 1024 and 2048 threads per SM, pruned by measurement (issue 17): over the H200's 74 records
# of tuning/sm_90.json (pairs 128:4, 128:16, 256:1, 256:2, 256:4, 256:8, 512:4), these
# four are the smallest set within 3% of every record's fastest variant (worst 2.2%,
# geometric mean 0.23%; perf_tests/report/launch_bounds.py, checked by ctest
# report.launch_bounds). 128:n and 512:n pairs give the same threads per SM with other
# team sizes and were the best of 12 records, by at most 2.2% over these. Every pair adds a
# full set of kernels per entry type (about 23 s of one core's compile time per entry type):
# the eleven pairs compiled before (128:1 ... 512:4) made the default GPU build 21 minutes on
# 16 cores. Any list can be configured
# (COMPOUND_SPARSE_LAUNCH_BOUNDS); host backends ignore launch bounds, so one pair there.
set(COMPOUND_SPARSE_DEFAULT_LAUNCH_BOUNDS_GPU "256:1;256:2;256:4;256:8")
set(COMPOUND_SPARSE_DEFAULT_LAUNCH_BOUNDS_HOST "128:4")
# The launch bounds whose variants also have an SpMM (COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS) on
# GPUs; host builds give every compiled pair one. Why these three: cmake/CompoundSparseVariants.cmake.
set(COMPOUND_SPARSE_DEFAULT_SPMM_LAUNCH_BOUNDS_GPU "256:2;256:4;256:8")

# Variant sets (COMPOUND_SPARSE_VARIANT_SET): "full" compiles every point of the space above
# (tuning campaigns: compound-tune times only what is compiled); "default" compiles the
# variants that tuning/default_variant_set.cmake lists, generated from the shipped databases
# by tuning/default_variant_set.py (the rules are in that script; ctest
# tuning.default_variant_set fails when the list and the databases part).
