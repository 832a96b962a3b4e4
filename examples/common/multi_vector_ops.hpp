#pragma once
// The multivector kernels of the block solvers in the examples (block_krylov.hpp,
// block_eigen.hpp): per-column dot products, Gram matrices, per-column axpby and
// products with a small dense matrix, as plain Kokkos kernels over the k vectors of a
// compound_sparse::MultiVector, so they run wherever the multivectors live.
//
// The reductions over k columns (or k1 x k2 pairs) are one kernel each, an array
// reduction: every thread reads its row of all columns once. A reduction per column
// would read the rows k times and launch k kernels.

#include <Kokkos_Core.hpp>
#include <compound_sparse.hpp>
#include <string>
#include <vector>

namespace examples {

namespace cs = compound_sparse;

/// A new multivector of m's type and rows, zero, with `count` vectors (-1: as many as m).
template <class Multi>
Multi zero_multivector_like(const Multi& m, const std::string& label, int count = -1) {
  Multi z;
  z.data = typename Multi::view_type(label, m.size(), count < 0 ? m.count() : count);
  return z;
}

/// Copies host vectors (vectors[j][i]) into a new multivector of type Multi.
template <class Multi>
Multi make_multivector(const std::vector<std::vector<typename Multi::value_type>>& vectors) {
  return cs::to_device<typename Multi::layout, typename Multi::memory_space>(vectors);
}

namespace detail {

/// Coefficients on the multivectors' memory space.
template <class T, class MemorySpace>
Kokkos::View<T*, MemorySpace> on_device(const std::vector<T>& host, const char* label) {
  Kokkos::View<T*, MemorySpace> d(std::string(label), host.size());
  auto mirror = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < host.size(); ++i) mirror(i) = host[i];
  Kokkos::deep_copy(d, mirror);
  return d;
}

/// Up to Capacity coefficients of a kernel, passed to it by value: no device allocation, copy
/// and free per call, each of which waits for the device (LOBPCG at GPU size makes about 12
/// combines an iteration). Larger sets go through on_device.
template <class T, int Capacity>
struct SmallCoefficients {
  T values[Capacity];
  KOKKOS_INLINE_FUNCTION const T& operator()(const std::size_t i) const { return values[i]; }
};

/// The host values as SmallCoefficients (host.size() <= Capacity).
template <int Capacity, class T>
SmallCoefficients<T, Capacity> small_coefficients(const std::vector<T>& host) {
  SmallCoefficients<T, Capacity> small{};
  for (std::size_t i = 0; i < host.size(); ++i) small.values[i] = host[i];
  return small;
}

/// What Kokkos needs of an array reduction of `value_count` doubles: the sums start at 0
/// and add up. The reductions below derive from it.
struct ArraySum : cs::impl::ArraySumJoin<double> {  // join: the form each Kokkos version calls
  using value_type = double[];
  using size_type = std::size_t;

  KOKKOS_INLINE_FUNCTION void init(value_type sums) const {
    for (unsigned j = 0; j < value_count; ++j) sums[j] = 0;
  }
};

/// The array reduction of real_gram: sums[a * k2 + b] += Σ_c v(i, a)_c w(i, b)_c over rows i.
template <class View>
struct GramSums : ArraySum {
  using traits = cs::component_traits<typename View::non_const_value_type>;
  View v, w;
  int k1, k2;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, value_type sums) const {
    for (int a = 0; a < k1; ++a) {
      const auto va = v(i, a);
      for (int b = 0; b < k2; ++b) {
        const auto wb = w(i, b);
        double s = 0;
        for (int c = 0; c < traits::size; ++c)
          s += static_cast<double>(traits::get(va, c)) * static_cast<double>(traits::get(wb, c));
        sums[a * k2 + b] += s;
      }
    }
  }
};

/// The array reduction of column_real_dots: sums[j] += Σ_c x(i, j)_c y(i, j)_c.
template <class View>
struct ColumnRealSums : ArraySum {
  using traits = cs::component_traits<typename View::non_const_value_type>;
  View x, y;
  int k;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, value_type sums) const {
    for (int j = 0; j < k; ++j) {
      const auto a = x(i, j);
      const auto b = y(i, j);
      for (int c = 0; c < traits::size; ++c)
        sums[j] += static_cast<double>(traits::get(a, c)) * static_cast<double>(traits::get(b, c));
    }
  }
};

/// The array reduction of column_bilinear_dots: sums[2j], sums[2j + 1] += x(i, j) y(i, j).
template <class View>
struct BilinearSums : ArraySum {
  View x, y;
  int k;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, value_type sums) const {
    for (int j = 0; j < k; ++j) {
      const auto p = x(i, j) * y(i, j);
      sums[2 * j] += p.real();
      sums[2 * j + 1] += p.imag();
    }
  }
};

/// Y(:, j) = c(j) X(:, j) + c(k + j) Y(:, j) (axpby_columns), c read as c(i).
template <class Coefficients, class T, class Layout, class MemorySpace>
void axpby_columns_kernel(const Coefficients& c, const cs::MultiVector<Kokkos::complex<T>, Layout, MemorySpace>& x,
                          const cs::MultiVector<Kokkos::complex<T>, Layout, MemorySpace>& y) {
  const auto xd = x.data;
  const auto yd = y.data;
  const int k = x.count();
  Kokkos::parallel_for(
      "examples::axpby_columns", Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, xd.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) {
        for (int j = 0; j < k; ++j) yd(i, j) = c(j) * xd(i, j) + c(k + j) * yd(i, j);
      });
}

