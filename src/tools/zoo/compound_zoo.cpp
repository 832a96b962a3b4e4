// compound-zoo: builds the standard matrix zoo (docs/zoo.md) into a directory:
// one Matrix Market file per matrix and index.json with sizes and row statistics.
//
//   compound-zoo --out DIR [--scale small|full|tune|unseen|xl|xl2|xl4] [--format mtx|binary] [--meshes DIR]
//                [--mhd1280b FILE]
//                [--only NAME[,NAME...]]
//
// --only NAME-rcm (NAME a matrix of the scale) writes NAME reordered by reverse Cuthill-McKee
// (P A Pᵀ, compound_sparse/layouts/reordering.hpp) under that name: the same matrix with
// each row's columns gathered near it, for measuring what the numbering costs (dirac-torus-xl:
// Loop subdivision numbers a vertex's neighbours far from it; docs/zoo.md). A name of --only
// that is neither a matrix of the scale nor one of them with -rcm is an error that lists them.
//
// Into a directory that already holds a zoo of the same scale and format, the run adds its
// matrices to index.json (a regenerated name's entry replaced, the others kept), written
// atomically; an index.json that does not read is refused, never replaced with less. A path
// given with --meshes or --mhd1280b must exist, and a matrix that --only names must have its
// input (the whole small set skips absent optional inputs, the other sets need them all).
//
// --scale small (default) is the test set: generated inputs only (plus mhd1280b and
// the mesh woody.obj when they are present), done in seconds. --scale full mirrors
// the published Table 1 (4 complex, 4 quaternion and 5 3x3-block matrices) and adds
// the irregular family (2 complex, 1 quaternion, 1 block: power-law rows, hubs,
// dense rows). --scale tune is the full set plus 20 more of the same families (the
// tuning database's zoo). --scale xl is six matrices of 50M+ compound non-zeros, a grid
// and an irregular one per class, as binary CSR files (compound_sparse/io/binary_csr.hpp).
// --scale xl2 is the xl grids twice as large (the weak scaling of the distributed product,
// docs/scaling.md: twice the rows on twice the GPUs), also binary; --scale xl4 four times as
// large (four times the rows on four GPUs).
#include <fcntl.h>  // FileLock: open, flock
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.hpp"  // tuning/: the tools' "--name value" parsing
#include "compound_sparse/io/binary_csr.hpp"
#include "compound_sparse/io/harwell_boeing.hpp"
#include "compound_sparse/io/matrix_market.hpp"
#include "compound_sparse/layouts/reordering.hpp"  // reverse_cuthill_mckee, permuted (--only NAME-rcm)
#include "compound_sparse/zoo/circuit.hpp"
#include "compound_sparse/zoo/connection_laplacian.hpp"
#include "compound_sparse/zoo/dirac.hpp"
#include "compound_sparse/zoo/elasticity.hpp"
#include "compound_sparse/zoo/helmholtz.hpp"
#include "compound_sparse/zoo/rigid_links.hpp"
#include "compound_sparse/zoo/rmat.hpp"
#include "compound_sparse/zoo/row_statistics.hpp"
#include "compound_sparse/zoo/tet_mesh.hpp"
#include "compound_sparse/zoo/triangle_mesh.hpp"

namespace cs = compound_sparse;
namespace zoo = compound_sparse::zoo;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

struct Options {
  fs::path out;
  std::string scale = "small";
  fs::path meshes = COMPOUND_ZOO_DEFAULT_MESHES;
  fs::path mhd1280b = COMPOUND_ZOO_DEFAULT_MHD1280B;
  std::set<std::string> only;
  std::string format;  // --format mtx|binary; default mtx, binary for the xl scale
};

/// One matrix of the zoo: how to make it. `available` is false when an optional
/// input of the small set is absent (the reason is printed, the matrix left out).
struct Recipe {
  std::string name;
  std::string matrix_class;  // complex | quaternion | block3
  std::string structure;     // grid | mesh | irregular (docs/zoo.md)
  std::string source;        // what it is made from, for index.json
  std::function<Json(const Recipe&, const fs::path&)> build;
  std::string missing;  // non-empty: why this matrix cannot be built here
  bool binary = false;  // written as binary CSR (io/binary_csr.hpp) instead of Matrix Market: the xl scale
  bool rcm = false;     // reordered by reverse Cuthill-McKee before it is written (--only NAME-rcm)
};

/// The suffix of a matrix's name that asks for it reordered (--only NAME-rcm).
constexpr const char* rcm_suffix = "-rcm";

Json quartiles_json(const zoo::Quartiles& q) {
  return {{"min", q.min}, {"q1", q.q1}, {"median", q.median}, {"q3", q.q3}, {"max", q.max}};
}

