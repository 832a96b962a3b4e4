// libFuzzer target for the file parsers: Matrix Market (real, complex, quaternion,
// block3 entries), Harwell-Boeing (real, complex) and OBJ. The first input byte
// picks the parser (byte % 7; as text: '1' MM real, '2' MM complex, '3' MM
// quaternion, '4' MM block3, '5' HB complex, '6' HB real, '7' OBJ), the rest is
// the file (seeds: fuzz_corpus/). Every input must either parse or throw
// compound_sparse::Error; anything else (crash, sanitizer report, other exception)
// is a bug. A parsed Matrix Market matrix must also survive a write/read round
// trip bit for bit.
//
// Built with COMPOUND_SPARSE_FUZZ_REPLAY it is a plain program that feeds the files
// named on its command line through the same function (the ctest corpus replay).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "compound_sparse/io/harwell_boeing.hpp"
#include "compound_sparse/io/matrix_market.hpp"
#include "compound_sparse/zoo/triangle_mesh.hpp"

namespace cs = compound_sparse;

namespace {

long rejected = 0;  // inputs rejected with compound_sparse::Error (reported by the replay)

template <class Entry>
void check_round_trip(const cs::HostCsr<Entry>& a) {
  if (a.num_entries() > 100000) return;
  std::ostringstream out;
  cs::io::write_matrix_market(out, a);
  std::istringstream in(out.str());
  const auto b = cs::io::read_matrix_market<Entry>(in, "round-trip");
  const bool same = a.num_rows == b.num_rows && a.num_cols == b.num_cols && a.row_offsets == b.row_offsets &&
                    a.col_indices == b.col_indices &&
                    (a.values.empty() ||  // memcmp must not see the null data() of empty vectors
                     std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(Entry)) == 0);
  if (!same) {
    std::cerr << "round trip changed the matrix:\n" << out.str();
    std::abort();
  }
}

template <class Entry>
void fuzz_matrix_market(const std::string& text) {
  std::istringstream in(text);
  check_round_trip(cs::io::read_matrix_market<Entry>(in, "fuzz.mtx"));
}

template <class Entry>
void fuzz_harwell_boeing(const std::string& text) {
  std::istringstream in(text);
  cs::validate(cs::io::read_harwell_boeing<Entry>(in, "fuzz.rua"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 7) {
      case 0:
        fuzz_matrix_market<double>(text);
        break;
      case 1:
        fuzz_matrix_market<Kokkos::complex<double>>(text);
        break;
      case 2:
        fuzz_matrix_market<cs::Quaternion<double>>(text);
        break;
      case 3:
        fuzz_matrix_market<cs::Block<double, 3>>(text);
        break;
      case 4:
        fuzz_harwell_boeing<Kokkos::complex<double>>(text);
        break;
      case 5:
        fuzz_harwell_boeing<double>(text);
        break;
      default: {
        std::istringstream in(text);
        cs::zoo::read_obj(in, "fuzz.obj");
      }
    }
  } catch (const cs::Error&) {
    ++rejected;  // rejected with a reason: fine
  }
  return 0;
}

#ifdef COMPOUND_SPARSE_FUZZ_REPLAY
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i], std::ios::binary);
    if (!file) {
      std::cerr << "cannot read " << argv[i] << "\n";
      return 1;
    }
    const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replayed " << argc - 1 << " inputs: " << argc - 1 - rejected << " parsed, " << rejected
            << " rejected with compound_sparse::Error\n";
  return argc > 1 ? 0 : 1;
}
#endif