/// W = V M + beta W (combine), M read as md(i).
template <class Coefficients, class Value, class Layout, class MemorySpace>
void combine_kernel(const Coefficients& md, const cs::MultiVector<Value, Layout, MemorySpace>& v,
                    const cs::MultiVector<Value, Layout, MemorySpace>& w, double beta) {
  using traits = cs::component_traits<Value>;
  using scalar = typename traits::scalar_type;
  const auto vd = v.data;
  const auto wd = w.data;
  const int k1 = v.count(), k2 = w.count();
  Kokkos::parallel_for(
      "examples::combine", Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, vd.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) {
        for (int j = 0; j < k2; ++j) {
          Value out = wd(i, j);
          for (int c = 0; c < traits::size; ++c) {
            double s = beta * static_cast<double>(traits::get(out, c));
            for (int l = 0; l < k1; ++l) s += md(l * k2 + j) * static_cast<double>(traits::get(vd(i, l), c));
            traits::get(out, c) = static_cast<scalar>(s);
          }
          wd(i, j) = out;
        }
      });
}

}  // namespace detail

/// G[a * k2 + b] = Σ_i Σ_c V(i, a)_c W(i, b)_c: the Gram matrix of V's and W's columns in
/// the real inner product (real_dot of vector_ops.hpp), row-major k1 x k2.
template <class Value, class Layout, class MemorySpace>
std::vector<double> real_gram(const cs::MultiVector<Value, Layout, MemorySpace>& v,
                              const cs::MultiVector<Value, Layout, MemorySpace>& w) {
  using view = typename cs::MultiVector<Value, Layout, MemorySpace>::view_type;
  detail::GramSums<view> f{{{static_cast<unsigned>(v.count() * w.count())}}, v.data, w.data, v.count(), w.count()};
  std::vector<double> g(f.value_count, 0.0);
  if (f.value_count == 0) return g;
  Kokkos::parallel_reduce("examples::real_gram",
                          Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, v.data.extent(0)), f,
                          Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(g.data(), g.size()));
  return g;
}

/// Σ_i Σ_c X(i, j)_c Y(i, j)_c for each column j (the diagonal of real_gram, in one pass).
template <class Value, class Layout, class MemorySpace>
std::vector<double> column_real_dots(const cs::MultiVector<Value, Layout, MemorySpace>& x,
                                     const cs::MultiVector<Value, Layout, MemorySpace>& y) {
  using view = typename cs::MultiVector<Value, Layout, MemorySpace>::view_type;
  detail::ColumnRealSums<view> f{{{static_cast<unsigned>(x.count())}}, x.data, y.data, x.count()};
  std::vector<double> d(f.value_count, 0.0);
  if (f.value_count == 0) return d;
  Kokkos::parallel_reduce("examples::column_real_dots",
                          Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, x.data.extent(0)), f,
                          Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(d.data(), d.size()));
  return d;
}

/// x_j^T y_j = Σ_i X(i, j) Y(i, j) without conjugation for each column j: COCG's bilinear form.
template <class T, class Layout, class MemorySpace>
std::vector<Kokkos::complex<double>> column_bilinear_dots(
    const cs::MultiVector<Kokkos::complex<T>, Layout, MemorySpace>& x,
    const cs::MultiVector<Kokkos::complex<T>, Layout, MemorySpace>& y) {
  using view = typename cs::MultiVector<Kokkos::complex<T>, Layout, MemorySpace>::view_type;
  detail::BilinearSums<view> f{{{static_cast<unsigned>(2 * x.count())}}, x.data, y.data, x.count()};
  std::vector<double> sums(f.value_count, 0.0);
  std::vector<Kokkos::complex<double>> d(x.count());
  if (f.value_count == 0) return d;
  Kokkos::parallel_reduce("examples::column_bilinear_dots",
                          Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, x.data.extent(0)), f,
                          Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(sums.data(), sums.size()));
  for (int j = 0; j < x.count(); ++j) d[j] = Kokkos::complex<double>(sums[2 * j], sums[2 * j + 1]);
  return d;
}

/// Y(:, j) = a_j X(:, j) + b_j Y(:, j) with complex a_j, b_j on complex multivectors.
template <class T, class Layout, class MemorySpace>
void axpby_columns(const std::vector<Kokkos::complex<double>>& a,
                   const cs::MultiVector<Kokkos::complex<T>, Layout, MemorySpace>& x,
                   const std::vector<Kokkos::complex<double>>& b,
                   const cs::MultiVector<Kokkos::complex<T>, Layout, MemorySpace>& y) {
  using complex = Kokkos::complex<T>;
  // a and b in one set: a_j at j, b_j at k + j.
  std::vector<complex> ab(a.begin(), a.end());
  ab.insert(ab.end(), b.begin(), b.end());
  if (ab.size() <= 32)
    detail::axpby_columns_kernel(detail::small_coefficients<32>(ab), x, y);
  else
    detail::axpby_columns_kernel(detail::on_device<complex, MemorySpace>(ab, "ab"), x, y);
}

/// W = V M + beta W with a real k1 x k2 matrix M (row-major): W(:, j) = Σ_l M[l * k2 + j]
/// V(:, l) + beta W(:, j), component by component (a real combination of the columns).
template <class Value, class Layout, class MemorySpace>
void combine(const cs::MultiVector<Value, Layout, MemorySpace>& v, const std::vector<double>& m,
             const cs::MultiVector<Value, Layout, MemorySpace>& w, double beta) {
  if (m.size() <= 256)
    detail::combine_kernel(detail::small_coefficients<256>(m), v, w, beta);
  else
    detail::combine_kernel(detail::on_device<double, MemorySpace>(m, "M"), v, w, beta);
}

}  // namespace examples