template <class Entry>
Json write_matrix(const Recipe& r, const fs::path& dir, const cs::HostCsr<Entry>& made, cs::io::Symmetry symmetry) {
  // P A Pᵀ keeps a symmetric matrix symmetric, so the Matrix Market symmetry still holds.
  cs::HostCsr<Entry> reordered;
  if (r.rcm) {
    std::cerr << "  reordering by reverse Cuthill-McKee\n";
    reordered = cs::permuted(made, cs::reverse_cuthill_mckee(made));
  }
  const cs::HostCsr<Entry>& a = r.rcm ? reordered : made;
  const std::string file = r.name + (r.binary ? ".csrb" : ".mtx");
  std::cerr << "  writing " << file << " (" << a.num_rows << " rows, " << a.num_entries() << " non-zeros)\n";
  if (r.binary)  // every entry stored, whatever the symmetry (index.json still names it)
    cs::io::write_binary_csr((dir / file).string(), a);
  else
    cs::io::write_matrix_market((dir / file).string(), a, symmetry,
                                "CompoundSparse matrix zoo: " + r.name + "\n" + r.source);
  const auto stats = zoo::row_statistics(a);
  return {{"name", r.name},
          {"class", r.matrix_class},
          {"structure", r.structure},
          {"file", file},
          {"field", cs::io::mm_field<Entry>::name()},
          {"symmetry", cs::io::to_string(symmetry)},
          {"rows", a.num_rows},
          {"columns", a.num_cols},
          {"nonzeros", static_cast<long long>(a.num_entries())},
          {"nonzeros_per_row", quartiles_json(stats.nnz_per_row)},
          {"bandwidth_per_row", quartiles_json(stats.bandwidth_per_row)},
          {"source", r.source}};
}

// ---- complex ----------------------------------------------------------------

Recipe mhd1280b(const Options& o) {
  Recipe r{"mhd1280b",
           "complex",
           "mesh",
           "Harwell-Boeing mhd1280b.cua (Alfven spectra in MHD, Anasazi test matrices)",
           [o](const Recipe& self, const fs::path& dir) {
             const auto a = cs::io::read_harwell_boeing<Kokkos::complex<double>>(o.mhd1280b.string());
             return write_matrix(self, dir, a, cs::io::Symmetry::general);
           },
           ""};
  if (!fs::exists(o.mhd1280b))
    r.missing = o.mhd1280b.string() + " not found (scripts/fetch_trilinos_source.sh extracts it; or --mhd1280b FILE)";
  return r;
}

Recipe helmholtz(const std::string& name, const std::string& shape, int n, int nz, double k) {
  std::ostringstream source;
  source << "Helmholtz P1 FEM, impedance boundary, wavenumber k = " << k << ", " << shape << " mesh " << n << "x" << n
         << "x" << nz;
  return {name,
          "complex",
          "grid",
          source.str(),
          [shape, n, nz, k](const Recipe& self, const fs::path& dir) {
            const auto mesh = shape == "box" ? zoo::box_mesh(n, n, nz) : zoo::cylinder_mesh(n, nz);
            std::cerr << "  mesh: " << mesh.points.size() << " points, " << mesh.tets.size() << " tetrahedra\n";
            return write_matrix(self, dir, zoo::helmholtz_matrix(mesh, k), cs::io::Symmetry::symmetric);
          },
          ""};
}

// ---- quaternion ---------------------------------------------------------------

/// A smooth, deterministic curvature change per face: rho = sin(2 pi h), with h the
/// face centroid's height in [0, 1] over the mesh's bounding box.
std::vector<double> height_rho(const zoo::TriangleMesh& m) {
  double lo = 1e300, hi = -1e300;
  for (const auto& p : m.vertices) lo = std::min(lo, p[2]), hi = std::max(hi, p[2]);
  const double pi = std::acos(-1.0);
  std::vector<double> rho;
  rho.reserve(m.triangles.size());
  for (const auto& t : m.triangles) {
    const double z = (m.vertices[t[0]][2] + m.vertices[t[1]][2] + m.vertices[t[2]][2]) / 3;
    rho.push_back(std::sin(2 * pi * (hi > lo ? (z - lo) / (hi - lo) : 0.0)));
  }
  return rho;
}

Json write_dirac(const Recipe& self, const fs::path& dir, zoo::TriangleMesh mesh, int levels) {
  mesh = zoo::clean_mesh(mesh);
  for (int l = 0; l < levels; ++l) mesh = zoo::loop_subdivide(mesh);
  std::cerr << "  surface: " << mesh.vertices.size() << " vertices, " << mesh.triangles.size() << " triangles\n";
  return write_matrix(self, dir, zoo::dirac_operator(mesh, height_rho(mesh)), cs::io::Symmetry::hermitian);
}

