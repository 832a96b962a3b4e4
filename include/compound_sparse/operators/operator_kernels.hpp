#pragma once
// The portable kernels of a constant operator (constant_operator.hpp): C <- alpha A B + beta C on
// panels (operator_panel.hpp), on every Kokkos backend. They read A's expansion, alpha folded
// in and zeros dropped, from team scratch (shared memory on a GPU) when it fits and from
// global memory otherwise, and do not read C when beta is zero. Three shapes, after GiMMiK's:
//
//   column_stream  one thread per vector, every row of A (GiMMiK's cstream);
//   row_split      a vector's rows of A split among 4 threads, for operators with many rows
//                  or panels too narrow to fill the device (GiMMiK's m-split);
//   block_stream   the team first stages its vectors' rows of B in scratch with coalesced
//                  loads, then computes from there, for dense operators that read each value
//                  of B many times (GiMMiK's bstream).
//
// Which is fastest depends on the operator and the device; operator_choice.hpp times them.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "../error.hpp"
#include "../impl/team_launch.hpp"  // is_gpu_space
#include "constant_operator.hpp"
#include "operator_panel.hpp"

namespace compound_sparse {

enum class OperatorShape { ColumnStream, RowSplit, BlockStream };

inline constexpr std::array<OperatorShape, 3> operator_shapes = {OperatorShape::ColumnStream, OperatorShape::RowSplit,
                                                                 OperatorShape::BlockStream};

inline std::string to_string(OperatorShape shape) {
  switch (shape) {
    case OperatorShape::ColumnStream:
      return "column_stream";
    case OperatorShape::RowSplit:
      return "row_split";
    case OperatorShape::BlockStream:
      return "block_stream";
  }
  return "unknown";
}

/// The shape named `name` (to_string's names); InvalidInput naming the known ones otherwise.
inline OperatorShape parse_operator_shape(const std::string& name) {
  for (const auto shape : operator_shapes)
    if (to_string(shape) == name) return shape;
  COMPOUND_SPARSE_REQUIRE(
      false, "unknown operator kernel shape '" << name << "' (known: column_stream, row_split, block_stream)");
  return OperatorShape::ColumnStream;
}

namespace impl {

/// Team scratch a kernel may take: under the 48 KiB a CUDA block gets without opting in.
inline constexpr std::size_t operator_scratch_limit = 40 * 1024;

/// How one launch covers the panel: `width` vectors a team, `groups` threads a vector.
struct OperatorLaunchShape {
  int team_size = 1;
  int width = 1;
  int groups = 1;
  bool stage_operator = false;  ///< A's expansion in scratch
  bool stage_panel = false;     ///< the team's columns of B in scratch
};

template <class Scalar, int Components, bool ReadC, class ExecutionSpace>
struct OperatorFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using memory_space = typename ExecutionSpace::memory_space;
  using scratch_space = typename ExecutionSpace::scratch_memory_space;
  template <class T>
  using scratch_view = Kokkos::View<T*, scratch_space, Kokkos::MemoryUnmanaged>;

  Kokkos::View<const int*, memory_space> offsets;
  Kokkos::View<const int*, memory_space> cols;
  Kokkos::View<const Scalar*, memory_space> values;
  Kokkos::Array<Scalar, Components * Components> beta;  ///< row-major: how beta scales a vector
  Kokkos::View<const Scalar**, Kokkos::LayoutRight, memory_space> b;
  Kokkos::View<Scalar**, Kokkos::LayoutRight, memory_space> c;
  int entry_rows = 0;
  int panel_rows = 0;  ///< rows of B: the expansion's columns
  std::int64_t n = 0;
  OperatorLaunchShape shape;

