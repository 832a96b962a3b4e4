#pragma once
// CUDA source for one constant operator (constant_operator.hpp), the GiMMiK way: A's expansion
// written into the code as literals with alpha and beta folded in, the zeros and the rows of B
// they would read left out, and C not read when beta is zero. A run-time compiler (NVRTC) turns
// it into the operator's own kernel; this header only writes the source, so that what a kernel
// computes can be checked on any machine (the tests compile it as C++ on the host).
//
// The kernel: extern "C" __global__ void NAME(long long n, const T* b, long long ldb, T* c,
// long long ldc), one thread per vector j < n (blockIdx.x * blockDim.x + threadIdx.x); panel
// rows are ld* scalars apart (operator_panel.hpp: ld = n). column_stream computes every row of
// C for its vector; row_split gives each blockIdx.y a slice of C's rows (GiMMiK's m-split), for
// grids of (ceil(n / block_size), row_splits).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "../error.hpp"
#include "constant_operator.hpp"
#include "operator_kernels.hpp"  // OperatorShape

namespace compound_sparse {

struct GeneratedKernelOptions {
  OperatorShape shape = OperatorShape::ColumnStream;  ///< column_stream or row_split
  int block_size = 128;                               ///< threads a block (launch bounds)
  int row_splits = 4;                                 ///< row_split: slices of C's rows
};

struct GeneratedKernelSource {
  std::string name;        ///< the kernel's extern "C" name
  std::string source;      ///< CUDA C++, no includes
  int row_splits = 1;      ///< the grid's y extent
  int block_size = 128;    ///< the grid's block
  std::int64_t terms = 0;  ///< multiply-adds a vector: the expansion's non-zeros
};

namespace impl {
/// A literal that reads back as exactly `v` (17 significant digits for double, 9 for float).
template <class Scalar>
std::string exact_literal(Scalar v) {
  char text[64];
  if constexpr (sizeof(Scalar) == 4)
    std::snprintf(text, sizeof text, "%.9gf", static_cast<double>(v));
  else
    std::snprintf(text, sizeof text, "%.17g", static_cast<double>(v));
  std::string s = text;
  // "1f" is no float literal, and "1" would be an int: give every literal a point or exponent.
  if (s.find_first_of(".en") == std::string::npos) s.insert(s.size() - (sizeof(Scalar) == 4 ? 1 : 0), ".0");
  return "(" + s + ")";
}
}  // namespace impl

/// The source of alpha A B + beta C for `op` (see above). `name` must be a C identifier.
template <class Entry>
GeneratedKernelSource generate_kernel_source(const ConstantOperator<Entry>& op,
                                             const typename ConstantOperator<Entry>::coefficient_type& alpha,
                                             const typename ConstantOperator<Entry>::coefficient_type& beta,
                                             const std::string& name, const GeneratedKernelOptions& options = {}) {
  using op_type = ConstantOperator<Entry>;
  using scalar = typename op_type::scalar_type;
  constexpr int components = op_type::components;
  COMPOUND_SPARSE_REQUIRE(
      options.shape == OperatorShape::ColumnStream || options.shape == OperatorShape::RowSplit,
      "generated kernels: shape " << to_string(options.shape) << " is not generated (column_stream, row_split)");
  COMPOUND_SPARSE_REQUIRE(options.block_size >= 32 && options.block_size <= 1024 && options.block_size % 32 == 0,
                          "generated kernels: block size " << options.block_size << " is not 32-1024 in warps");
  COMPOUND_SPARSE_REQUIRE(options.row_splits >= 1, "generated kernels: " << options.row_splits << " row splits");
  const auto e = op.expand(alpha);
  for (const scalar v : e.values)
    COMPOUND_SPARSE_REQUIRE(std::isfinite(v), "generated kernels: alpha A has a value " << v << " (alpha too large)");
  const auto beta_matrix = op_type::coefficient_matrix(beta);  // beta as it scales a vector
  const bool read_c = !is_zero(beta);
  const int splits = options.shape == OperatorShape::RowSplit ? std::min(options.row_splits, op.rows()) : 1;
  const char* type = sizeof(scalar) == 4 ? "float" : "double";

  std::ostringstream s;
  s << "extern \"C\" __global__ void __launch_bounds__(" << options.block_size << ") " << name << "(long long n, const "
    << type << "* __restrict__ b, long long ldb, " << type << "* __restrict__ c, long long ldc) {\n"
    << "  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    << "  if (j >= n) return;\n";
  const int rows_per_split = (op.rows() + splits - 1) / splits;
  for (int split = 0; split < splits; ++split) {
    const int first = split * rows_per_split, last = std::min(op.rows(), first + rows_per_split);
    if (splits > 1) s << "  if (blockIdx.y == " << split << ") {\n";
    for (int i = first; i < last; ++i) {
      s << "  {\n";
      for (int comp = 0; comp < components; ++comp) {
        const int r = i * components + comp;
        s << "    " << type << " a" << comp << " = ";
        if (e.row_offsets[r] == e.row_offsets[r + 1]) s << impl::exact_literal(scalar(0));
        for (int k = e.row_offsets[r]; k < e.row_offsets[r + 1]; ++k)
          s << (k == e.row_offsets[r] ? "" : " + ") << impl::exact_literal(e.values[k]) << " * b[j + "
            << e.col_indices[k] << " * ldb]";
        s << ";\n";
      }
      if (read_c)
        for (int comp = 0; comp < components; ++comp)
          s << "    const " << type << " o" << comp << " = c[j + " << i * components + comp << " * ldc];\n";
      for (int comp = 0; comp < components; ++comp) {
        s << "    c[j + " << i * components + comp << " * ldc] = a" << comp;
        if (read_c)
          for (int q = 0; q < components; ++q) {
            const scalar bq = beta_matrix[comp * components + q];
            if (bq != scalar(0)) s << " + " << impl::exact_literal(bq) << " * o" << q;
          }
        s << ";\n";
      }
      s << "  }\n";
    }
    if (splits > 1) s << "  }\n";
  }
  s << "}\n";
  GeneratedKernelSource out;
  out.name = name;
  out.source = s.str();
  out.row_splits = splits;
  out.block_size = options.block_size;
  out.terms = e.nonzeros();
  return out;
}

}  // namespace compound_sparse