Recipe dirac_obj(const Options& o, const std::string& name, const std::string& obj, int levels) {
  const fs::path path = o.meshes / obj;
  Recipe r{name,
           "quaternion",
           "mesh",
           "Dirac operator (Crane, Pinkall, Schroeder 2011), rho = sin(2 pi height), mesh " + obj + ", " +
               std::to_string(levels) + " Loop subdivision step(s)",
           [path, levels](const Recipe& self, const fs::path& dir) {
             return write_dirac(self, dir, zoo::read_obj(path.string()), levels);
           },
           ""};
  if (!fs::exists(path)) r.missing = path.string() + " not found (--meshes DIR)";
  return r;
}

Recipe dirac_torus(const std::string& name, int n_major, int n_minor, int levels) {
  return {name,
          "quaternion",
          "grid",
          "Dirac operator (Crane, Pinkall, Schroeder 2011), rho = sin(2 pi height), generated torus " +
              std::to_string(n_major) + "x" + std::to_string(n_minor) + ", " + std::to_string(levels) +
              " Loop subdivision step(s)",
          [=](const Recipe& self, const fs::path& dir) {
            return write_dirac(self, dir, zoo::torus_mesh(n_major, n_minor), levels);
          },
          ""};
}

// ---- 3x3 blocks ---------------------------------------------------------------

/// Steel-like ratio (E = 1, nu = 0.3), clamped where z is within 1e-9 of the minimum.
Json write_elasticity(const Recipe& self, const fs::path& dir, const zoo::TetMesh& mesh) {
  std::cerr << "  mesh: " << mesh.points.size() << " points, " << mesh.tets.size() << " tetrahedra\n";
  const auto lame = zoo::lame_parameters(1.0, 0.3);
  auto k = zoo::elasticity_matrix(mesh, lame.first, lame.second);
  double zmin = 1e300;
  for (const auto& p : mesh.points) zmin = std::min(zmin, p[2]);
  std::vector<char> fixed(mesh.points.size(), 0);
  for (std::size_t i = 0; i < fixed.size(); ++i) fixed[i] = mesh.points[i][2] <= zmin + 1e-9;
  zoo::apply_dirichlet(k, fixed);
  return write_matrix(self, dir, k, cs::io::Symmetry::symmetric);
}

Recipe elasticity(const std::string& name, const std::string& shape, int n, int nz) {
  std::ostringstream source;
  source << "linear elasticity P1, E = 1, nu = 0.3, clamped bottom, " << shape << " mesh " << n << "x" << n << "x"
         << nz;
  return {name,
          "block3",
          "grid",
          source.str(),
          [shape, n, nz](const Recipe& self, const fs::path& dir) {
            const auto mesh = shape == "box"       ? zoo::box_mesh(n, n, nz)
                              : shape == "l-shape" ? zoo::l_shape_mesh(n, nz)
                                                   : zoo::cylinder_mesh(n, nz);
            return write_elasticity(self, dir, mesh);
          },
          ""};
}

Recipe elasticity_tetgen(const Options& o, const std::string& name, const std::string& obj, double max_volume) {
  const fs::path path = o.meshes / obj;
  std::ostringstream source;
  source << "linear elasticity P1, E = 1, nu = 0.3, clamped bottom, TetGen -pq1.4a" << max_volume << " inside mesh "
         << obj << " (scaled to unit bounding-box diagonal)";
  Recipe r{name,
           "block3",
           "mesh",
           source.str(),
           [path, max_volume](const Recipe& self, const fs::path& dir) {
             auto surface = zoo::clean_mesh(zoo::read_obj(path.string()));
             COMPOUND_SPARSE_REQUIRE(zoo::count_boundary_edges(surface) == 0, path << " is not a closed surface");
             // Unit bounding-box diagonal, so that max_volume means the same for every mesh.
             zoo::Point3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
             for (const auto& p : surface.vertices)
               for (int c = 0; c < 3; ++c) lo[c] = std::min(lo[c], p[c]), hi[c] = std::max(hi[c], p[c]);
             const double diag = std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                           (hi[2] - lo[2]) * (hi[2] - lo[2]));
             for (auto& p : surface.vertices)
               for (int c = 0; c < 3; ++c) p[c] = (p[c] - lo[c]) / diag;
             const fs::path work = dir / (".tetgen-" + self.name);
             fs::create_directories(work);
             const auto mesh = zoo::tetgen_mesh(surface, max_volume, work.string());
             fs::remove_all(work);
             return write_elasticity(self, dir, mesh);
           },
           ""};
  if (!fs::exists(path)) r.missing = path.string() + " not found (--meshes DIR)";
  return r;
}

