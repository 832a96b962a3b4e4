// Bad input raises compound_sparse::Error naming what is wrong, never a crash,
// and the error's class says which kind of failure it is (error.hpp).
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <compound_sparse/tuning/database.hpp>
#include <compound_sparse/variants/registry.hpp>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "error_helpers.hpp"
#include "test_matrices.hpp"
#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;
using compound_sparse_test::contains;
using compound_sparse_test::error_of_kind;

namespace {
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cs::Error& e) {
    return e.what();
  }
  return "no exception";
}

/// A small valid matrix and vectors through the registry, for the registry's errors.
struct RegistryCase {
  const cs::VariantRegistry<C>& registry = cs::variant_registry<C>();
  cs::HostCsr<C> host = compound_sparse_test::banded<C>(20, 3);
  cs::VariantRegistry<C>::vector_type x = registry.convert_vector("aos", std::vector<C>(20, C(1, 0)));
  cs::VariantRegistry<C>::vector_type y = registry.convert_vector("aos", std::vector<C>(20, C(0, 0)));
};
}  // namespace

TEST(Errors, SpmvRejectsMismatchedVectors) {
  std::mt19937 rng(1);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(compound_sparse_test::random_csr<C>(10, 7, 1, 3, -1, rng));
  const auto x_ok = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(7, rng));
  const auto x_bad = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(8, rng));
  const auto y_ok = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(10, rng));
  const auto y_bad = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(7, rng));
  const C one(1, 0), zero(0, 0);
  EXPECT_NE(error_of([&] {
              cs::spmv(cs::StaticSchedule{}, one, a, x_bad, zero, y_ok);
            }).find("x has 8 elements but A has 7 columns"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              cs::spmv(cs::StaticSchedule{}, one, a, x_ok, zero, y_bad);
            }).find("y has 7 elements but A has 10 rows"),
            std::string::npos);
  cs::StaticSchedule bad_lanes;
  bad_lanes.lanes_per_row = 3;
  EXPECT_NE(error_of([&] { cs::spmv(bad_lanes, one, a, x_ok, zero, y_ok); }).find("lanes_per_row must be"),
            std::string::npos);
  EXPECT_NO_THROW(cs::spmv(cs::StaticSchedule{}, one, a, x_ok, zero, y_ok));
}

TEST(Errors, ConversionRejectsInvalidCsr) {
  cs::HostCsr<C> a;
  a.num_rows = 2;
  a.num_cols = 2;
  a.row_offsets = {0, 1, 2};
  a.col_indices = {0, -1};
  a.values = {C(1, 0), C(1, 0)};
  EXPECT_NE(error_of([&] { cs::to_device<cs::SlicedEll<32>, cs::Soa>(a); }).find("column index -1 in row 1"),
            std::string::npos);
}

TEST(Errors, EllPaddingBeyondBudgetIsRefused) {
  std::mt19937 rng(2);
  // 2000 rows of <= 2 entries and one row of 2000: ELL pads everything to 2000.
  const auto a = compound_sparse_test::random_csr<C>(2000, 2000, 0, 2, 10, rng);
  const cs::MemoryBudget budget{10u << 20};  // 10 MiB
  const std::string message = error_of_kind<cs::BudgetExceeded>([&] { cs::to_device<cs::Ell, cs::Aos>(a, budget); });
  EXPECT_NE(message.find("ell layout"), std::string::npos) << message;
  EXPECT_NE(message.find("more than the memory budget of 10485760 bytes"), std::string::npos) << message;
  // CSR of the same matrix fits easily, and so does Sliced ELL (one wide slice).
  EXPECT_NO_THROW((cs::to_device<cs::Csr, cs::Aos>(a, budget)));
  EXPECT_NO_THROW((cs::to_device<cs::SlicedEll<32>, cs::Aos>(a, budget)));
}

TEST(Errors, EllBeyond32BitOffsetsIsRefusedBeforeAllocating) {
  // 100000 rows, one with 50000 entries: 5e9 ELL slots cannot be addressed.
  cs::HostCsr<C> a;
  a.num_rows = 100000;
  a.num_cols = 50000;
  a.row_offsets.assign(a.num_rows + 1, 0);
  for (int c = 0; c < 50000; ++c) {
    a.col_indices.push_back(c);
    a.values.push_back(C(1, 0));
  }
  for (int r = 1; r <= a.num_rows; ++r) a.row_offsets[r] = 50000;
  const std::string message = error_of_kind<cs::BudgetExceeded>([&] { cs::to_device<cs::Ell, cs::Soa>(a); });
  EXPECT_NE(message.find("more than 32-bit offsets can address"), std::string::npos) << message;
}

