#pragma once
// Finite-element assembly on the device with linear (P1) or quadratic (P2) Lagrange elements,
// from a tetrahedral mesh straight into a layout:
//
//   P1Assembly<Block<double, 3>, SlicedEll<32>, Soa> assembly(mesh, Summation::per_entry);  // once
//   assembly.assemble(uniform_elasticity(mesh.num_cells(), lambda, mu));  // every step
//   assembly.apply_dirichlet(fixed, identity);
//   spmv(schedule, alpha, assembly.matrix(), x, beta, y);
//
// P2Assembly is the same with P2 problems (P2Elasticity): its rows are the mesh's points, then
// its edges (lagrange_nodes.hpp). The constructor builds the pattern from the mesh's topology
// with exact allocation (p1_pattern.hpp, p2_pattern.hpp), writes it into the layout
// (device_build.hpp) with zero values, and keeps what its way of summing needs.
// assemble(problem) then computes every cell's element matrix entries (problems.hpp) on the
// device and sums them into the layout's slots. There is no matrix in between: no list of
// (row, column, value) contributions and no CSR of values.
//
// The ways of summing (Summation), after "GPU-based Polynomial Finite Element Matrix Assembly
// for Simplex Meshes" (Mueller-Roemer, Altenhofen, Stork, 2018), plus two scatters:
//
// | Summation        | a thread per                | element entries from         | kept besides the matrix       |
// |------------------|-----------------------------|------------------------------|-------------------------------|
// | per_entry        | non-zero                    | each cell's geometry, stored | geometry, slot-to-entries map |
// | per_node         | row (P1), non-zero (P2)     | each cell's geometry, stored | geometry, vertex-to-cells     |
// | per_node_inline  | row                         | the mesh, computed in place  | vertex-to-cells               |
// | atomic_scatter   | cell                        | the mesh, computed in place  | nothing                       |
// | coloured_scatter | cell                        | the mesh, computed in place  | a cell colouring              |
//
// The gathers (per_entry, per_node, per_node_inline) add a slot's contributions in the order
// of its cells, which is the order zoo's csr_from_coo of the element contributions adds them:
// their matrices are the host assembly's bit for bit. A coloured scatter adds them colour by
// colour, so its sums round differently from the host's, but the same way on every run. An
// atomic scatter adds them in whatever order the device's atomics ran: close to the host's
// within rounding, not bit for bit, and not the same from run to run.
//
// A P1 problem with terms on the boundary faces (P1Helmholtz's absorbing boundary) has them added
// after the cells' by a row gather over each vertex's boundary faces (boundary_faces.hpp), in
// the host's order, whatever the way of summing; the first such assemble() builds the faces.
//
// A gather's first add makes -0.0 + x, which is x bit for bit (also for x = -0.0, which a sum
// started at +0.0 would turn into +0.0): every stored non-zero is set to -0.0 before the sums.

#include <Kokkos_Core.hpp>
#include <limits>
#include <string>
#include <type_traits>

#include "../entries/components.hpp"
#include "../error.hpp"
#include "../impl/device_scan_sort.hpp"
#include "../impl/row_slots.hpp"
#include "../impl/slot_writes.hpp"
#include "../layouts/convert.hpp"
#include "../layouts/device_build.hpp"
#include "../layouts/layout_tags.hpp"
#include "../layouts/refresh.hpp"
#include "../layouts/sparse_matrix.hpp"
#include "boundary_faces.hpp"
#include "cell_colouring.hpp"
#include "device_tet_mesh.hpp"
#include "lagrange_nodes.hpp"
#include "p1_elements.hpp"
#include "problems.hpp"