// ---- irregular: power-law rows, hubs, dense rows and columns -----------------

/// Seeds: fixed, one per generator, so that every scale draws its own matrix but the
/// same one on every run and platform (docs/zoo.md).
constexpr std::uint32_t kCircuitSeed = 14, kRmatSeed = 1401, kConnectionSeed = 1402;

Recipe circuit(const std::string& name, int n) {
  return {name,
          "complex",
          "irregular",
          "circuit-like: " + std::to_string(n) +
              " nodes, power-law row lengths (d^-3.5, 3..2000 off-diagonals), 8 supply/ground nets reaching "
              "min(n/4, 48 sqrt(n)) .. 4 sqrt(n) nodes, dominant diagonal, seed " +
              std::to_string(kCircuitSeed),
          [n](const Recipe& self, const fs::path& dir) {
            return write_matrix(self, dir, zoo::circuit_matrix(n, kCircuitSeed), cs::io::Symmetry::general);
          },
          ""};
}

Recipe rmat(const std::string& name, int scale, int edge_factor) {
  return {name,
          "complex",
          "irregular",
          "R-MAT scale " + std::to_string(scale) + ", edge factor " + std::to_string(edge_factor) +
              ", a,b,c,d = 0.57,0.19,0.19,0.05, vertices permuted, duplicates merged, dominant diagonal, seed " +
              std::to_string(kRmatSeed),
          [scale, edge_factor](const Recipe& self, const fs::path& dir) {
            return write_matrix(self, dir, zoo::rmat_matrix(scale, edge_factor, kRmatSeed), cs::io::Symmetry::general);
          },
          ""};
}

Recipe connection_laplacian(const std::string& name, int n, int m) {
  return {name,
          "quaternion",
          "irregular",
          "quaternionic connection Laplacian D - W, W_ij = w_ij q_ij (unit q_ij), on a Barabasi-Albert graph of " +
              std::to_string(n) + " vertices, m = " + std::to_string(m) + ", with 4 hubs linked to n/4 .. n/32, seed " +
              std::to_string(kConnectionSeed),
          [n, m](const Recipe& self, const fs::path& dir) {
            return write_matrix(self, dir, zoo::hub_connection_laplacian(n, m, kConnectionSeed),
                                cs::io::Symmetry::hermitian);
          },
          ""};
}

Recipe rigid_links(const std::string& name, int n, double cap_fraction) {
  std::ostringstream source;
  source << "linear elasticity P1, E = 1, nu = 0.3, clamped bottom, box mesh " << n << "x" << n << "x" << n
         << ", penalty rigid links (RBE2): the top " << cap_fraction * 100 << "% of the layers as one rigid cap, "
         << "four side patches";
  return {name,
          "block3",
          "irregular",
          source.str(),
          [n, cap_fraction](const Recipe& self, const fs::path& dir) {
            return write_matrix(self, dir, zoo::rigid_link_elasticity(n, cap_fraction), cs::io::Symmetry::symmetric);
          },
          ""};
}

std::vector<Recipe> standard_zoo(const Options& o) {
  if (o.scale == "small")
    return {mhd1280b(o), helmholtz("helmholtz-box-small", "box", 8, 8, 5.0),
            helmholtz("helmholtz-cylinder-small", "cylinder", 8, 8, 3.0), dirac_torus("dirac-torus-small", 24, 12, 1),
            dirac_obj(o, "dirac-woody", "woody.obj", 0), elasticity("elasticity-box-small", "box", 6, 6),
            elasticity("elasticity-lshape-small", "l-shape", 8, 4),
            elasticity("elasticity-cylinder-small", "cylinder", 8, 8), circuit("circuit-small", 32768),
            rmat("rmat-small", 15, 4), connection_laplacian("connection-hubs-small", 32768, 3),
            // A cap of 89%: at 45% (the full set's) max/median >= 1000 would take 42,875
            // rows and twice the time (docs/zoo.md).
            rigid_links("elasticity-rigid-small", 26, 0.89)};
  return {mhd1280b(o),
          helmholtz("helmholtz-box-k10", "box", 32, 32, 10.0),
          helmholtz("helmholtz-cylinder-k15", "cylinder", 48, 48, 15.0),
          helmholtz("helmholtz-box-k40", "box", 68, 68, 40.0),
          dirac_obj(o, "dirac-spot-l1", "spot.obj", 1),
          dirac_obj(o, "dirac-bunny", "stanford-bunny.obj", 0),
          dirac_obj(o, "dirac-bunny-l1", "stanford-bunny.obj", 1),
          dirac_obj(o, "dirac-bunny-l2", "stanford-bunny.obj", 2),
          elasticity("elasticity-box", "box", 10, 10),
          elasticity_tetgen(o, "elasticity-spot", "spot.obj", 2e-5),
          elasticity("elasticity-lshape", "l-shape", 32, 16),
          elasticity("elasticity-cylinder", "cylinder", 28, 40),
          elasticity("elasticity-box-large", "box", 40, 40),
          circuit("circuit-1m", 1 << 20),
          rmat("rmat-s20", 20, 4),
          connection_laplacian("connection-hubs-512k", 1 << 19, 3),
          rigid_links("elasticity-rigid-44", 44, 0.45)};
}

