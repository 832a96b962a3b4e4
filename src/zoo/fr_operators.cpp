#include "compound_sparse/zoo/fr_operators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <utility>

#include "compound_sparse/error.hpp"
#include "portable_random.hpp"

namespace compound_sparse {
namespace zoo {

namespace {

constexpr double pi = 3.14159265358979323846;

/// The n Gauss-Legendre points on [-1, 1], ascending (Newton's method on P_n).
std::vector<double> gauss_points(int n) {
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) {
    double t = -std::cos(pi * (i + 0.75) / (n + 0.5));
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p0 = 1, p1 = t;  // P_0, P_1, then the recurrence up to P_n
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      const double pn = n == 0 ? 1 : p1, pn_1 = n == 1 ? 1 : p0;
      const double derivative = n * (t * pn - pn_1) / (t * t - 1);
      const double step = pn / derivative;
      t -= step;
      if (std::abs(step) < 1e-16) break;
    }
    x[i] = t;
  }
  return x;
}

/// l_j(x) for the Lagrange basis of `nodes`; with derivative, l_j'(x).
double lagrange(const std::vector<double>& nodes, int j, double x) {
  double value = 1;
  for (int m = 0; m < static_cast<int>(nodes.size()); ++m)
    if (m != j) value *= (x - nodes[m]) / (nodes[j] - nodes[m]);
  return value;
}
double lagrange_derivative(const std::vector<double>& nodes, int j, double x) {
  double sum = 0;
  for (int k = 0; k < static_cast<int>(nodes.size()); ++k) {
    if (k == j) continue;
    double term = 1 / (nodes[j] - nodes[k]);
    for (int m = 0; m < static_cast<int>(nodes.size()); ++m)
      if (m != j && m != k) term *= (x - nodes[m]) / (nodes[j] - nodes[m]);
    sum += term;
  }
  return sum;
}

RealOperator make(const std::string& name, int rows, int cols) {
  RealOperator op;
  op.name = name;
  op.rows = rows;
  op.cols = cols;
  op.values.assign(static_cast<std::size_t>(rows) * cols, 0.0);
  return op;
}

// ---- tensor-product elements: Gauss points in each direction ------------------------------

/// Point index of (a, b[, c]) in a tensor grid of n points a direction, a fastest.
int tensor_index(int n, int a, int b, int c = 0) {
  return (c * n + b) * n + a;
}

std::vector<RealOperator> tensor_operators(ElementShape shape, int order) {
  const int n = order + 1, dim = dimension(shape);
  const auto g = gauss_points(n);
  const int points = dim == 2 ? n * n : n * n * n;
  const std::string prefix = to_string(shape) + "-p" + std::to_string(order);
  // Interpolation: on the face where direction `normal` is at `side` (-1 or 1), the flux point
  // at the face's own Gauss position reads the line of solution points along `normal`.
  const int faces = 2 * dim, face_points = dim == 2 ? n : n * n;
  RealOperator interpolate = make(prefix + "-interpolate", faces * face_points, points);
  int row = 0;
  for (int normal = dim - 1; normal >= 0; --normal)
    for (int side : {-1, 1})
      for (int f = 0; f < face_points; ++f, ++row) {
        const int u = f % n, v = f / n;  // the face's two tangential positions (v = 0 in 2D)
        for (int k = 0; k < n; ++k) {
          int idx[3] = {0, 0, 0};
          idx[normal] = k;
          int t = 0;
          for (int d = 0; d < dim; ++d)
            if (d != normal) idx[d] = (t++ == 0) ? u : v;
          interpolate.values[static_cast<std::size_t>(row) * points + tensor_index(n, idx[0], idx[1], idx[2])] =
              lagrange(g, k, side);
        }
      }
  RealOperator gradient = make(prefix + "-gradient", dim * points, points);
  for (int d = 0; d < dim; ++d)
    for (int p = 0; p < points; ++p) {
      int idx[3] = {p % n, (p / n) % n, p / (n * n)};
      const int at = idx[d];
      for (int k = 0; k < n; ++k) {
        idx[d] = k;
        gradient.values[static_cast<std::size_t>(d * points + p) * points + tensor_index(n, idx[0], idx[1], idx[2])] =
            lagrange_derivative(g, k, g[at]);
      }
    }
  return {interpolate, gradient};
}

// ---- simplices: an interior lattice and a monomial basis -----------------------------------

/// The exponents of the monomials of degree <= order in `dim` variables.
std::vector<std::array<int, 3>> monomials(int dim, int order) {
  std::vector<std::array<int, 3>> e;
  for (int total = 0; total <= order; ++total)
    for (int a = total; a >= 0; --a)
      for (int b = total - a; b >= 0; --b) {
        const int c = total - a - b;
        if (dim == 2 && c != 0) continue;
        e.push_back({a, dim == 2 ? total - a : b, dim == 2 ? 0 : c});
        if (dim == 2) break;
      }
  return e;
}

/// The points of the principal lattice of `order` in the unit simplex, moved inside: lattice
/// point i becomes (i + 1) / (order + dim + 1), an affine image of the lattice, so the
/// Lagrange basis on them exists for every order.
std::vector<double> simplex_lattice(int dim, int order) {
  std::vector<double> x;
  const double h = 1.0 / (order + dim + 1);
  for (int k = 0; k <= (dim == 3 ? order : 0); ++k)
    for (int j = 0; j <= order - k; ++j)
      for (int i = 0; i <= order - k - j; ++i) {
        x.push_back((i + 1) * h);
        x.push_back((j + 1) * h);
        if (dim == 3) x.push_back((k + 1) * h);
      }
  return x;
}

/// Monomial m (exponents e) at point x, or its derivative in direction d (d >= 0). Centred on
/// the simplex's centroid for a better-conditioned Vandermonde matrix.
double monomial(const std::array<int, 3>& e, const double* x, int dim, int d = -1) {
  const double centre = 1.0 / (dim + 1);
  double value = 1;
  for (int q = 0; q < dim; ++q) {
    const double y = x[q] - centre;
    if (q == d) {
      if (e[q] == 0) return 0;
      value *= e[q] * std::pow(y, e[q] - 1);
    } else {
      value *= std::pow(y, e[q]);
    }
  }
  return value;
}

/// Solves M^T r = rhs for r with M given by its LU factors (partial pivoting), in place.
struct LuFactors {
  int n = 0;
  std::vector<double> lu;  // row-major
  std::vector<int> pivot;

