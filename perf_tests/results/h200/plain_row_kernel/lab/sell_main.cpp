#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>

#include "sell_lab.hpp"

void sell_float(const std::string& name, const cs::HostCsr<Kokkos::complex<double>>& a, double copy_bw);
void sell_double(const std::string& name, const cs::HostCsr<Kokkos::complex<double>>& a, double copy_bw);

double copy_bandwidth() {
  const std::size_t n = std::size_t(1) << 27;
  Kokkos::View<double*> a("copy_a", n), b("copy_b", n);
  Kokkos::deep_copy(a, 1.0);
  LabTiming lt;
  const auto t = cs::time_launches([&](int) { Kokkos::deep_copy(Exec(), b, a); }, lt.timing);
  return 2.0 * n * sizeof(double) / t.median_seconds;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::string only = argc > 1 ? argv[1] : "";
  const std::string precisions = argc > 2 ? argv[2] : "float,double";
  const double copy_bw = copy_bandwidth();
  std::printf("copy bandwidth %.3f TB/s\n", copy_bw * 1e-12);
  struct Grid {
    const char* name;
    const char* shape;
    int n, nz;
    double k;
  };
  const Grid grids[] = {{"helmholtz-box-k20", "box", 44, 44, 20.0},
                        {"helmholtz-cylinder-k15", "cylinder", 48, 48, 15.0},
                        {"helmholtz-cylinder-k30", "cylinder", 60, 60, 30.0},
                        {"helmholtz-box-k40", "box", 68, 68, 40.0},
                        {"helmholtz-box-128", "box", 128, 128, 60.0}};
  for (const auto& g : grids) {
    if (!only.empty() && only.find(g.name) == std::string::npos) continue;
    namespace zoo = cs::zoo;
    const auto mesh = std::string(g.shape) == "box" ? zoo::box_mesh(g.n, g.n, g.nz) : zoo::cylinder_mesh(g.n, g.nz);
    const auto a = zoo::helmholtz_matrix(mesh, g.k);
    if (precisions.find("float") != std::string::npos) sell_float(g.name, a, copy_bw);
    if (precisions.find("double") != std::string::npos) sell_double(g.name, a, copy_bw);
  }
  return 0;
}
