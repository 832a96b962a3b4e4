// Merge-path staging lab (not part of the library): the library's MergePathFunctor
// (stage 0) against copies whose staging loads `Stage` products and row ends per
// thread before any store to scratch (the compiler cannot tell a store to scratch
// from the matrix or x, so a loop storing each product in turn waits out the column
// and then x per non-zero). Tile shapes 256 x {3..15} items, launch bounds 256 x
// {1,2,4,8}; with and without the fix-up pass (time only); every full product
// checked against the double host reference; every cuSPARSE form the bench times.
#pragma once
#include <compound_sparse.hpp>
#include <cusparse_baseline.hpp>

#include <cstdio>
#include <random>
#include <string>

namespace cs = compound_sparse;
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;

template <class Entry>
using Ref = cs::vector_type_t<typename cs::entry_traits<Entry>::template rebind<double>>;

template <class Entry, int Stage, bool Fused = false, bool Bounded = false>
struct LabMergePath : cs::impl::MergePathFunctor<Entry, cs::Aos, cs::Aos, cs::Aos, Mem> {
  // Fused: no fix-up pass. Every tile that holds part of a row spanning tiles
  // t0..t1 (t = item / tile items, items of row r: r + offsets(r) .. r + offsets(r + 1))
  // counts itself in arrivals(t1) after its writes (fence, barrier, integer atomic); the
  // last of the t1 - t0 + 1 to arrive adds the carries of t0..t1-1 in tile order to y
  // and resets the counter: the same additions in the same order as the fix-up pass.
  Kokkos::View<int*, Mem> arrivals;
  // Bounded: the tile's stride coordinates (every 32nd item, from the matrix's index)
  // are staged too, and a worker searches only between the two around its start
  // (5 steps instead of log2 of the tile).
  static std::size_t scratch_bytes(const cs::impl::MergePathTile& t) {
    return base::scratch_bytes(t) +
           (Bounded ? index_scratch::shmem_size(t.items() / cs::impl::merge_path_index_stride + 1) : 0);
  }
  using base = cs::impl::MergePathFunctor<Entry, cs::Aos, cs::Aos, cs::Aos, Mem>;
  using typename base::member_type;
  using typename base::traits;
  using typename base::vector_type;
  using typename base::vector_scratch;
  using typename base::index_scratch;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    if constexpr (Stage == 0) {
      base::operator()(team);
    } else {
      using cs::impl::smaller;
      const auto& tile = this->tile;
      const auto& state = this->state;
      const int tile_index = team.league_rank();
      const int strides_per_tile = tile.items() / cs::impl::merge_path_index_stride;
      const int first = tile_index * strides_per_tile;
      const int last = static_cast<int>(
          smaller(static_cast<std::int64_t>(first) + strides_per_tile, std::int64_t{this->num_index_strides}));
      const int row0 = state.index_rows(first), k0 = state.index_entries(first);
      const int tile_rows = state.index_rows(last) - row0;
      const int tile_entries = state.index_entries(last) - k0;
      const int tile_items = tile_rows + tile_entries;
      const vector_scratch products(team.team_scratch(0), tile.items());
      const vector_scratch carry_values(team.team_scratch(0), tile.workers);
      const index_scratch row_ends(team.team_scratch(0), tile.items() + 1);
      const index_scratch carry_rows(team.team_scratch(0), tile.workers);
      const int threads = team.team_size(), rank = team.team_rank();
      const index_scratch stride_rows(team.team_scratch(0), Bounded ? strides_per_tile + 1 : 0);
      if constexpr (Bounded)
        for (int s = rank; s <= last - first; s += threads) stride_rows(s) = state.index_rows(first + s) - row0;
      if (rank == 0) state.carry_rows(tile_index) = this->num_rows;
      const int span = tile_entries > tile_rows + 1 ? tile_entries : tile_rows + 1;
      for (int lead = rank; lead < span; lead += Stage * threads) {
        int columns[Stage], ends[Stage];
        Entry a[Stage];
        for (int u = 0; u < Stage; ++u) {
          const int j = lead + u * threads;
          if (j < tile_entries) {
            columns[u] = this->col_indices(k0 + j);
            a[u] = cs::impl::load_value<Entry, cs::Aos>(this->values, k0 + j);
          }
          if (j <= tile_rows) ends[u] = j < tile_rows ? this->offsets(row0 + j + 1) - k0 : tile_entries;
        }
        vector_type xs[Stage];
        for (int u = 0; u < Stage; ++u)
          if (lead + u * threads < tile_entries) xs[u] = cs::impl::load_value<vector_type, cs::Aos>(this->x, columns[u]);
        for (int u = 0; u < Stage; ++u) {
          const int j = lead + u * threads;
          if (j < tile_entries) {
            vector_type p = traits::zero();
            traits::multiply_add(p, a[u], xs[u]);
            products(j) = p;
          }
          if (j <= tile_rows) row_ends(j) = ends[u];
        }
      }
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile.workers), [&](int w) {
        int item = smaller(w * tile.items_per_worker, tile_items);
        const int end = smaller(item + tile.items_per_worker, tile_items);
        int i, e;
        if constexpr (Bounded) {
          const int s0 = item / cs::impl::merge_path_index_stride;
          int lo = stride_rows(s0);
          int hi = s0 + 1 <= last - first ? stride_rows(s0 + 1) : tile_rows;
          if (hi > item) hi = item;
          while (lo < hi) {
            const int pivot = (lo + hi) / 2;
            if (row_ends(pivot) <= item - pivot - 1)
              lo = pivot + 1;
            else
              hi = pivot;
          }
          i = lo;
          e = item - lo;
        } else {
          const auto start = cs::impl::merge_path_search<int>(row_ends, tile_rows, tile_entries, item);
          i = start.row;
          e = start.entry;
        }
        int consumed = 0;
        vector_type sum = traits::zero();
        while (item < end) {
          const int take = smaller(row_ends(i) - e, end - item);
          for (const int stop = e + take; e < stop; ++e) sum = traits::add(sum, products(e));
          item += take;
          consumed += take;
          if (item == end) break;
          this->result.store(this->y, row0 + i, sum);
          sum = traits::zero();
          consumed = 0;
          ++i;
          ++item;
        }
        carry_rows(w) = consumed > 0 ? row0 + i : this->num_rows;
        carry_values(w) = sum;
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile.workers), [&](int w) {
        const int row = carry_rows(w);
        if (row >= this->num_rows || (w > 0 && carry_rows(w - 1) == row)) return;
        const vector_type sum = cs::impl::sum_run<traits, false>(carry_rows, carry_values, w, tile.workers);
        if (row < row0 + tile_rows) {
          this->result.accumulate(this->y, row, sum);
        } else {
          state.carry_rows(tile_index) = row;
          state.carry_values(tile_index) = sum;
        }
      });
      if constexpr (Fused) {
        Kokkos::memory_fence();
        team.team_barrier();
        if (rank == 0) {
          const int items = tile.items();
          const auto arrive = [&](int r) {
            const int t0 = (r + this->offsets(r)) / items, t1 = (r + this->offsets(r + 1)) / items;
            Kokkos::memory_fence();
            if (Kokkos::atomic_fetch_add(&arrivals(t1), 1) != t1 - t0) return;
            Kokkos::memory_fence();
            vector_type sum = state.carry_values(t0);
            for (int t = t0 + 1; t < t1; t += 4) {
              vector_type v[4];
              for (int u = 0; u < 4; ++u) v[u] = t + u < t1 ? state.carry_values(t + u) : traits::zero();
              for (int u = 0; u < 4 && t + u < t1; ++u) sum = traits::add(sum, v[u]);
            }
            this->result.accumulate(this->y, r, sum);
            arrivals(t1) = 0;
          };
          // The row this tile ends that began in an earlier tile.
          if (tile_rows > 0 && this->offsets(row0) < k0) arrive(row0);
          // The row that goes on past this tile.
          const int out = state.carry_rows(tile_index);
          if (out < this->num_rows) arrive(out);
        }
      }
    }
  }
};