  /// Scratch bytes of one team.
  std::size_t scratch_bytes() const {
    std::size_t bytes = 0;
    if (shape.stage_operator)
      bytes += scratch_view<int>::shmem_size(offsets.extent(0)) + scratch_view<int>::shmem_size(cols.extent(0)) +
               scratch_view<Scalar>::shmem_size(values.extent(0));
    if (shape.stage_panel)
      bytes += scratch_view<Scalar>::shmem_size(static_cast<std::size_t>(panel_rows) * shape.width);
    return bytes;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int* a_offsets = offsets.data();
    const int* a_cols = cols.data();
    const Scalar* a_values = values.data();
    if (shape.stage_operator) {
      scratch_view<int> s_offsets(team.team_scratch(0), offsets.extent(0));
      scratch_view<int> s_cols(team.team_scratch(0), cols.extent(0));
      scratch_view<Scalar> s_values(team.team_scratch(0), values.extent(0));
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(offsets.extent(0))),
                           [&](int k) { s_offsets(k) = offsets(k); });
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(cols.extent(0))), [&](int k) {
        s_cols(k) = cols(k);
        s_values(k) = values(k);
      });
      a_offsets = s_offsets.data();
      a_cols = s_cols.data();
      a_values = s_values.data();
    }
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * shape.width;
    const int count = static_cast<int>(n - first < shape.width ? n - first : shape.width);
    // Column `l` of the team's vectors, row `r` of B: staged or straight from the panel.
    const Scalar* tile = nullptr;
    if (shape.stage_panel) {
      scratch_view<Scalar> s_tile(team.team_scratch(0), static_cast<std::size_t>(panel_rows) * shape.width);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, panel_rows * count), [&](int k) {
        const int r = k / count, l = k % count;  // consecutive threads, consecutive vectors
        s_tile(static_cast<std::size_t>(r) * shape.width + l) = b(r, first + l);
      });
      tile = s_tile.data();
    }
    if (shape.stage_operator || shape.stage_panel) team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count * shape.groups), [&](int k) {
      const int group = k / count, l = k % count;
      const std::int64_t j = first + l;
      for (int i = group; i < entry_rows; i += shape.groups) {
        Scalar acc[Components];
        for (int comp = 0; comp < Components; ++comp) {
          const int r = i * Components + comp;
          Scalar sum = 0;
          for (int e = a_offsets[r]; e < a_offsets[r + 1]; ++e) {
            const Scalar x = tile ? tile[static_cast<std::size_t>(a_cols[e]) * shape.width + l] : b(a_cols[e], j);
            sum += a_values[e] * x;
          }
          acc[comp] = sum;
        }
        if constexpr (ReadC) {
          Scalar old[Components];
          for (int comp = 0; comp < Components; ++comp) old[comp] = c(i * Components + comp, j);
          for (int comp = 0; comp < Components; ++comp)
            for (int q = 0; q < Components; ++q) acc[comp] += beta[comp * Components + q] * old[q];
        }
        for (int comp = 0; comp < Components; ++comp) c(i * Components + comp, j) = acc[comp];
      }
    });
  }
};

}  // namespace impl