TEST(Errors, PaddingBeyondTheMemoryOfTheSpaceIsRefusedBeforeAllocating) {
  // No budget given: the memory the target space has is the bound. ELL of 2^21 rows,
  // one of them 1000 long, is 2.1e9 slots (within 32-bit offsets) of 4 + 128 bytes,
  // 277 GB: more than a GPU's or this host's memory.
  using B = cs::Block<double, 4>;
  using Space = Kokkos::DefaultExecutionSpace::memory_space;
  const auto a = compound_sparse_test::one_long_row(1 << 21, 1000, B{});
  const std::uint64_t bytes = cs::layout_memory_bytes<cs::Ell>(a);
  const std::size_t capacity = cs::memory_capacity_bytes<Space>();
  ASSERT_GT(capacity, 0u) << "the memory of " << Space::name() << " is not known";
  ASSERT_GT(bytes, capacity) << "this machine has enough memory for the padded layout: the test would allocate it";
  EXPECT_EQ(cs::layout_num_slots<cs::Ell>(a), 1000ull << 21);
  const std::string message = error_of_kind<cs::BudgetExceeded>([&] { cs::to_device<cs::Ell, cs::Aos>(a); });
  EXPECT_NE(message.find("ell layout of a 2097152 x 1000 matrix with 1000 entries needs " + std::to_string(bytes) +
                         " bytes (2097151000 padding slots, 2.09715e+06x the entries), more than the "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("bytes of memory of"), std::string::npos) << message;
  // CSR of the same matrix is small and converts.
  EXPECT_NO_THROW((cs::to_device<cs::Csr, cs::Aos>(a)));
  // The host's memory is known on every Linux machine.
  EXPECT_GT(cs::memory_capacity_bytes<Kokkos::HostSpace>(), std::size_t{1} << 28);
}

TEST(Errors, SpmvSizeMismatchIsInvalidInput) {
  std::mt19937 rng(3);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(compound_sparse_test::random_csr<C>(10, 7, 1, 3, -1, rng));
  const auto x_bad = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(8, rng));
  const auto y = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(10, rng));
  const C one(1, 0), zero(0, 0);
  EXPECT_THROW(cs::spmv(cs::StaticSchedule{}, one, a, x_bad, zero, y), cs::InvalidInput);
  const std::string message =
      error_of_kind<cs::InvalidInput>([&] { cs::spmv(cs::StaticSchedule{}, one, a, x_bad, zero, y); });
  EXPECT_TRUE(contains(message, "spmv: x has 8 elements but A has 7 columns")) << message;
}

TEST(Errors, MissingMatrixMarketFileIsIoError) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("compound_sparse_no_such_file_" + std::to_string(::getpid()) + ".mtx"))
          .string();
  EXPECT_THROW(cs::io::read_matrix_market<C>(path), cs::IoError);
  const std::string message = error_of_kind<cs::IoError>([&] { cs::io::read_matrix_market<C>(path); });
  EXPECT_TRUE(contains(message, "cannot open '" + path + "' for reading")) << message;
}

TEST(Errors, MalformedMatrixMarketFileIsIoErrorNamingFileAndLine) {
  const compound_sparse_test::ScratchDir dir("errors_malformed_mtx");
  dir.write("bad.mtx",
            "%%MatrixMarket matrix coordinate complex general\n"
            "% a comment\n"
            "2 2 1\n"
            "1 x 1 0\n");
  const std::string path = dir.str() + "/bad.mtx";
  try {
    cs::io::read_matrix_market<C>(path);
    ADD_FAILURE() << "no exception";
  } catch (const cs::IoError& e) {
    EXPECT_EQ(e.reason(), path + ":4: column index 'x' is not in [1, 2]");
    EXPECT_STREQ(e.kind(), "I/O");
    EXPECT_TRUE(contains(e.what(), "matrix_market.hpp:")) << e.what();
  }
}

TEST(Errors, UnreadableTuningDatabaseIsIoError) {
  const compound_sparse_test::ScratchDir dir("errors_tuning_db");
  dir.write("corrupt.json", "{\"schema_version\": 1, \"matrices\": [");
  const std::string corrupt = dir.str() + "/corrupt.json", missing = dir.str() + "/missing.json";
  const std::string message = error_of_kind<cs::IoError>([&] { cs::read_tuning_database(corrupt); });
  EXPECT_TRUE(contains(message, corrupt + " is not valid JSON")) << message;
  const std::string not_there = error_of_kind<cs::IoError>([&] { cs::read_tuning_database(missing); });
  EXPECT_TRUE(contains(not_there, "cannot open tuning database " + missing)) << not_there;
}