  explicit LuFactors(std::vector<double> m, int size) : n(size), lu(std::move(m)), pivot(size) {
    for (int k = 0; k < n; ++k) {
      int best = k;
      for (int i = k + 1; i < n; ++i)
        if (std::abs(lu[i * n + k]) > std::abs(lu[best * n + k])) best = i;
      COMPOUND_SPARSE_REQUIRE(std::abs(lu[best * n + k]) > 1e-300, "fr_operators: singular Vandermonde matrix");
      pivot[k] = best;
      if (best != k)
        for (int j = 0; j < n; ++j) std::swap(lu[k * n + j], lu[best * n + j]);
      for (int i = k + 1; i < n; ++i) {
        lu[i * n + k] /= lu[k * n + k];
        for (int j = k + 1; j < n; ++j) lu[i * n + j] -= lu[i * n + k] * lu[k * n + j];
      }
    }
  }
  /// r with M^T r = rhs: (P^T L U)^T r = U^T L^T P r = rhs.
  std::vector<double> solve_transposed(std::vector<double> r) const {
    for (int j = 0; j < n; ++j) {  // U^T z = rhs
      for (int k = 0; k < j; ++k) r[j] -= lu[k * n + j] * r[k];
      r[j] /= lu[j * n + j];
    }
    for (int j = n - 1; j >= 0; --j)  // L^T w = z
      for (int k = j + 1; k < n; ++k) r[j] -= lu[k * n + j] * r[k];
    for (int k = n - 1; k >= 0; --k) std::swap(r[k], r[pivot[k]]);  // r = P^T w
    return r;
  }
};

std::vector<RealOperator> simplex_operators(ElementShape shape, int order) {
  const int dim = dimension(shape);
  const auto nodes = simplex_lattice(dim, order);
  const auto basis = monomials(dim, order);
  const int np = static_cast<int>(basis.size());
  COMPOUND_SPARSE_REQUIRE(static_cast<int>(nodes.size()) == np * dim, "fr_operators: lattice and basis differ in size");
  std::vector<double> vandermonde(static_cast<std::size_t>(np) * np);
  for (int p = 0; p < np; ++p)
    for (int m = 0; m < np; ++m) vandermonde[p * np + m] = monomial(basis[m], &nodes[p * dim], dim);
  const LuFactors v(vandermonde, np);
  // Row of the Lagrange basis' values (d < 0) or d-derivatives at x: phi(x)^T V^{-1}.
  const auto row_at = [&](const double* x, int d) {
    std::vector<double> phi(np);
    for (int m = 0; m < np; ++m) phi[m] = monomial(basis[m], x, dim, d);
    return v.solve_transposed(phi);
  };
  const std::string prefix = to_string(shape) + "-p" + std::to_string(order);
  const auto flux = fr_flux_points(shape, order);
  const int flux_points = static_cast<int>(flux.size()) / dim;
  RealOperator interpolate = make(prefix + "-interpolate", flux_points, np);
  for (int f = 0; f < flux_points; ++f) {
    const auto r = row_at(&flux[f * dim], -1);
    std::copy(r.begin(), r.end(), interpolate.values.begin() + static_cast<std::ptrdiff_t>(f) * np);
  }
  RealOperator gradient = make(prefix + "-gradient", dim * np, np);
  for (int d = 0; d < dim; ++d)
    for (int p = 0; p < np; ++p) {
      const auto r = row_at(&nodes[p * dim], d);
      std::copy(r.begin(), r.end(), gradient.values.begin() + static_cast<std::ptrdiff_t>(d * np + p) * np);
    }
  return {interpolate, gradient};
}

void require_order(int order) {
  COMPOUND_SPARSE_REQUIRE(order >= 1 && order <= 6, "fr_operators: order " << order << " is outside 1-6");
}

}  // namespace