/// alpha A (constant_operator.hpp) made ready to apply with one shape on ExecutionSpace: its
/// expansion on the device. Build once per operator, alpha and shape, apply to any panels.
template <class Entry, class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class OperatorKernel {
 public:
  using op_type = ConstantOperator<Entry>;
  using scalar_type = typename op_type::scalar_type;
  using coefficient_type = typename op_type::coefficient_type;
  using memory_space = typename ExecutionSpace::memory_space;
  using panel_type = OperatorPanel<Entry, memory_space>;
  static constexpr int components = op_type::components;

  OperatorKernel(const op_type& op, const coefficient_type& alpha, OperatorShape shape)
      : rows_(op.rows()), cols_(op.cols()), shape_(shape) {
    const auto e = op.expand(alpha);
    nonzeros_ = e.nonzeros();
    offsets_ = to_device<int>("operator_offsets", e.row_offsets);
    cols_view_ = to_device<int>("operator_cols", e.col_indices);
    values_ = to_device<scalar_type>("operator_values", e.values);
    launch_ = launch_shape(shape, e);
  }

  /// Why the shape cannot run this operator, or "" when it can: block_stream stages a team's
  /// columns of B in scratch, which the operator's columns may not leave room for.
  static std::string refusal(const op_type& op, OperatorShape shape) {
    return shape == OperatorShape::BlockStream ? block_refusal(op.cols() * components) : "";
  }

  OperatorShape shape() const { return shape_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  std::int64_t nonzeros() const { return nonzeros_; }  ///< of the expansion

  /// C <- alpha A B + beta C (alpha as built). B holds cols() rows, C rows(), both n vectors;
  /// C must not overlap B. With beta zero C is not read, so it may hold anything.
  void apply(const panel_type& b, const coefficient_type& beta, const panel_type& c) const {
    impl::require_operator_panels<Entry>(b, c, rows_, cols_, "constant operator");
    const std::int64_t n = static_cast<std::int64_t>(b.extent(1));
    if (n == 0) return;
    const bool read_c = !is_zero(beta);
    if (read_c)
      launch<true>(b, beta, c, n);
    else
      launch<false>(b, beta, c, n);
  }

 private:
  template <class T>
  static Kokkos::View<const T*, memory_space> to_device(const std::string& label, const std::vector<T>& host) {
    Kokkos::View<T*, memory_space> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), host.size());
    Kokkos::deep_copy(view,
                      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()));
    return view;
  }

  static constexpr int gpu_team_size = 128;
  static constexpr int row_split_groups = 4;
  static constexpr int host_width = 256;  ///< vectors a host thread takes at a time
  static constexpr int min_block_width() { return impl::is_gpu_space<ExecutionSpace>() ? 32 : 1; }

  impl::OperatorLaunchShape launch_shape(OperatorShape shape, const ExpandedOperator<scalar_type>& e) const {
    impl::OperatorLaunchShape s;
    const bool gpu = impl::is_gpu_space<ExecutionSpace>();
    s.team_size = gpu ? gpu_team_size : 1;
    s.groups = shape == OperatorShape::RowSplit ? row_split_groups : 1;
    s.width = gpu ? gpu_team_size / s.groups : host_width;
    const std::size_t operator_bytes = (e.row_offsets.size() + e.col_indices.size()) * sizeof(int) +
                                       e.values.size() * sizeof(scalar_type) + 3 * 8;  // alignment slack
    s.stage_operator = gpu && operator_bytes <= impl::operator_scratch_limit;
    if (shape == OperatorShape::BlockStream) {
      const std::size_t row_bytes = static_cast<std::size_t>(e.cols) * sizeof(scalar_type);
      const std::size_t free_bytes = impl::operator_scratch_limit - (s.stage_operator ? operator_bytes : 0);
      const std::string why = block_refusal(e.cols);
      COMPOUND_SPARSE_REQUIRE(why.empty(), "constant operator: " << why);
      if (row_bytes * min_block_width() > free_bytes) s.stage_operator = false;  // the panel's tile comes first
      const std::size_t room = (s.stage_operator ? free_bytes : impl::operator_scratch_limit) / row_bytes;
      s.width = static_cast<int>(std::min<std::size_t>(room, gpu ? gpu_team_size : host_width));
      if (gpu) s.width = s.width / 32 * 32;  // whole warps of vectors
      s.stage_panel = true;
    }
    return s;
  }
  static std::string block_refusal(int panel_rows) {
    const std::size_t row_bytes = static_cast<std::size_t>(panel_rows) * sizeof(scalar_type);
    if (row_bytes * min_block_width() <= impl::operator_scratch_limit) return "";
    return "block_stream stages " + std::to_string(min_block_width()) + " vectors of " + std::to_string(panel_rows) +
           " reals, more than the " + std::to_string(impl::operator_scratch_limit) + " bytes of scratch it may take";
  }

  template <bool ReadC>
  void launch(const panel_type& b, const coefficient_type& beta, const panel_type& c, std::int64_t n) const {
    impl::OperatorFunctor<scalar_type, components, ReadC, ExecutionSpace> f;
    f.offsets = offsets_;
    f.cols = cols_view_;
    f.values = values_;
    f.b = b;
    f.c = c;
    f.entry_rows = rows_;
    f.panel_rows = cols_ * components;
    f.n = n;
    f.shape = launch_;
    if constexpr (ReadC) {
      const auto matrix = op_type::coefficient_matrix(beta);
      for (int k = 0; k < components * components; ++k) f.beta[k] = matrix[k];
    }
    const std::int64_t teams = (n + launch_.width - 1) / launch_.width;
    COMPOUND_SPARSE_REQUIRE(teams <= std::numeric_limits<int>::max(),
                            "constant operator: " << n << " vectors need more teams than one launch holds");
    Kokkos::TeamPolicy<ExecutionSpace> policy(static_cast<int>(teams), launch_.team_size);
    const std::size_t scratch = f.scratch_bytes();
    if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for("compound_sparse::constant_operator_" + to_string(shape_), policy, f);
  }

  int rows_ = 0;
  int cols_ = 0;
  OperatorShape shape_ = OperatorShape::ColumnStream;
  std::int64_t nonzeros_ = 0;
  Kokkos::View<const int*, memory_space> offsets_;
  Kokkos::View<const int*, memory_space> cols_view_;
  Kokkos::View<const scalar_type*, memory_space> values_;
  impl::OperatorLaunchShape launch_;
};

}  // namespace compound_sparse