namespace compound_sparse {

/// How a LagrangeAssembly sums the element matrices (lagrange_assembly.hpp's table).
enum class Summation { per_entry, per_node, per_node_inline, atomic_scatter, coloured_scatter };

/// "per_entry", "per_node", "per_node_inline", "atomic_scatter", "coloured_scatter".
inline const char* summation_name(Summation how) {
  switch (how) {
    case Summation::per_entry:
      return "per_entry";
    case Summation::per_node:
      return "per_node";
    case Summation::per_node_inline:
      return "per_node_inline";
    case Summation::atomic_scatter:
      return "atomic_scatter";
    case Summation::coloured_scatter:
      return "coloured_scatter";
  }
  return "?";
}

namespace impl {

/// The geometry of cell t of the mesh.
template <class Points, class Cells>
KOKKOS_INLINE_FUNCTION P1Tet cell_geometry(const Points& points, const Cells& cells, int t) {
  double x[4][3];
  for (int a = 0; a < 4; ++a)
    for (int k = 0; k < 3; ++k) x[a][k] = points(cells(t, a), k);
  P1Tet e;
  p1_tet(x, e);
  return e;
}

/// The geometry as a way of summing stores it: whole, or without corner 0's gradient.
KOKKOS_INLINE_FUNCTION void store_geometry(const P1Tet& e, P1Tet& stored) {
  stored = e;
}
KOKKOS_INLINE_FUNCTION void store_geometry(const P1Tet& e, P1StoredTet& stored) {
  stored = p1_stored(e);
}

/// geometry(t) for every cell.
template <class Points, class Cells, class Geometry>
struct ComputeGeometry {
  Points points;
  Cells cells;
  Geometry geometry;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const { store_geometry(cell_geometry(points, cells, t), geometry(t)); }
};

/// The k of the slot of `column` among a layout row's slots (its columns increase with k).
template <class Outer, class Matrix>
KOKKOS_INLINE_FUNCTION int slot_position(const Matrix& m, const RowSlots& slots, int row, int column) {
  const int base = column_base<Outer>(m.column_bases, row);
  return partition_point(0, slots.length, [&](int k) {
    return static_cast<int>(m.col_indices(slots.first + k * slots.step)) + base < column;
  });
}

/// A slot's entries: its cells' element entries (a, b) as n^2 t + n a + b for n nodes per cell,
/// the order of the problem's entry(geometry, t, a, b).
template <int nodes_per_cell>
KOKKOS_INLINE_FUNCTION int element_entry_id(int t, int a, int b) {
  return nodes_per_cell * (nodes_per_cell * t + a) + b;
}

/// The per-entry map, non-zero p's part: first(p + 1) = how many element entries its slot sums
/// (fill false; a scan then makes these the starts), or their ids in cell order from
/// list(first(p)) (fill true). A thread per
/// non-zero walks its row's cells and keeps those that have its column: the threads of one row
/// read the same cells, which the cache serves once, where a thread per row, searching the row
/// for each of its cells' nodes, left most of the device idle on a few hundred thousand rows
/// and took several times as long.
template <class Nodes, class Pattern, class Index>
struct SlotEntries {
  Nodes nodes;
  Pattern pattern;
  Index first;
  Index list;
  bool fill;
  KOKKOS_INLINE_FUNCTION void operator()(int p) const {
    const int v = row_of_entry(pattern.row_map, pattern.num_rows, p);
    const int column = pattern.entries(p);
    int at = fill ? first(p) : 0;
    nodes.for_each_cell(v, [&](int t, int a) {
      const int b = nodes.place(t, column);
      if (b < 0) return;
      if (fill) list(at) = element_entry_id<Nodes::per_cell>(t, a, b);
      ++at;
    });
    if (!fill) first(p + 1) = at;
  }
};

/// Non-zero p (source position for impl/slot_writes.hpp): the sum of its element entries, first
/// to last.
template <int nodes_per_cell, class Problem, class Geometry, class Index>
struct SummedElementEntries {
  using entry_type = typename Problem::entry_type;
  Problem problem;
  Geometry geometry;
  Index first;
  Index list;
  KOKKOS_INLINE_FUNCTION entry_type entry(std::size_t p) const {
    using traits = component_traits<entry_type>;
    const int begin = first(p), end = first(p + 1);
    entry_type sum = element_entry(list(begin));  // a non-zero has one entry at least
    for (int i = begin + 1; i < end; ++i) {
      const entry_type e = element_entry(list(i));
      for (int c = 0; c < traits::size; ++c) traits::get(sum, c) += traits::get(e, c);
    }
    return sum;
  }
  KOKKOS_INLINE_FUNCTION entry_type element_entry(int id) const {
    constexpr int n = nodes_per_cell;
    const int t = id / (n * n);
    return problem.entry(geometry(t), t, (id / n) % n, id % n);
  }
};

/// Every stored non-zero of the matrix's rows set to `value` in every component (-0.0 before
/// sums, header comment).
template <class Outer, class Matrix>
struct FillRowSlots {
  Matrix m;
  typename Matrix::scalar_type value;
  KOKKOS_INLINE_FUNCTION void operator()(int v) const {
    const RowSlots s = row_slots<Outer>(m.offsets, m.row_lengths, m.ell_stride, v);
    for (int k = 0; k < s.length; ++k)
      for (int c = 0; c < Matrix::components; ++c) m.values(s.first + k * s.step, c) = value;
  }
};

/// Adds e into slot `slot`, atomically or not.
template <bool atomic, class Values, class Entry>
KOKKOS_INLINE_FUNCTION void add_into_slot(const Values& values, int slot, const Entry& e) {
  using traits = component_traits<Entry>;
  for (int c = 0; c < traits::size; ++c) {
    if constexpr (atomic)
      Kokkos::atomic_add(&values(slot, c), traits::get(e, c));
    else
      values(slot, c) += traits::get(e, c);
  }
}

/// Non-zero p of the rows' order gathered (a thread per non-zero): the entries (a, b) of its row
/// node v's cells that have its column, for v's place a and the column's b, summed from -0.0
/// in increasing cell order from each cell's stored geometry and stored into its slot once.
/// P2's per_node uses it: a P2 vertex row sums 10 entries from each of its 20-30 cells, which
/// left a thread per row with a long serial walk beside the edge rows' short ones (assembly of
/// 384K cells about 30% faster this way). Computing the geometry in place once per entry
/// instead of once per row costs more than that gains, so the inline gathers stay by row.
template <class Outer, class Matrix, class Problem, class Nodes, class Geometry, class Offsets>
struct GatherSlot {
  using entry_type = typename Problem::entry_type;
  Matrix m;
  Problem problem;
  Nodes nodes;
  Geometry geometry;    ///< per cell, stored
  Offsets row_offsets;  ///< where each row's non-zeros start in the rows' order (source_offsets)
  KOKKOS_INLINE_FUNCTION void operator()(int p) const {
    using traits = component_traits<entry_type>;
    const int v = row_of_entry(row_offsets, m.num_rows, p);
    const RowSlots s = row_slots<Outer>(m.offsets, m.row_lengths, m.ell_stride, v);
    const int slot = s.first + (p - row_offsets(v)) * s.step;
    const int column = static_cast<int>(m.col_indices(slot)) + column_base<Outer>(m.column_bases, v);
    entry_type sum;
    for (int c = 0; c < traits::size; ++c) traits::get(sum, c) = -0.0;
    nodes.for_each_cell(v, [&](int t, int a) {
      const int b = nodes.place(t, column);
      if (b < 0) return;
      const entry_type term = problem.entry(p1_loaded(geometry(t)), t, a, b);
      for (int c = 0; c < traits::size; ++c) traits::get(sum, c) += traits::get(term, c);
    });
    for (int c = 0; c < traits::size; ++c) m.values(slot, c) = traits::get(sum, c);
  }
};

/// Row v gathered: node v's cells in increasing order, each one's entries (a, b) for v's place
/// a added into the slots of the cell's nodes b. The geometry is read from `geometry`
/// (stored_geometry) or computed from the mesh. Every gather but P2's per_node uses it: a thread
/// per non-zero (GatherSlot) reads or computes each cell's geometry once per entry instead of
/// once per row, and assembled a P1 box mesh's 1.7M cells 10-30% slower, P2 inline 6% slower.
template <class Outer, class Matrix, class Problem, class Points, class Nodes, class Geometry>
struct GatherRow {
  Matrix m;
  Problem problem;
  Points points;
  Nodes nodes;
  Geometry geometry;  ///< per cell; unused when computed in place
  bool stored_geometry;
  KOKKOS_INLINE_FUNCTION void operator()(int v) const {
    const RowSlots s = row_slots<Outer>(m.offsets, m.row_lengths, m.ell_stride, v);
    nodes.for_each_cell(v, [&](int t, int a) {
      const P1Tet e = stored_geometry ? p1_loaded(geometry(t)) : cell_geometry(points, nodes.cells, t);
      for (int b = 0; b < Nodes::per_cell; ++b) {
        const int k = slot_position<Outer>(m, s, v, nodes.node(t, b));
        add_into_slot<false>(m.values, s.first + k * s.step, problem.entry(e, t, a, b));
      }
    });
  }
};

/// Row v's boundary terms, added after its cells': v's boundary faces in increasing order, each
/// one's entries (a, b) for v's corner a added into the slots of the face's corners b (the order
/// zoo's csr_from_coo adds them in, after every cell's).
template <class Outer, class Matrix, class Problem, class Points, class Boundary>
struct GatherBoundaryRow {
  Matrix m;
  Problem problem;
  Points points;
  Boundary boundary;
  KOKKOS_INLINE_FUNCTION void operator()(int v) const {
    const RowSlots s = row_slots<Outer>(m.offsets, m.row_lengths, m.ell_stride, v);
    for (int j = boundary.vertex_offsets(v); j < boundary.vertex_offsets(v + 1); ++j) {
      const int f = boundary.vertex_faces(j);
      double x[3][3];
      int a = 0;
      for (int c = 0; c < 3; ++c) {
        const int w = boundary.corners(f, c);
        if (w == v) a = c;
        for (int k = 0; k < 3; ++k) x[c][k] = points(w, k);
      }
      const double area = p1_triangle_area(x);
      for (int b = 0; b < 3; ++b) {
        const int k = slot_position<Outer>(m, s, v, boundary.corners(f, b));
        add_into_slot<false>(m.values, s.first + k * s.step, problem.boundary_entry(area, a, b));
      }
    }
  }
};

/// Cell list(i) scattered: its element entries added into their slots, atomically or (a
/// colour's cells, which share no vertex and so no node) not.
template <bool atomic, class Outer, class Matrix, class Problem, class Points, class Nodes, class List>
struct ScatterCell {
  Matrix m;
  Problem problem;
  Points points;
  Nodes nodes;
  List list;  ///< cell indices; empty: cell i
  int first;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const int t = list.extent(0) > 0 ? list(first + i) : first + i;
    const P1Tet e = cell_geometry(points, nodes.cells, t);
    for (int a = 0; a < Nodes::per_cell; ++a) {
      const int v = nodes.node(t, a);
      const RowSlots s = row_slots<Outer>(m.offsets, m.row_lengths, m.ell_stride, v);
      for (int b = 0; b < Nodes::per_cell; ++b) {
        const int k = slot_position<Outer>(m, s, v, nodes.node(t, b));
        add_into_slot<atomic>(m.values, s.first + k * s.step, problem.entry(e, t, a, b));
      }
    }
  }
};

/// Homogeneous Dirichlet conditions on row v's slots: a slot of a fixed row or column becomes
/// zero, a fixed row's diagonal `diagonal`.
template <class Outer, class Matrix, class Fixed, class Entry>
struct DirichletRow {
  Matrix m;
  Fixed fixed;
  Entry diagonal;
  KOKKOS_INLINE_FUNCTION void operator()(int v) const {
    using traits = component_traits<Entry>;
    const RowSlots s = row_slots<Outer>(m.offsets, m.row_lengths, m.ell_stride, v);
    const int base = column_base<Outer>(m.column_bases, v);
    for (int k = 0; k < s.length; ++k) {
      const int slot = s.first + k * s.step;
      const int column = static_cast<int>(m.col_indices(slot)) + base;
      if (!fixed(v) && !fixed(column)) continue;
      for (int c = 0; c < traits::size; ++c) m.values(slot, c) = column == v ? traits::get(diagonal, c) : 0;
    }
  }
};

/// The first row whose slots do not hold the pattern's row (Kokkos::Min; num_rows if none).
template <class Outer, class Matrix, class Pattern>
struct FirstRowNotInPattern {
  Matrix m;
  Pattern pattern;
  KOKKOS_INLINE_FUNCTION void operator()(int v, int& first) const {
    const RowSlots s = row_slots<Outer>(m.offsets, m.row_lengths, m.ell_stride, v);
    const int begin = pattern.row_map(v);
    bool same = s.length == pattern.row_map(v + 1) - begin;
    const int base = column_base<Outer>(m.column_bases, v);
    for (int k = 0; same && k < s.length; ++k)
      same = static_cast<int>(m.col_indices(s.first + k * s.step)) + base == pattern.entries(begin + k);
    if (!same && v < first) first = v;
  }
};

/// A problem's element order: its `order`, 1 where it declares none.
template <class Problem, class = void>
struct problem_order : std::integral_constant<int, 1> {};
template <class Problem>
struct problem_order<Problem, std::void_t<decltype(Problem::order)>> : std::integral_constant<int, Problem::order> {};

}  // namespace impl

