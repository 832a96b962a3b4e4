// spmm_lab [--matrices a,b] [--csv FILE] [--ks 1,2,4,8,16] [--no-cusparse] [--tiles]:
// generates the lab's matrices (zoo generators, in the process) and measures each
// (spmm_lab.hpp). --tiles: ours with 1, 2 and 4 vectors per thread instead of the grid
// of lanes and multivector layouts; --no-cusparse: no cuSPARSE forms.
//   helmholtz-box-k50    complex, P1 tets on an 80^3 box, k = 50 (the unseen set's), float and double
//   helmholtz-box-120    complex, a 120^3 box, k = 75 (the same k / n), float and double
//   dirac-torus-960      quaternion, torus 960 x 480, one Loop step (half of dirac-torus-xl's grid), float and double
//   elasticity-box-80    3x3 blocks, an 80^3 box clamped at the bottom, double
#include <cmath>
#include <compound_sparse/zoo/dirac.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <compound_sparse/zoo/triangle_mesh.hpp>
#include <cstring>
#include <iostream>
#include <set>
#include <sstream>

#include "spmm_lab.hpp"

// Instantiated in spmm_<entry>.cpp, one translation unit each (they compile in parallel).
extern template void spmm_lab::run_entry(const std::string&, const std::string&,
                                         const compound_sparse::HostCsr<Kokkos::complex<float>>&,
                                         const spmm_lab::Options&);
extern template void spmm_lab::run_entry(const std::string&, const std::string&,
                                         const compound_sparse::HostCsr<Kokkos::complex<double>>&,
                                         const spmm_lab::Options&);
extern template void spmm_lab::run_entry(const std::string&, const std::string&,
                                         const compound_sparse::HostCsr<compound_sparse::Quaternion<float>>&,
                                         const spmm_lab::Options&);
extern template void spmm_lab::run_entry(const std::string&, const std::string&,
                                         const compound_sparse::HostCsr<compound_sparse::Quaternion<double>>&,
                                         const spmm_lab::Options&);
extern template void spmm_lab::run_entry(const std::string&, const std::string&,
                                         const compound_sparse::HostCsr<compound_sparse::Block<double, 3>>&,
                                         const spmm_lab::Options&);

namespace cs = compound_sparse;
namespace zoo = compound_sparse::zoo;

template <class To, class From>
cs::HostCsr<To> converted(const cs::HostCsr<From>& a) {
  cs::HostCsr<To> b;
  b.num_rows = a.num_rows;
  b.num_cols = a.num_cols;
  b.row_offsets = a.row_offsets;
  b.col_indices = a.col_indices;
  b.values.reserve(a.values.size());
  for (const auto& v : a.values) b.values.push_back(cs::convert_components<To>(v));
  return b;
}

std::vector<double> height_rho(const zoo::TriangleMesh& m) {  // as compound-zoo's Dirac recipes
  double lo = 1e300, hi = -1e300;
  for (const auto& p : m.vertices) lo = std::min(lo, p[2]), hi = std::max(hi, p[2]);
  const double pi = std::acos(-1.0);
  std::vector<double> rho;
  for (const auto& t : m.triangles) {
    const double z = (m.vertices[t[0]][2] + m.vertices[t[1]][2] + m.vertices[t[2]][2]) / 3;
    rho.push_back(std::sin(2 * pi * (hi > lo ? (z - lo) / (hi - lo) : 0.0)));
  }
  return rho;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::set<std::string> wanted;
  std::string csv_path = "spmm_lab.csv";
  spmm_lab::Options o;
  for (int i = 1; i < argc; i += 2) {
    if (!std::strcmp(argv[i], "--no-cusparse")) {
      o.cusparse = false;
      --i;
      continue;
    }
    if (!std::strcmp(argv[i], "--tiles")) {  // vectors per thread 1, 2, 4; lanes 1; Aos
      o.tiles = true;
      o.lanes = {1};
      --i;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << argv[0] << ": " << argv[i] << " needs a value\n";
      return 2;
    }
    std::stringstream list(argv[i + 1]);
    if (!std::strcmp(argv[i], "--matrices")) {
      for (std::string s; std::getline(list, s, ',');) wanted.insert(s);
    } else if (!std::strcmp(argv[i], "--csv")) {
      csv_path = argv[i + 1];
    } else if (!std::strcmp(argv[i], "--ks")) {
      o.ks.clear();
      for (std::string s; std::getline(list, s, ',');) o.ks.push_back(std::stoi(s));
    } else {
      std::cerr << "usage: " << argv[0]
                << " [--matrices a,b] [--csv FILE] [--ks 1,2,4,8,16] [--no-cusparse] [--tiles]\n";
      return 2;
    }
  }
  o.csv = std::fopen(csv_path.c_str(), "w");
  std::fprintf(o.csv, "matrix,entry,rows,nonzeros,k,method,variant,ok,seconds,relative_error,note\n");
  const auto want = [&](const char* name) { return wanted.empty() || wanted.count(name); };
  const auto helmholtz = [&](const char* name, int n, double k) {
    if (!want(name)) return;
    std::cerr << "== " << name << "\n";
    const auto a = zoo::helmholtz_matrix(zoo::box_mesh(n, n, n), k);
    spmm_lab::run_entry(name, "complex_float", converted<Kokkos::complex<float>>(a), o);
    spmm_lab::run_entry(name, "complex_double", a, o);
  };
  helmholtz("helmholtz-box-k50", 80, 50.0);
  helmholtz("helmholtz-box-120", 120, 75.0);
  if (want("dirac-torus-960")) {
    std::cerr << "== dirac-torus-960\n";
    const auto mesh = zoo::loop_subdivide(zoo::clean_mesh(zoo::torus_mesh(960, 480)));
    const auto a = zoo::dirac_operator(mesh, height_rho(mesh));
    spmm_lab::run_entry("dirac-torus-960", "quaternion_float", converted<cs::Quaternion<float>>(a), o);
    spmm_lab::run_entry("dirac-torus-960", "quaternion_double", a, o);
  }
  if (want("elasticity-box-80")) {
    std::cerr << "== elasticity-box-80\n";
    const auto mesh = zoo::box_mesh(80, 80, 80);
    const auto lame = zoo::lame_parameters(1.0, 0.3);
    auto a = zoo::elasticity_matrix(mesh, lame.first, lame.second);
    double zmin = 1e300;
    for (const auto& p : mesh.points) zmin = std::min(zmin, p[2]);
    std::vector<char> fixed(mesh.points.size(), 0);
    for (std::size_t i = 0; i < fixed.size(); ++i) fixed[i] = mesh.points[i][2] <= zmin + 1e-9;
    zoo::apply_dirichlet(a, fixed);
    spmm_lab::run_entry("elasticity-box-80", "block3_double", a, o);
  }
  std::fclose(o.csv);
  return 0;
}