/// The tuning set: the full set plus matrices of the same families at the sizes in
/// between and beyond, so that leave-one-out selection (docs/tuning.md) always has a
/// relative of similar size and shape. Sizes roughly double from one to the next.
std::vector<Recipe> tuning_zoo(const Options& o) {
  auto recipes = standard_zoo(o);
  const std::vector<Recipe> more = {helmholtz("helmholtz-box-k3", "box", 10, 10, 3.0),  // 1,331 rows: mhd1280b's size
                                    helmholtz("helmholtz-box-k5", "box", 16, 16, 5.0),
                                    helmholtz("helmholtz-cylinder-k8", "cylinder", 22, 22, 8.0),
                                    helmholtz("helmholtz-box-k20", "box", 44, 44, 20.0),
                                    helmholtz("helmholtz-cylinder-k30", "cylinder", 60, 60, 30.0),
                                    dirac_obj(o, "dirac-spot", "spot.obj", 0),
                                    dirac_obj(o, "dirac-spot-l2", "spot.obj", 2),
                                    dirac_obj(o, "dirac-woody-l2", "woody.obj", 2),
                                    dirac_torus("dirac-torus-l1", 320, 160, 1),
                                    elasticity("elasticity-box-16", "box", 16, 16),
                                    elasticity("elasticity-box-28", "box", 28, 28),
                                    elasticity("elasticity-lshape-small", "l-shape", 16, 8),
                                    elasticity("elasticity-cylinder-large", "cylinder", 36, 64),
                                    elasticity("elasticity-box-52", "box", 52, 52)};
  recipes.insert(recipes.end(), more.begin(), more.end());
  // Unstructured relatives of elasticity-spot (about 1.9x and 3.2x its rows): the
  // structured grids prefer another kernel for it (docs/tuning.md).
  recipes.push_back(elasticity_tetgen(o, "elasticity-spot-mid", "spot.obj", 1.5e-6));
  recipes.push_back(elasticity_tetgen(o, "elasticity-spot-fine", "spot.obj", 5e-7));
  // The irregular family's relatives at about half the size: the grids and meshes
  // are no neighbours for power-law rows (docs/zoo.md).
  for (auto&& r :
       {circuit("circuit-512k", 1 << 19), rmat("rmat-s19", 19, 4),
        connection_laplacian("connection-hubs-256k", 1 << 18, 3), rigid_links("elasticity-rigid-34", 34, 0.45)})
    recipes.push_back(r);
  return recipes;
}

/// The unseen set (docs/zoo.md): the tuning set's families at sizes and parameters that
/// none of its matrices has (other wave numbers, subdivision levels, grids, graph sizes
/// and edge factors), for judging selection on matrices the database never saw
/// (compound-tune --check-selection). One is larger than any tuning matrix of its
/// family (helmholtz-box-k50), so selection also extrapolates.
std::vector<Recipe> unseen_zoo(const Options& o) {
  return {helmholtz("helmholtz-box-k14", "box", 24, 24, 14.0),
          helmholtz("helmholtz-cylinder-k22", "cylinder", 40, 40, 22.0),
          helmholtz("helmholtz-box-k50", "box", 80, 80, 50.0),
          dirac_obj(o, "dirac-woody-l1", "woody.obj", 1),
          dirac_obj(o, "dirac-spot-l3", "spot.obj", 3),
          dirac_torus("dirac-torus-mid", 224, 112, 1),
          elasticity("elasticity-box-36", "box", 36, 36),
          elasticity("elasticity-lshape-24", "l-shape", 24, 12),
          elasticity("elasticity-cylinder-mid", "cylinder", 20, 30),
          circuit("circuit-256k", 1 << 18),
          rmat("rmat-s18-e8", 18, 8),
          connection_laplacian("connection-hubs-1m", 1 << 20, 3),
          rigid_links("elasticity-rigid-38", 38, 0.45)};
}

