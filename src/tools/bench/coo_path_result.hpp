#pragma once
// What compound-assembly-bench reports of a vendor library's device path from a contribution
// list to its matrix (cusparse_coo_path.hpp, kokkos_kernels_coo_path.hpp).

#include <cstdint>
#include <string>

namespace compound_bench {

struct CooPathResult {
  std::string form;  ///< what was built: "coosortByRow+gather+coo2csr+CSR_ALG1_preprocess"
  bool ok = false;
  bool wrong = false;             ///< it ran, and its result was off the reference
  std::string error;              ///< why not, where !ok: the library's refusal, or the result's error
  double first_seconds = 0;       ///< the first build from the list: median of the samples
  double step_seconds = 0;        ///< new values into the kept pattern, per step
  std::int64_t peak_bytes = 0;    ///< Kokkos-allocated bytes held at once during `first` (a library's own not seen)
  std::int64_t matrix_bytes = 0;  ///< what stays for the steps
  double relative_error = 0;      ///< against the host reference (each path says how it is measured)
};

}  // namespace compound_bench