template <unsigned T, unsigned B, class Functor>
void launch_pass1(const Exec& exec, Functor f, const cs::impl::MergePathTile& tile) {
  using policy_type = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<T, B>>;
  f.tile = tile;
  const int strides_per_tile = tile.items() / cs::impl::merge_path_index_stride;
  const int tiles = (f.num_index_strides + strides_per_tile - 1) / strides_per_tile;
  Kokkos::parallel_for("lab_pass1",
                       policy_type(exec, tiles, T, 1).set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(tile))),
                       f);
}

template <class Entry, int Stage, unsigned T, unsigned B, bool Bounded = false>
void time_stage(const char* name, const char* precision, const cs::SparseMatrix<Entry, cs::Csr, cs::Aos, Mem>& a,
                const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& x,
                const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& y,
                const std::vector<Ref<Entry>>& ref, double tol, const cs::TimingOptions& timing, double bytes) {
  using functor = LabMergePath<Entry, Stage, false, Bounded>;
  using policy_type = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<T, B>>;
  cs::impl::RowResult<Entry, cs::Aos> result;
  result.alpha = cs::real_value<cs::coefficient_type_t<Entry>>(1.0);
  result.beta = cs::real_value<cs::coefficient_type_t<Entry>>(0.0);
  result.beta_is_zero = true;
  functor f;
  static_cast<typename functor::base&>(f) = cs::impl::merge_path_functor(result, a, x, y);
  Exec exec;
  const auto scratch_max = static_cast<std::size_t>(policy_type::scratch_size_max(0));
  for (int ipw : {3, 5, 7, 9, 11, 15}) {
    const cs::impl::MergePathTile tile{static_cast<int>(T), ipw};
    const std::size_t bytes_needed = functor::scratch_bytes(tile);
    if (bytes_needed > scratch_max ||
        policy_type(exec, 1, 1).set_scratch_size(0, Kokkos::PerTeam(bytes_needed)).team_size_max(
            f, Kokkos::ParallelForTag()) < static_cast<int>(T))
      continue;
    Kokkos::deep_copy(y.data, std::nan(""));
    cs::impl::launch_merge_path<T, B>(exec, f, static_cast<int>(T), tile);
    Kokkos::fence();
    const double err = cs::relative_error(cs::to_host(y), ref);
    const auto full = cs::time_launches<Exec>(
        [&](int) { cs::impl::launch_merge_path<T, B>(exec, f, static_cast<int>(T), tile); }, timing);
    const auto pass1 = cs::time_launches<Exec>([&](int) { launch_pass1<T, B>(exec, f, tile); }, timing);
    std::printf("%-16s %-6s %s %d t%u.b%u ipw %2d %9.2f us %6.2f TB/s pass1 %9.2f us err %.1e %s\n", name,
                precision, Bounded ? "bound" : "stage", Stage, T, B, ipw, full.median_seconds * 1e6, bytes / full.median_seconds * 1e-12,
                pass1.median_seconds * 1e6, err, err <= tol ? "ok" : "WRONG");
    std::fflush(stdout);
  }
}