/// The xl set (docs/zoo.md): per class one grid and one irregular matrix of 50M+
/// compound non-zeros, so that launch and L2 effects no longer count, written as
/// binary CSR (Matrix Market text of these would be 5-16 GB each). Sizes: the full
/// set's recipes scaled up, from their measured non-zeros per row.
std::vector<Recipe> xl_zoo() {
  const std::vector<Recipe> recipes = {
      helmholtz("helmholtz-box-xl", "box", 160, 160, 94.0),    // 161^3 rows x 14.7: 61M; k / n as in k40
      circuit("circuit-10m", 10000000),                        // 5.4 per row: 54M
      dirac_torus("dirac-torus-xl", 1920, 960, 1),             // 1920 x 960 x 4 faces x 7: 52M
      connection_laplacian("connection-hubs-8m", 1 << 23, 3),  // 8 per row: 67M
      elasticity("elasticity-box-xl", "box", 152, 152),        // 153^3 rows x 14.6: 52M
      rigid_links("elasticity-rigid-xl", 152, 0.45)};          // the same grid, a rigid cap: 52M+
  return recipes;
}

/// The xl set's grids with twice the rows (the weak scaling of docs/scaling.md): the boxes
/// twice as tall (n x n x (2n + 1) cubes: 2 (n + 1)^2 (n + 1) points), the torus twice as long.
std::vector<Recipe> xl2_zoo() {
  return {helmholtz("helmholtz-box-xl2", "box", 160, 321, 94.0),  // 161^2 x 322 rows x 14.7: 123M
          dirac_torus("dirac-torus-xl2", 3840, 960, 1),           // 104M
          elasticity("elasticity-box-xl2", "box", 152, 305)};     // 153^2 x 306 rows x 14.6: 105M
}

/// The xl grids with four times the rows, for weak scaling to four GPUs: the boxes four
/// times as tall (n x n x (4n + 3) cubes), the torus four times as long. Assembling
/// elasticity-box-xl4 holds about 100 GB of element blocks on the host.
std::vector<Recipe> xl4_zoo() {
  return {helmholtz("helmholtz-box-xl4", "box", 160, 643, 94.0),  // 161^2 x 644 rows x 14.7: 245M
          dirac_torus("dirac-torus-xl4", 7680, 960, 1),           // 206M
          elasticity("elasticity-box-xl4", "box", 152, 611)};     // 153^2 x 612 rows x 14.6: 209M
}

/// The index's "format", from --format.
std::string format_text(const Options& o) {
  return o.format == "binary" ? "binary CSR (compound_sparse/io/binary_csr.hpp; docs/zoo.md)"
                              : "Matrix Market, CompoundSparse compound fields (docs/zoo.md)";
}

/// The index.json already at `path`, or null when there is none. One this run cannot add to
/// throws, naming the file and why: a corrupt one (replacing it would drop the matrices it
/// lists, whose files stay) or another scale's or format's (the header would be wrong for some).
Json existing_index(const fs::path& path, const Options& o) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return nullptr;
  const std::string where = "zoo index " + path.string();
  const std::string refusal = "; not adding to it (move it away or give another --out)";
  std::ifstream in(path, std::ios::binary);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, in && !fs::is_directory(path, ec), "cannot read " << where << refusal);
  Json index;
  try {
    index = Json::parse(in);
  } catch (const std::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false,
                                 where << " is not valid JSON (truncated or corrupt?): " << e.what() << refusal);
  }
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, index.is_object() && index.contains("matrices") && index["matrices"].is_array(),
                               where << " has no \"matrices\" list" << refusal);
  for (const char* list : {"matrices", "skipped"}) {
    if (!index.contains(list)) continue;
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, index[list].is_array(),
                                 where << ": \"" << list << "\" is not a list" << refusal);
    for (std::size_t i = 0; i < index[list].size(); ++i) {
      const Json& m = index[list][i];
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, m.is_object() && m.contains("name") && m["name"].is_string(),
                                   where << ": " << (std::string(list) == "matrices" ? "matrix" : "skipped entry")
                                         << " #" << i + 1 << " has no string \"name\"" << refusal);
    }
  }
  const auto header = [&](const char* field) {
    return index.contains(field) && index[field].is_string() ? index[field].get<std::string>() : std::string();
  };
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, header("scale").empty() || header("scale") == o.scale,
                               where << " is a zoo of --scale " << header("scale") << ", not " << o.scale
                                     << ": give another --out, or the same --scale");
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, header("format").empty() || header("format") == format_text(o),
                               where << " holds files of another --format (\"" << header("format") << "\"), not "
                                     << o.format << ": give another --out, or the same --format");
  return index;
}