/// Assembly of a tetrahedral mesh's Lagrange elements of order `Order` (1 or 2) into a matrix of
/// layout <Outer, Inner> (header comment).
template <int Order, class Entry, class Outer, class Inner,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class LagrangeAssembly {
 public:
  using matrix_type = SparseMatrix<Entry, Outer, Inner, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;
  using nodes_type = LagrangeNodes<Order, MemorySpace>;
  static constexpr int nodes_per_cell = nodes_type::per_cell;

  /// The pattern of `mesh` (checked by make_device_tet_mesh) in the layout, values zero, and
  /// what `how` sums with. Throws BudgetExceeded as to_device does when the layout cannot hold
  /// the pattern or exceeds `budget`, InvalidInput for a mesh whose entries 32-bit indices do
  /// not hold.
  LagrangeAssembly(const DeviceTetMesh<MemorySpace>& mesh, Summation how, MemoryBudget budget = {})
      : mesh_(mesh), how_(how) {
    {
      auto topology = checked_topology(mesh, how);
      // The gathers keep the vertex-to-cell relation and the atomic scatter none, so neither
      // holds it beside the pattern while the layout is written: the gathers rebuild it after
      // (a count, a scan and a fill, the same bits), which keeps their peak at the matrix plus
      // the larger of the two rather than both.
      const bool drop_relation =
          how == Summation::per_node || how == Summation::per_node_inline || how == Summation::atomic_scatter;
      if (drop_relation) topology.nodes.incident = {};
      {
        const auto& pattern = topology.pattern;
        const impl::ZeroValues<Entry, MemorySpace> zeros;
        if constexpr (std::is_same<Outer, Csr>::value)
          matrix_ =
              impl::csr_matrix_from_csr_views<Inner>(pattern.num_cols, pattern.row_map, pattern.entries, zeros, budget);
        else
          matrix_ = impl::padded_matrix_from_csr_views<Outer, Inner>(pattern.num_cols, pattern.row_map, pattern.entries,
                                                                     zeros, budget);
      }
      if (drop_relation) {
        topology.pattern = {};
        if (how != Summation::atomic_scatter) topology.nodes.incident = vertex_cells(mesh);
      }
      prepare(topology);
    }
    // After the topology's pattern (and, for per_entry, its node-to-cell relation) is freed,
    // so that the geometry, the largest thing a per-entry build keeps, is not held beside them.
    allocate_geometry();
  }

  /// The same into `matrix`, a matrix of this layout that holds the mesh's pattern of this order
  /// already (the one a TunedSpmv chose for it: tuned_assembly.hpp). assemble() writes its
  /// values, which every copy of `matrix` shares. InvalidInput, naming the first row that
  /// differs, if its pattern is not the mesh's.
  LagrangeAssembly(const DeviceTetMesh<MemorySpace>& mesh, Summation how, const matrix_type& matrix)
      : LagrangeAssembly(mesh, checked_topology(mesh, how), how, matrix) {}

  /// The same from the mesh's nodes and pattern of this order (lagrange_topology<Order>(mesh)),
  /// when the caller built them already to choose the layout from the pattern
  /// (tuned_assembly.hpp): the vertex-to-cell relation and the pattern are then built once.
  /// InvalidInput if `topology` is not of `mesh`'s cells.
  LagrangeAssembly(const DeviceTetMesh<MemorySpace>& mesh, const LagrangeTopology<Order, MemorySpace>& topology,
                   Summation how, const matrix_type& matrix)
      : mesh_(mesh), how_(how) {
    require_valid(mesh, how);
    COMPOUND_SPARSE_REQUIRE(
        topology.nodes.cells.data() == mesh.cells.data() &&
            topology.nodes.incident.offsets.extent(0) == static_cast<std::size_t>(mesh.num_points) + 1,
        "P" << Order << " assembly: the topology given is not of this mesh (lagrange_topology<" << Order
            << ">(mesh) makes it)");
    const auto& pattern = topology.pattern;
    COMPOUND_SPARSE_REQUIRE(matrix.num_rows == pattern.num_rows && matrix.num_cols == pattern.num_cols,
                            "P" << Order << " assembly: a " << matrix.num_rows << " x " << matrix.num_cols
                                << " matrix for a mesh of " << pattern.num_rows << " nodes");
    int first_different = matrix.num_rows;
    Kokkos::parallel_reduce("compound_sparse::fem_same_pattern",
                            Kokkos::RangePolicy<execution_space>(0, matrix.num_rows),
                            impl::FirstRowNotInPattern<Outer, matrix_type, DevicePattern<MemorySpace>>{matrix, pattern},
                            Kokkos::Min<int>(first_different));
    COMPOUND_SPARSE_REQUIRE(matrix.num_rows == 0 || first_different >= matrix.num_rows,
                            "P" << Order << " assembly: row " << first_different
                                << " of the matrix differs from the mesh's P" << Order << " pattern");
    matrix_ = matrix;
    prepare(topology);
    allocate_geometry();
  }

  const matrix_type& matrix() const { return matrix_; }
  Summation summation() const { return how_; }
  /// Colours of a coloured scatter (0 for the other ways).
  int num_colours() const { return how_ == Summation::coloured_scatter ? colouring_.num_colours() : 0; }
  /// Device bytes kept besides the matrix: the geometry, the map, the node-to-cell relation or
  /// the colouring, and the boundary faces once a problem with boundary terms built them.
  std::size_t extra_bytes() const {
    return entry_geometry_.span() * sizeof(P1Tet) + geometry_.span() * sizeof(P1StoredTet) + nodes_.bytes() +
           (first_.span() + list_.span() + colouring_.cells.span() + boundary_.corners.span() +
            boundary_.vertex_offsets.span() + boundary_.vertex_faces.span()) *
               sizeof(int);
  }

  /// Sums the element matrices of `problem` (problems.hpp; its entry_type is Entry, its order
  /// this assembly's) into the matrix, replacing every stored value; the padding stays zero.
  /// Throws what problem.check throws before anything is written.
  template <class Problem>
  void assemble(const Problem& problem) const {
    static_assert(std::is_same<typename Problem::entry_type, Entry>::value,
                  "LagrangeAssembly::assemble: the problem's entry_type must be the matrix's entry type");
    static_assert(impl::problem_order<Problem>::value == Order,
                  "LagrangeAssembly::assemble: the problem's element order must be the assembly's");
    static_assert(Order == 1 || !has_boundary_terms<Problem>::value,
                  "LagrangeAssembly::assemble: boundary terms are assembled for P1 problems only");
    problem.check(mesh_.num_cells());
    const int num_cells = mesh_.num_cells();
    const Kokkos::RangePolicy<execution_space> cells(0, num_cells), rows(0, matrix_.num_rows);
    using points_view = decltype(mesh_.points);
    using geometry_view = Kokkos::View<P1StoredTet*, MemorySpace>;
    using entry_geometry_view = Kokkos::View<P1Tet*, MemorySpace>;
    using index_view = Kokkos::View<int*, MemorySpace>;
    compute_geometry(geometry_);
    compute_geometry(entry_geometry_);
    if (how_ == Summation::per_entry) {
      const impl::SummedElementEntries<nodes_per_cell, Problem, entry_geometry_view, index_view> sums{
          problem, entry_geometry_, first_, list_};
      if constexpr (std::is_same<Outer, Csr>::value)
        impl::copy_csr_values<execution_space>("compound_sparse::fem_per_entry", matrix_.values, sums,
                                               matrix_.num_entries);
      else
        impl::write_slot_values("compound_sparse::fem_per_entry", matrix_, impl::source_offsets(matrix_), sums);
    } else if (Order == 2 && how_ == Summation::per_node) {
      Kokkos::parallel_for("compound_sparse::fem_gather", Kokkos::RangePolicy<execution_space>(0, matrix_.num_entries),
                           impl::GatherSlot<Outer, matrix_type, Problem, nodes_type, geometry_view, index_view>{
                               matrix_, problem, nodes_, geometry_, impl::source_offsets(matrix_)});
    } else {
      Kokkos::parallel_for("compound_sparse::fem_negative_zeros", rows,
                           impl::FillRowSlots<Outer, matrix_type>{matrix_, -0.0});
    }
    if ((Order == 1 && how_ == Summation::per_node) || how_ == Summation::per_node_inline) {
      Kokkos::parallel_for("compound_sparse::fem_gather", rows,
                           impl::GatherRow<Outer, matrix_type, Problem, points_view, nodes_type, geometry_view>{
                               matrix_, problem, mesh_.points, nodes_, geometry_, how_ == Summation::per_node});
    } else if (how_ == Summation::atomic_scatter) {
      Kokkos::parallel_for("compound_sparse::fem_atomic_scatter", cells,
                           impl::ScatterCell<true, Outer, matrix_type, Problem, points_view, nodes_type, index_view>{
                               matrix_, problem, mesh_.points, nodes_, {}, 0});
    } else if (how_ == Summation::coloured_scatter) {
      for (int c = 0; c < colouring_.num_colours(); ++c) {
        const int first = colouring_.offsets[c], count = colouring_.offsets[c + 1] - first;
        Kokkos::parallel_for("compound_sparse::fem_coloured_scatter", Kokkos::RangePolicy<execution_space>(0, count),
                             impl::ScatterCell<false, Outer, matrix_type, Problem, points_view, nodes_type, index_view>{
                                 matrix_, problem, mesh_.points, nodes_, colouring_.cells, first});
      }
    }
    if constexpr (has_boundary_terms<Problem>::value) {
      if (!boundary_built_) {  // the first problem with boundary terms builds the boundary, once
        boundary_ =
            boundary_faces(mesh_, nodes_.incident.offsets.extent(0) > 0 ? nodes_.incident : vertex_cells(mesh_));
        boundary_built_ = true;
      }
      Kokkos::parallel_for(
          "compound_sparse::fem_boundary", rows,
          impl::GatherBoundaryRow<Outer, matrix_type, Problem, points_view, BoundaryFaces<MemorySpace>>{
              matrix_, problem, mesh_.points, boundary_});
    }
    Kokkos::fence();
  }

  /// Homogeneous Dirichlet conditions, the symmetric way (zoo::apply_dirichlet): the stored
  /// entries in the rows and columns of the nodes with fixed(node) != 0 become zero, and those
  /// nodes' diagonal entries `diagonal` (the identity block for elasticity). The pattern is
  /// kept. `fixed` has one flag per node (per row: P1's points, P2's points then edges), on
  /// MemorySpace; InvalidInput otherwise.
  template <class Fixed>
  void apply_dirichlet(const Fixed& fixed, const Entry& diagonal) const {
    static_assert(Fixed::rank == 1 && std::is_same<typename Fixed::memory_space, MemorySpace>::value,
                  "apply_dirichlet: one flag per node, a rank-1 View on the assembly's memory space");
    COMPOUND_SPARSE_REQUIRE(fixed.extent(0) == static_cast<std::size_t>(matrix_.num_rows),
                            "apply_dirichlet: " << fixed.extent(0) << " flags for " << matrix_.num_rows << " nodes");
    Kokkos::parallel_for("compound_sparse::fem_dirichlet", Kokkos::RangePolicy<execution_space>(0, matrix_.num_rows),
                         impl::DirichletRow<Outer, matrix_type, Fixed, Entry>{matrix_, fixed, diagonal});
    Kokkos::fence();
  }

 private:
  /// Before any work: a way of summing the enum has, and cells that 32-bit element indices hold.
  static void require_valid(const DeviceTetMesh<MemorySpace>& mesh, Summation how) {
    COMPOUND_SPARSE_REQUIRE(std::string(summation_name(how)) != "?", "P" << Order << " assembly: summation "
                                                                         << static_cast<int>(how)
                                                                         << " is none of Summation's values");
    constexpr int per_cell_entries = nodes_per_cell * nodes_per_cell;
    COMPOUND_SPARSE_REQUIRE(mesh.num_cells() <= std::numeric_limits<int>::max() / per_cell_entries,
                            "P" << Order << " assembly: " << mesh.num_cells() << " cells; at most "
                                << std::numeric_limits<int>::max() / per_cell_entries << " fit its element indices");
  }

  /// The topology, once `how` and the mesh's size are known to be usable.
  static LagrangeTopology<Order, MemorySpace> checked_topology(const DeviceTetMesh<MemorySpace>& mesh, Summation how) {
    require_valid(mesh, how);
    return lagrange_topology<Order>(mesh);
  }

  /// What the way of summing keeps besides the matrix.
  void prepare(const LagrangeTopology<Order, MemorySpace>& topology) {
    if (how_ == Summation::per_entry) build_entry_map(topology);
    if (how_ == Summation::per_node || how_ == Summation::per_node_inline || how_ == Summation::atomic_scatter ||
        how_ == Summation::coloured_scatter) {
      nodes_ = topology.nodes;
      // The scatters need a cell's nodes only: P1's are the cells, P2's also the cells' edges.
      if (how_ == Summation::atomic_scatter || how_ == Summation::coloured_scatter) {
        if (how_ == Summation::coloured_scatter) colouring_ = colour_cells(mesh_, topology.nodes.incident);
        nodes_.incident = {};
        if constexpr (Order == 2) {
          nodes_.edges.offsets = {};
          nodes_.edges.vertices = {};
        }
      }
    } else {
      nodes_.cells = mesh_.cells;
    }
    Kokkos::fence();
  }

  /// Every cell's geometry into `geometry`, if this way of summing stores it there.
  template <class Geometry>
  void compute_geometry(const Geometry& geometry) const {
    if (geometry.extent(0) == 0) return;
    Kokkos::parallel_for("compound_sparse::fem_geometry", Kokkos::RangePolicy<execution_space>(0, mesh_.num_cells()),
                         impl::ComputeGeometry<decltype(mesh_.points), decltype(mesh_.cells), Geometry>{
                             mesh_.points, mesh_.cells, geometry});
  }

  /// The per-cell geometry of the ways that store it (assemble() computes it). A per-entry
  /// sum reads a few values of its cell's geometry per element entry, in place, so it keeps the
  /// whole P1Tet; the row gather reads each cell's once into registers, so it keeps the smaller
  /// P1StoredTet and recomputes the rest.
  void allocate_geometry() {
    if (how_ == Summation::per_entry)
      entry_geometry_ = Kokkos::View<P1Tet*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::cell_geometry"), mesh_.num_cells());
    if (how_ == Summation::per_node)
      geometry_ = Kokkos::View<P1StoredTet*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::cell_geometry"), mesh_.num_cells());
  }

  /// The per-entry map: each non-zero's element entries, in cell order (impl::SlotEntries).
  void build_entry_map(const LagrangeTopology<Order, MemorySpace>& topology) {
    using index_view = Kokkos::View<int*, MemorySpace>;
    const auto& pattern = topology.pattern;
    const int nnz = static_cast<int>(pattern.entries.extent(0));
    const Kokkos::RangePolicy<execution_space> nonzeros(0, nnz);
    first_ = index_view("compound_sparse::fem_entry_offsets", static_cast<std::size_t>(nnz) + 1);
    using map_kernel = impl::SlotEntries<nodes_type, DevicePattern<MemorySpace>, index_view>;
    Kokkos::parallel_for("compound_sparse::fem_count_entries", nonzeros,
                         map_kernel{topology.nodes, pattern, first_, {}, false});
    impl::exclusive_sum_in_place<execution_space>(first_, nnz);
    list_ = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::fem_entry_list"),
                       static_cast<std::size_t>(nodes_per_cell * nodes_per_cell) * mesh_.num_cells());
    Kokkos::parallel_for("compound_sparse::fem_fill_entries", nonzeros,
                         map_kernel{topology.nodes, pattern, first_, list_, true});
  }

  DeviceTetMesh<MemorySpace> mesh_;
  Summation how_;
  matrix_type matrix_;
  Kokkos::View<P1Tet*, MemorySpace> entry_geometry_;  ///< per cell: per_entry
  Kokkos::View<P1StoredTet*, MemorySpace> geometry_;  ///< per cell: per_node
  Kokkos::View<int*, MemorySpace> first_;             ///< per_entry: per non-zero, into list_; nnz + 1
  Kokkos::View<int*, MemorySpace> list_;              ///< per_entry: element entry ids, by non-zero
  nodes_type nodes_;                                  ///< the cells always; the node-to-cell relation for the gathers
  CellColouring<MemorySpace> colouring_;              ///< coloured_scatter
  mutable BoundaryFaces<MemorySpace> boundary_;       ///< built by the first assemble of a problem with boundary terms
  mutable bool boundary_built_ = false;
};

/// P1 (linear) elements: the matrix's rows are the mesh's points.
template <class Entry, class Outer, class Inner, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
using P1Assembly = LagrangeAssembly<1, Entry, Outer, Inner, MemorySpace>;

/// P2 (quadratic) elements: the matrix's rows are the mesh's points, then its edges.
template <class Entry, class Outer, class Inner, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
using P2Assembly = LagrangeAssembly<2, Entry, Outer, Inner, MemorySpace>;

}  // namespace compound_sparse
