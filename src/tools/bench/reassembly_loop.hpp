#pragma once
// compound-assembly-bench's reassembly:N case: the loop of example_elasticity_reassembly
// (the clamped beam of 4N x N x N cubes, each tetrahedron's modulus changed every step,
// examples/common/beam_reassembly.hpp), timed step by step in two builds of the same loop:
//
//   ours      CooAssembly<Block<double, 3>, Csr, Aos>::assemble of the scaled contributions,
//             TunedSpmv::refresh of its values, CG with TunedSpmv::apply
//   cusparse  the contributions sorted once by (row, column) (a stable sort, so each
//             non-zero's contributions stay in list order) and merged every step into
//             cuSPARSE's fastest form for the first step's matrix, timed at set-up among
//             BSR 3x3 (CUSPARSE_SPMV_BSR_ALG1) and the expanded scalar CSR (CSR_ALG1,
//             CSR_ALG2); CG with cusparseSpMV of that form. cuSPARSE has no reduce-by-key:
//             the merge is one kernel, a thread per non-zero summing its sorted run
//
// Both loops scale the contributions with the same kernel and solve with the examples' CG
// (examples/common/krylov.hpp) to a relative residual of 1e-8 from zero. Every step of
// both must converge; the last step's matrices must be the host path's bit for bit (ours:
// csr_from_coo then to_device; cuSPARSE's merged blocks: the same values) and the two
// solutions must agree. Without CUDA the cuSPARSE loop says so and ours still runs.

#include <nlohmann/json.hpp>
#include <string>

namespace compound_bench {

/// The case "reassembly:N" for `steps` steps (set-up once, then each step timed): per loop,
/// the set-up's time, each step's assembly and solve times and iterations, and their
/// medians. all_ok becomes false when a check fails.
nlohmann::json measure_reassembly_loop(const std::string& name, int n, int steps, bool& all_ok);

/// Prints a reassembly case's result as a table.
void print_reassembly_loop(const nlohmann::json& result);

}  // namespace compound_bench