/// An exclusive flock on `path` (created if absent) until destruction: two compound-zoo runs
/// into one directory each merge into the index the other wrote. A sidecar file, because
/// index.json itself is replaced by rename.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, fd_ >= 0,
                                 "cannot open lock file " << path.string() << ": " << std::strerror(errno));
    int rc;
    do rc = ::flock(fd_, LOCK_EX);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int error = errno;
      ::close(fd_);
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, "cannot lock " << path.string() << ": " << std::strerror(error));
    }
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

/// Writes index.json into `dir` with this run's matrices merged into the index already there
/// (read again under the lock): a regenerated name's entry is replaced in its place, a new
/// one appended, the others kept. Written to a temporary file in `dir`, then renamed over
/// index.json, so a reader never sees half of it. Returns the number of matrices it lists.
std::size_t write_index(const fs::path& dir, const Options& o, const Json& matrices, const Json& skipped) {
  const fs::path path = dir / "index.json";
  const FileLock lock(dir / "index.json.lock");
  const Json before = existing_index(path, o);
  Json merged = Json::array();
  std::set<std::string> placed;
  if (!before.is_null())
    for (const auto& old : before["matrices"]) {
      const std::string name = old["name"].get<std::string>();
      const auto now = std::find_if(matrices.begin(), matrices.end(), [&](const Json& m) { return m["name"] == name; });
      merged.push_back(now != matrices.end() ? *now : old);
      if (now != matrices.end()) placed.insert(name);
    }
  for (const auto& m : matrices)
    if (!placed.count(m["name"].get<std::string>())) merged.push_back(m);
  // A skip is kept only for a matrix the index does not list (one listed keeps its entry, and
  // its file, which this run left alone); this run's replaces an earlier one of the same name.
  std::set<std::string> listed, skipped_now;
  for (const auto& m : merged) listed.insert(m["name"].get<std::string>());
  Json skips = Json::array();
  for (const auto& m : skipped) {
    skipped_now.insert(m["name"].get<std::string>());
    if (!listed.count(m["name"].get<std::string>())) skips.push_back(m);
  }
  if (!before.is_null() && before.contains("skipped"))
    for (const auto& old : before["skipped"]) {
      const std::string name = old["name"].get<std::string>();
      if (!listed.count(name) && !skipped_now.count(name)) skips.push_back(old);
    }
  const Json index = {{"generator", "compound-zoo"},
                      {"scale", o.scale},
                      {"format", format_text(o)},
                      {"matrices", merged},
                      {"skipped", skips}};
  const fs::path temporary = dir / (".index.json." + std::to_string(::getpid()) + ".tmp");
  {
    std::ofstream file(temporary);
    file << index.dump(2) << "\n";
    file.close();
    if (!file) {
      std::error_code ec;
      fs::remove(temporary, ec);
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, "writing " << temporary.string() << " failed");
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, "replacing " << path.string() << " failed: " << ec.message());
  }
  return merged.size();
}

