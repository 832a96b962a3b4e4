// Downstream check of the installed package: one SpMV on a small complex
// matrix, compared with the host reference, and the tuning database TunedSpmv
// would read. Exit code 0 when they agree and, with --expect-database-in DIR, when
// the database was found in DIR (the package's own, wherever it was installed), or, where
// the package ships none for this device (a backend without one), when DIR is searched.

#include <compound_sparse.hpp>
#include <compound_sparse/tuning/tuned_spmv.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  // Tridiagonal complex matrix with 100 rows.
  const int n = 100;
  std::vector<cs::CooEntry<C>> coo;
  for (int i = 0; i < n; ++i) {
    coo.push_back({i, i, C(4.0, 0.5)});
    if (i > 0) coo.push_back({i, i - 1, C(-1.0, 0.25)});
    if (i + 1 < n) coo.push_back({i, i + 1, C(-1.0, -0.25)});
  }
  const cs::HostCsr<C> host = cs::csr_from_coo<C>(n, n, coo);
  std::vector<C> x_host(n);
  for (int i = 0; i < n; ++i) x_host[i] = C(1.0 + i, -0.5 * i);

  const auto a = cs::to_device<cs::SlicedEll<32>, cs::Soa>(host);
  const auto x = cs::to_device<cs::Aos>(x_host);
  const auto y = cs::to_device<cs::Aos>(std::vector<C>(n));
  cs::spmv(cs::DynamicWarpSchedule{}, C(1, 0), a, x, C(0, 0), y);
  const std::vector<C> result = cs::to_host(y);
  const auto reference = cs::reference_spmv<double>(C(1, 0), host, x_host, C(0, 0), std::vector<C>(n));

  double max_error = 0;
  for (int i = 0; i < n; ++i) max_error = std::max(max_error, Kokkos::abs(result[i] - reference[i]));
  std::printf("downstream: spmv on %s, max |y - reference| = %.3g\n", cs::default_device_info().backend.c_str(),
              max_error);
  if (max_error >= 1e-12) return 1;

  const cs::LoadedDatabase loaded = cs::load_device_database(cs::default_device_info(), "");
  std::printf("downstream: tuning database %s\n", loaded.note.c_str());
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--expect-database-in") == 0) {
      namespace fs = std::filesystem;
      const fs::path want = argv[i + 1];
      const std::string file = cs::database_file_name(cs::default_device_info());
      std::error_code ec;
      if (fs::exists(want / file)) {  // the package ships one for this device: it must be the one read
        const fs::path found = fs::path(loaded.note).parent_path();
        if (!loaded.db || !fs::equivalent(found, want, ec)) {
          std::printf("downstream: expected the database in %s\n", want.c_str());
          return 1;
        }
      } else {  // none shipped for this backend (OpenMP, say): the package's directory is searched all the same
        bool searched = false;
        for (const auto& dir : cs::default_tuning_dirs()) searched = searched || fs::equivalent(dir, want, ec);
        std::printf("downstream: the package ships no %s\n", file.c_str());
        if (!searched) {
          std::printf("downstream: %s is not among the tuning directories searched\n", want.c_str());
          return 1;
        }
      }
    }
  return 0;
}
