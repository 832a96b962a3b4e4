#pragma once
// C <- alpha A B + beta C by a kernel written for one constant operator and compiled at run time
// (GiMMiK's method, CUDA builds): generate_kernel_source writes A's expansion into the code as
// literals with alpha and beta folded in and the zeros left out; NVRTC compiles it for the
// device's architecture; the driver loads it and launches it on a Kokkos::Cuda stream.
//
//   const cs::GeneratedOperatorKernel<Entry> kernel(op, alpha, beta);  // NVRTC, once a process
//   kernel.apply(b, c);                                                // C = alpha A B + beta C
//
// Compiling takes tenths of a second, so the process keeps every compiled kernel, keyed by its
// source text (which holds the operator's values, alpha, beta and the options) and the device's
// architecture: a second kernel for the same operator and coefficients compiles nothing.
// Compiled kernels stay loaded until the process ends. The library target
// CompoundSparse::generated_operators (CUDA builds only) links NVRTC and the CUDA driver.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "../error.hpp"
#include "constant_operator.hpp"
#include "generated_kernel_source.hpp"
#include "operator_panel.hpp"

#if !defined(KOKKOS_ENABLE_CUDA)
#error \
    "generated_operator_kernel.hpp compiles kernels with NVRTC and needs a CUDA build of Kokkos; \
operator_kernels.hpp has the portable kernels"
#endif

namespace compound_sparse {

namespace impl {

struct GeneratedModule;  // a loaded CUDA module and its kernel (src/operators/generated_modules.cpp)

/// The kernel of `source`, compiled and loaded now or found among those the process compiled
/// (then compile_seconds is 0). DeviceError with NVRTC's log or the driver's reason.
std::shared_ptr<const GeneratedModule> load_generated_kernel(const GeneratedKernelSource& source,
                                                             double& compile_seconds);

/// One launch of a loaded kernel over n vectors, on `stream` (a cudaStream_t), asynchronous.
void launch_generated_kernel(const GeneratedModule& module, const GeneratedKernelSource& source, std::int64_t n,
                             const void* b, std::int64_t ldb, void* c, std::int64_t ldc, void* stream);

/// Kernels compiled so far by this process (the cache's size).
std::size_t generated_kernels_compiled();

}  // namespace impl

/// alpha A B + beta C with A, alpha and beta written into the kernel (header comment).
template <class Entry>
class GeneratedOperatorKernel {
 public:
  using op_type = ConstantOperator<Entry>;
  using scalar_type = typename op_type::scalar_type;
  using coefficient_type = typename op_type::coefficient_type;
  using panel_type = OperatorPanel<Entry, Kokkos::CudaSpace>;
  static constexpr int components = op_type::components;

  /// Writes, compiles and loads the kernel of `op` with these coefficients and options
  /// (generated_kernel_source.hpp). InvalidInput for options or coefficients the generator
  /// refuses; DeviceError if NVRTC or the driver fails.
  GeneratedOperatorKernel(const op_type& op, const coefficient_type& alpha, const coefficient_type& beta,
                          const GeneratedKernelOptions& options = {})
      : rows_(op.rows()), cols_(op.cols()) {
    COMPOUND_SPARSE_REQUIRE(options.row_splits <= 65535, "generated kernels: " << options.row_splits
                                                                               << " row splits, more than a CUDA "
                                                                                  "grid's 65535 blocks in y");
    char name[48];
    std::snprintf(name, sizeof name, "compound_sparse_operator_%016llx", static_cast<unsigned long long>(op.hash()));
    source_ = generate_kernel_source(op, alpha, beta, name, options);
    module_ = impl::load_generated_kernel(source_, compile_seconds_);
  }

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  OperatorShape shape() const { return source_.row_splits > 1 ? OperatorShape::RowSplit : OperatorShape::ColumnStream; }
  /// NVRTC's compile and the module's load, in seconds; 0 when the process had compiled it.
  double compile_seconds() const { return compile_seconds_; }
  const GeneratedKernelSource& source() const { return source_; }

  /// C <- alpha A B + beta C (alpha and beta as built), on `exec`'s stream, asynchronously as a
  /// Kokkos kernel. B holds cols() rows, C rows(), both n vectors; C must not overlap B. With beta
  /// zero C is not read, so it may hold anything.
  void apply(const panel_type& b, const panel_type& c, const Kokkos::Cuda& exec = Kokkos::Cuda()) const {
    impl::require_operator_panels<Entry>(b, c, rows_, cols_, "generated operator kernel");
    const std::int64_t n = static_cast<std::int64_t>(b.extent(1));
    if (n == 0) return;
    impl::launch_generated_kernel(*module_, source_, n, b.data(), static_cast<std::int64_t>(b.stride(0)), c.data(),
                                  static_cast<std::int64_t>(c.stride(0)), exec.cuda_stream());
  }

 private:
  int rows_ = 0;
  int cols_ = 0;
  GeneratedKernelSource source_;
  double compile_seconds_ = 0;
  std::shared_ptr<const impl::GeneratedModule> module_;
};

}  // namespace compound_sparse