template <class Entry, unsigned T, unsigned B>
void time_fused(const char* name, const char* precision, const cs::SparseMatrix<Entry, cs::Csr, cs::Aos, Mem>& a,
                const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& x,
                const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& y,
                const std::vector<Ref<Entry>>& ref, double tol, const cs::TimingOptions& timing, double bytes) {
  using functor = LabMergePath<Entry, 1, true>;
  using policy_type = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<T, B>>;
  cs::impl::RowResult<Entry, cs::Aos> result;
  result.alpha = cs::real_value<cs::coefficient_type_t<Entry>>(1.0);
  result.beta = cs::real_value<cs::coefficient_type_t<Entry>>(0.0);
  result.beta_is_zero = true;
  functor f;
  static_cast<typename functor::base&>(f) = cs::impl::merge_path_functor(result, a, x, y);
  f.arrivals = Kokkos::View<int*, Mem>("arrivals", a.merge_path.carry_rows.extent(0));
  Exec exec;
  const auto scratch_max = static_cast<std::size_t>(policy_type::scratch_size_max(0));
  for (int ipw : {3, 5, 7, 9, 11, 15}) {
    const cs::impl::MergePathTile tile{static_cast<int>(T), ipw};
    const std::size_t bytes_needed = functor::scratch_bytes(tile);
    if (bytes_needed > scratch_max ||
        policy_type(exec, 1, 1).set_scratch_size(0, Kokkos::PerTeam(bytes_needed)).team_size_max(
            f, Kokkos::ParallelForTag()) < static_cast<int>(T))
      continue;
    Kokkos::deep_copy(y.data, std::nan(""));
    launch_pass1<T, B>(exec, f, tile);
    Kokkos::fence();
    const double err = cs::relative_error(cs::to_host(y), ref);
    const auto full = cs::time_launches<Exec>([&](int) { launch_pass1<T, B>(exec, f, tile); }, timing);
    Kokkos::fence();
    const double err_after = cs::relative_error(cs::to_host(y), ref);  // after every timed launch
    std::printf("%-16s %-6s fused 1 t%u.b%u ipw %2d %9.2f us %6.2f TB/s one pass err %.1e %.1e %s\n", name,
                precision, T, B, ipw, full.median_seconds * 1e6, bytes / full.median_seconds * 1e-12, err,
                err_after, err <= tol && err_after <= tol ? "ok" : "WRONG");
    std::fflush(stdout);
  }
}