double RealOperator::density() const {
  std::size_t nonzero = 0;
  for (double v : values) nonzero += v != 0;
  return values.empty() ? 0.0 : static_cast<double>(nonzero) / static_cast<double>(values.size());
}

std::string to_string(ElementShape shape) {
  switch (shape) {
    case ElementShape::Quadrilateral:
      return "quad";
    case ElementShape::Hexahedron:
      return "hex";
    case ElementShape::Triangle:
      return "tri";
    case ElementShape::Tetrahedron:
      return "tet";
  }
  return "unknown";
}

int dimension(ElementShape shape) {
  return shape == ElementShape::Quadrilateral || shape == ElementShape::Triangle ? 2 : 3;
}

std::vector<RealOperator> fr_operators(ElementShape shape, int order) {
  require_order(order);
  if (shape == ElementShape::Quadrilateral || shape == ElementShape::Hexahedron) return tensor_operators(shape, order);
  return simplex_operators(shape, order);
}

std::vector<double> fr_solution_points(ElementShape shape, int order) {
  require_order(order);
  const int dim = dimension(shape);
  if (shape == ElementShape::Triangle || shape == ElementShape::Tetrahedron) return simplex_lattice(dim, order);
  const int n = order + 1;
  const auto g = gauss_points(n);
  std::vector<double> x;
  for (int c = 0; c < (dim == 3 ? n : 1); ++c)
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < n; ++a) {
        x.push_back(g[a]);
        x.push_back(g[b]);
        if (dim == 3) x.push_back(g[c]);
      }
  return x;
}

std::vector<double> fr_flux_points(ElementShape shape, int order) {
  require_order(order);
  const int n = order + 1, dim = dimension(shape);
  std::vector<double> x;
  if (shape == ElementShape::Quadrilateral || shape == ElementShape::Hexahedron) {
    const auto g = gauss_points(n);
    const int face_points = dim == 2 ? n : n * n;
    for (int normal = dim - 1; normal >= 0; --normal)
      for (int side : {-1, 1})
        for (int f = 0; f < face_points; ++f) {
          double point[3] = {0, 0, 0};
          point[normal] = side;
          int t = 0;
          for (int d = 0; d < dim; ++d)
            if (d != normal) point[d] = g[(t++ == 0) ? f % n : f / n];
          x.insert(x.end(), point, point + dim);
        }
    return x;
  }
  if (shape == ElementShape::Triangle) {
    // Each edge's n Gauss points, mapped from [-1, 1].
    const auto g = gauss_points(n);
    const double corners[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    for (int e = 0; e < 3; ++e)
      for (int k = 0; k < n; ++k) {
        const double s = (g[k] + 1) / 2;
        const auto& a = corners[e];
        const auto& b = corners[(e + 1) % 3];
        x.push_back(a[0] + s * (b[0] - a[0]));
        x.push_back(a[1] + s * (b[1] - a[1]));
      }
    return x;
  }
  // Tetrahedron: each face's interior lattice (as a triangle's solution points).
  const auto face = simplex_lattice(2, order);
  const double corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  for (const auto& f : faces)
    for (std::size_t p = 0; p < face.size() / 2; ++p) {
      const double s = face[2 * p], t = face[2 * p + 1];
      for (int d = 0; d < 3; ++d)
        x.push_back(corners[f[0]][d] + s * (corners[f[1]][d] - corners[f[0]][d]) +
                    t * (corners[f[2]][d] - corners[f[0]][d]));
    }
  return x;
}

RealOperator random_sparse_operator(int rows, int cols, double density, std::uint64_t seed) {
  COMPOUND_SPARSE_REQUIRE(rows >= 1 && cols >= 1 && density >= 0 && density <= 1,
                          "random_sparse_operator: " << rows << " x " << cols << " at density " << density
                                                     << " (sizes >= 1, density in [0, 1])");
  RealOperator op = make("random-" + std::to_string(rows) + "x" + std::to_string(cols) + "-d" +
                             std::to_string(static_cast<int>(std::lround(density * 100))),
                         rows, cols);
  std::mt19937 rng(static_cast<std::uint32_t>(seed ^ (seed >> 32)));
  for (auto& v : op.values)
    if (detail::uniform01(rng) < density) {
      double value = detail::uniform_signed(rng);
      while (value == 0) value = detail::uniform_signed(rng);
      v = value;
    }
  return op;
}

}  // namespace zoo
}  // namespace compound_sparse