/// The usage on `out`; returns `code` (0 when asked for with --help, else 2).
int usage(const char* argv0, std::ostream& out = std::cerr, int code = 2) {
  out << "usage: " << argv0
      << " --out DIR [--scale small|full|tune|unseen|xl|xl2|xl4] [--format mtx|binary] [--meshes DIR] [--mhd1280b "
         "FILE]\n"
         "       [--only NAME[,NAME...]]   (NAME-rcm: NAME in reverse Cuthill-McKee order)\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const compound_tools::OptionSetters setters = {
      {"--out", [&](const std::string& v) { o.out = v; }},
      {"--scale",
       [&](const std::string& v) {
         o.scale = compound_tools::one_of(v, {"small", "full", "tune", "unseen", "xl", "xl2", "xl4"});
       }},
      {"--format",
       [&](const std::string& v) {
         o.format = compound_tools::one_of(v, {"mtx", "binary"});
       }},
      // A path given by hand must be there: the defaults may be absent (the small set skips
      // what they would give), but a typo here would only turn into skipped matrices.
      {"--meshes",
       [&](const std::string& v) {
         if (!fs::is_directory(v)) throw std::invalid_argument(fs::exists(v) ? "not a directory" : "no such directory");
         o.meshes = v;
       }},
      {"--mhd1280b",
       [&](const std::string& v) {
         if (!fs::is_regular_file(v)) throw std::invalid_argument(fs::exists(v) ? "not a file" : "no such file");
         o.mhd1280b = v;
       }},
      {"--only", [&](const std::string& v) {
         for (const auto& name : compound_tools::split_list(v)) o.only.insert(name);
       }}};
  if (compound_tools::wants_help(argc, argv)) return usage(argv[0], std::cout, 0);  // asked for: not an error
  std::string problem = compound_tools::parse_options(argc, argv, setters);
  if (problem.empty() && o.out.empty()) problem = "--out is required";
  const bool xl = o.scale == "xl" || o.scale == "xl2" || o.scale == "xl4";
  if (problem.empty() && xl && o.format == "mtx")
    problem =
        "--scale " + o.scale + " is written as binary CSR only (Matrix Market text of it would be 5-30 GB per matrix)";
  if (o.format.empty()) o.format = xl ? "binary" : "mtx";
  if (!problem.empty()) {
    std::cerr << "compound-zoo: " << problem << "\n";
    return usage(argv[0]);
  }
  try {
    auto recipes = o.scale == "tune"     ? tuning_zoo(o)
                   : o.scale == "unseen" ? unseen_zoo(o)
                   : o.scale == "xl"     ? xl_zoo()
                   : o.scale == "xl2"    ? xl2_zoo()
                   : o.scale == "xl4"    ? xl4_zoo()
                                         : standard_zoo(o);
    for (auto& r : recipes) r.binary = o.format == "binary";
    // --only NAME-rcm: the recipe of NAME, reordered, under the longer name; a name of
    // neither kind stops here, listing the scale's matrices.
    const auto recipe_named = [&recipes](const std::string& name) {
      return std::find_if(recipes.begin(), recipes.end(), [&](const Recipe& r) { return r.name == name; });
    };
    const std::string suffix = rcm_suffix;
    std::set<std::string> unknown;
    for (const auto& name : o.only) {
      if (recipe_named(name) != recipes.end()) continue;
      const bool reordered_name =
          name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
      const auto base = reordered_name ? recipe_named(name.substr(0, name.size() - suffix.size())) : recipes.end();
      if (base == recipes.end()) {
        unknown.insert(name);
        continue;
      }
      Recipe reordered = *base;  // copied before push_back moves the recipes
      reordered.name = name;
      reordered.rcm = true;
      reordered.source += ", reordered by reverse Cuthill-McKee";
      recipes.push_back(reordered);
    }
    if (!unknown.empty()) {
      std::ostringstream why;
      why << "--only names no matrix of --scale " << o.scale << ":";
      for (const auto& name : unknown) why << " " << name;
      why << " (its matrices:";
      for (const auto& r : recipes)
        if (!r.rcm) why << " " << r.name;
      why << "; any of them with " << suffix << " for its reverse Cuthill-McKee order)";
      throw cs::InvalidInput(why.str(), __FILE__, __LINE__);
    }
    // Before any work: an index.json already in --out that this run cannot add to, and
    // matrices that cannot be built. The full sets must be complete, and a matrix --only
    // asks for is wanted, not skipped; the whole small set tolerates absent optional inputs.
    existing_index(o.out / "index.json", o);
    std::ostringstream absent;
    for (const auto& r : recipes)
      if (!r.missing.empty() && (o.only.empty() || o.only.count(r.name)))
        absent << (absent.tellp() ? "; " : "") << r.name << ": " << r.missing;
    if (absent.tellp() && (o.scale != "small" || !o.only.empty()))
      throw cs::IoError((o.only.empty() ? "--scale " + o.scale + " needs every input: "
                                        : std::string("--only asks for matrices whose input is absent: ")) +
                            absent.str(),
                        __FILE__, __LINE__);
    fs::create_directories(o.out);
    Json matrices = Json::array(), skipped = Json::array();
    const auto start = std::chrono::steady_clock::now();
    int done = 0;
    for (const auto& r : recipes) {
      ++done;
      if (!o.only.empty() && !o.only.count(r.name)) continue;
      std::cerr << "[" << done << "/" << recipes.size() << "] " << r.name << " (" << r.matrix_class << ")\n";
      if (!r.missing.empty()) {  // the whole small set only (checked above)
        std::cerr << "  skipped: " << r.missing << "\n";
        skipped.push_back({{"name", r.name}, {"reason", r.missing}});
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      try {
        matrices.push_back(r.build(r, o.out));
      } catch (const std::bad_alloc&) {
        // Assembly holds every element's blocks before summing them: elasticity-box-xl's
        // 21M tetrahedra give 337M blocks of 80 bytes (27 GB) at once (docs/zoo.md).
        throw cs::BudgetExceeded(r.name +
                                     ": out of host memory while generating it (elasticity-box-xl alone "
                                     "assembles 27 GB of element blocks; docs/zoo.md)",
                                 __FILE__, __LINE__);
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cerr << "  done in " << seconds << " s\n";
    }
    const std::size_t listed = write_index(o.out, o, matrices, skipped);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "wrote " << matrices.size() << " matrices and index.json (" << listed << " matrices) to " << o.out
              << " in " << total << " s\n";
  } catch (const std::exception& e) {
    std::cerr << "compound-zoo: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