template <class Entry, unsigned T, unsigned B>
void time_bounds(const char* name, const char* precision, const cs::SparseMatrix<Entry, cs::Csr, cs::Aos, Mem>& a,
                 const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& x,
                 const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& y,
                 const std::vector<Ref<Entry>>& ref, double tol, const cs::TimingOptions& timing, double bytes) {
  time_stage<Entry, 0, T, B>(name, precision, a, x, y, ref, tol, timing, bytes);
  time_stage<Entry, 1, T, B>(name, precision, a, x, y, ref, tol, timing, bytes);
  time_stage<Entry, 1, T, B, true>(name, precision, a, x, y, ref, tol, timing, bytes);
}

template <class Entry>
void run_matrix(const char* name, const char* precision, const cs::HostCsr<Entry>& host) {
  using V = cs::vector_type_t<Entry>;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<V> xh(host.num_cols);
  for (auto& v : xh)
    for (int c = 0; c < cs::component_traits<V>::size; ++c) cs::component_traits<V>::get(v, c) = u(rng);
  const auto ref = cs::reference_spmv<double>(cs::real_value<cs::coefficient_type_t<Entry>>(1.0), host, xh,
                                              cs::real_value<cs::coefficient_type_t<Entry>>(0.0),
                                              std::vector<V>(host.num_rows));
  const double tol = sizeof(typename cs::component_traits<Entry>::scalar_type) == 8 ? 1e-12 : 1e-4;
  const auto x = cs::to_device<cs::Aos, Mem>(xh);
  const auto y = cs::to_device<cs::Aos, Mem>(std::vector<V>(host.num_rows), "y");
  const double bytes = cs::compulsory_bytes(host);
  cs::TimingOptions timing;
  timing.mode = cs::TimingMode::Queued;
  timing.batch = 20;
  timing.samples = 11;
  std::printf("== %s %s: %d rows, %zu non-zeros, %.1f MB compulsory\n", name, precision, host.num_rows,
              static_cast<std::size_t>(host.num_entries()), bytes * 1e-6);
  const auto forms = compound_sparse_bench::cusparse_forms(host, xh, ref, timing, 1, tol);
  for (const auto& f : forms)
    std::printf("%-16s %-6s cusparse %-40s %9.2f us %6.2f TB/s %s %s\n", name, precision, f.variant.c_str(),
                f.seconds * 1e6, f.ok ? bytes / f.seconds * 1e-12 : 0.0, f.ok ? "ok" : "FAILED", f.error.c_str());
  const auto a = cs::to_device<cs::Csr, cs::Aos, Mem>(host);
  time_bounds<Entry, 256, 1>(name, precision, a, x, y, ref, tol, timing, bytes);
  time_bounds<Entry, 256, 2>(name, precision, a, x, y, ref, tol, timing, bytes);
  time_bounds<Entry, 256, 4>(name, precision, a, x, y, ref, tol, timing, bytes);
  time_bounds<Entry, 256, 8>(name, precision, a, x, y, ref, tol, timing, bytes);
}

template <class Entry, class Wide>
cs::HostCsr<Entry> narrowed(const cs::HostCsr<Wide>& a) {
  cs::HostCsr<Entry> n;
  n.num_rows = a.num_rows;
  n.num_cols = a.num_cols;
  n.row_offsets = a.row_offsets;
  n.col_indices = a.col_indices;
  n.values.reserve(a.values.size());
  for (const auto& v : a.values) n.values.push_back(cs::convert_components<Entry>(v));
  return n;
}

void run_complex_float(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a);
void run_complex_double(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a);