TEST(Errors, VariantOrLayoutMissingFromTheBuildIsNotCompiled) {
  const RegistryCase r;
  const auto a = r.registry.convert_matrix("csr", "aos", r.host);
  const C one(1, 0), zero(0, 0);
  const auto unknown = cs::parse_variant_key("csr.aos.aos.static.t999.b9.l1");
  EXPECT_THROW(r.registry.spmv(unknown, one, a, r.x, zero, r.y), cs::NotCompiled);
  const std::string message = error_of_kind<cs::NotCompiled>([&] { r.registry.spmv(unknown, one, a, r.x, zero, r.y); });
  EXPECT_TRUE(contains(message, "variant 'csr.aos.aos.static.t999.b9.l1' is not compiled into this build")) << message;
  const std::string layout = error_of_kind<cs::NotCompiled>([&] { r.registry.convert_matrix("csr", "zzz", r.host); });
  EXPECT_TRUE(contains(layout, "no matrix layout 'csr.zzz' is registered")) << layout;
  const std::string vector_layout =
      error_of_kind<cs::NotCompiled>([&] { r.registry.convert_vector("zzz", std::vector<C>(3)); });
  EXPECT_TRUE(contains(vector_layout, "no vector layout 'zzz' is registered")) << vector_layout;
  // Queued timing is compiled for CUDA only, never for a host execution space.
  EXPECT_THROW(cs::require_timing_mode<Kokkos::DefaultHostExecutionSpace>(cs::TimingMode::Queued, "test timing"),
               cs::NotCompiled);
}

TEST(Errors, CompiledVariantOnTheWrongLayoutIsInvalidInput) {
  // The same registry call as above with a compiled variant: now the caller's
  // matrix is at fault, not the build.
  const RegistryCase r;
  const cs::VariantKey key = r.registry.variants().front();
  const auto a = r.registry.convert_matrix(key.outer == "csr" ? "ell" : "csr", key.inner, r.host);
  const C one(1, 0), zero(0, 0);
  const std::string message = error_of_kind<cs::InvalidInput>([&] { r.registry.spmv(key, one, a, r.x, zero, r.y); });
  EXPECT_TRUE(contains(message, "needs the matrix in '" + key.layout_name() + "'")) << message;
}

TEST(Errors, DeviceErrorNamesItsKindAndLocation) {
  // A real DeviceError needs a failing CUDA runtime call (device_info.cpp,
  // tuning/impl/queued_timing.hpp), which no test can provoke on purpose, and none at all
  // without a GPU: this checks the class and the macro that those sites use.
  const cs::DeviceError direct("cudaGetDeviceProperties failed: no device", "device_info.cpp", 19);
  EXPECT_STREQ(direct.kind(), "device");
  EXPECT_EQ(direct.reason(), "cudaGetDeviceProperties failed: no device");
  EXPECT_STREQ(direct.what(), "compound_sparse: cudaGetDeviceProperties failed: no device [device_info.cpp:19]");
  const int line = __LINE__ + 1;  // the line of the macro below
  const auto fail = [](int code) { COMPOUND_SPARSE_REQUIRE_KIND(DeviceError, code == 0, "simulated status " << code); };
  try {
    fail(7);
    ADD_FAILURE() << "no exception";
  } catch (const cs::DeviceError& e) {
    EXPECT_EQ(e.reason(), "simulated status 7");
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("compound_sparse: simulated status 7 [", 0), 0u) << what;
    EXPECT_TRUE(contains(what, "test_errors.cpp:" + std::to_string(line) + "]")) << what;
  }
  EXPECT_NO_THROW(fail(0));
}

TEST(Errors, EveryKindIsCaughtAsError) {
  // One real failure per kind (DeviceError constructed, see above), each caught by
  // the base class as before the kinds existed, with its own kind() name.
  std::mt19937 rng(4);
  const auto host = compound_sparse_test::random_csr<C>(2000, 2000, 0, 2, 10, rng);
  const RegistryCase r;
  const std::vector<std::pair<std::function<void()>, std::string>> cases = {
      {[&] { cs::to_device<cs::Csr, cs::Aos>(host, cs::MemoryBudget{1000}); }, "budget exceeded"},
      {[&] { cs::io::read_matrix_market<C>("/nonexistent/compound_sparse/a.mtx"); }, "I/O"},
      {[&] { r.registry.convert_matrix("csr", "zzz", r.host); }, "not compiled"},
      {[&] { cs::parse_variant_key("csr.aos"); }, "invalid input"},
      {[] { throw cs::DeviceError("simulated", __FILE__, __LINE__); }, "device"},
  };
  for (const auto& [call, kind] : cases) {
    std::string caught = "no compound_sparse error";
    try {
      call();
    } catch (const cs::Error& e) {
      caught = e.kind();
      EXPECT_EQ(std::string(e.what()).rfind("compound_sparse: " + e.reason() + " [", 0), 0u) << e.what();
      // Still a std::runtime_error, as before the kinds.
      EXPECT_NE(dynamic_cast<const std::runtime_error*>(&e), nullptr);
    } catch (const std::exception&) {
    }
    EXPECT_EQ(caught, kind);
  }
}
