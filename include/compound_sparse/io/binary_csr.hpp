#pragma once
// The CompoundSparse binary CSR file (.csrb): a HostCsr as it lies in memory, for
// matrices too large for Matrix Market text. The zoo's xl scale holds matrices of
// 50M+ compound non-zeros: 5-16 GB of text each, written and parsed in minutes,
// against seconds for the same arrays in binary.
//
//   bytes  0-7    "CSRBIN1\n"
//          8-11   uint32: components per entry (2 complex, 4 quaternion, 9 3x3 block)
//          12-15  uint32: bytes per component, always 8 (components are stored as double)
//          16-23  int64: rows;  24-31 int64: columns;  32-39 int64: non-zeros
//   then          rows + 1 int32 row offsets, non-zeros int32 column indices,
//                 non-zeros x components doubles (an entry's components together)
//
// Little-endian throughout (the reader and writer refuse a big-endian host). The
// reader checks everything a corrupt or truncated file could break, before and
// after reading the arrays, and names the file and the reason in the exception
// (compound_sparse::IoError for the file, InvalidInput for its contents).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "../entries/components.hpp"
#include "../error.hpp"
#include "../layouts/host_csr.hpp"
#include "compound_format.hpp"
#include "text_input.hpp"

namespace compound_sparse {
namespace io {

namespace detail {
constexpr char binary_csr_magic[8] = {'C', 'S', 'R', 'B', 'I', 'N', '1', '\n'};
constexpr std::size_t binary_csr_header_bytes = 40;

inline bool little_endian_host() {
  const std::uint32_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

/// Reads `count` items of T from `in`; false if the file ends first.
template <class T>
bool read_items(std::istream& in, T* out, std::size_t count) {
  in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(count * sizeof(T)));
  return static_cast<std::size_t>(in.gcount()) == count * sizeof(T);
}
}  // namespace detail

/// Writes `a` to `path` in the binary CSR format above (components as double).
template <class Entry>
void write_binary_csr(const std::string& path, const HostCsr<Entry>& a) {
  using traits = component_traits<Entry>;
  validate(a);
  COMPOUND_SPARSE_REQUIRE(detail::little_endian_host(), "the binary CSR format is little-endian; this host is not");
  std::ofstream file(path, std::ios::binary);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, file, "cannot open '" << path << "' for writing");
  const std::uint32_t sizes[2] = {static_cast<std::uint32_t>(traits::size), 8};
  const std::int64_t shape[3] = {a.num_rows, a.num_cols, static_cast<std::int64_t>(a.num_entries())};
  file.write(detail::binary_csr_magic, sizeof detail::binary_csr_magic);
  file.write(reinterpret_cast<const char*>(sizes), sizeof sizes);
  file.write(reinterpret_cast<const char*>(shape), sizeof shape);
  file.write(reinterpret_cast<const char*>(a.row_offsets.data()),
             static_cast<std::streamsize>(a.row_offsets.size() * sizeof(int)));
  file.write(reinterpret_cast<const char*>(a.col_indices.data()),
             static_cast<std::streamsize>(a.col_indices.size() * sizeof(int)));
  // In blocks, so that a float matrix is widened without a second copy of it.
  std::vector<double> block;
  constexpr std::size_t entries_per_block = 1 << 16;
  for (std::size_t first = 0; first < a.values.size(); first += entries_per_block) {
    const std::size_t last = std::min(a.values.size(), first + entries_per_block);
    block.clear();
    for (std::size_t k = first; k < last; ++k)
      for (int c = 0; c < traits::size; ++c) block.push_back(static_cast<double>(traits::get(a.values[k], c)));
    file.write(reinterpret_cast<const char*>(block.data()),
               static_cast<std::streamsize>(block.size() * sizeof(double)));
  }
  file.close();
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, file, "writing '" << path << "' failed");
}

/// Reads a binary CSR file written by write_binary_csr into an Entry matrix; a float
/// entry type rounds the stored doubles (and refuses ones it cannot hold).
template <class Entry>
HostCsr<Entry> read_binary_csr(const std::string& path) {
  using traits = component_traits<Entry>;
  using scalar = typename traits::scalar_type;
  COMPOUND_SPARSE_REQUIRE(detail::little_endian_host(), "the binary CSR format is little-endian; this host is not");
  std::ifstream file = open_input(path);
  file.seekg(0, std::ios::end);
  const auto file_bytes = static_cast<std::uint64_t>(file.tellg());
  file.seekg(0);
  char magic[8] = {};
  std::uint32_t sizes[2] = {};
  std::int64_t shape[3] = {};
  COMPOUND_SPARSE_REQUIRE(
      detail::read_items(file, magic, 8) && std::memcmp(magic, detail::binary_csr_magic, sizeof magic) == 0,
      path << ": not a CompoundSparse binary CSR file (it does not start with \"CSRBIN1\")");
  COMPOUND_SPARSE_REQUIRE(detail::read_items(file, sizes, 2) && detail::read_items(file, shape, 3),
                          path << ": the file ends inside its " << detail::binary_csr_header_bytes << "-byte header");
  COMPOUND_SPARSE_REQUIRE(
      sizes[0] == static_cast<std::uint32_t>(traits::size),
      path << ": its entries have " << sizes[0] << " components, the entry type has " << traits::size);
  COMPOUND_SPARSE_REQUIRE(sizes[1] == 8, path << ": its components are " << sizes[1] << " bytes, the format's are 8");
  const std::int64_t rows = shape[0], cols = shape[1], nnz = shape[2];
  constexpr std::int64_t int_max = 2147483647;
  COMPOUND_SPARSE_REQUIRE(rows >= 0 && cols >= 0 && nnz >= 0 && rows <= int_max && cols <= int_max && nnz <= int_max,
                          path << ": its header says " << rows << " x " << cols << " with " << nnz
                               << " non-zeros, outside 0 .. 2^31 - 1 (32-bit indices)");
  const std::uint64_t expected = detail::binary_csr_header_bytes + static_cast<std::uint64_t>(rows + 1) * 4 +
                                 static_cast<std::uint64_t>(nnz) * (4 + 8 * sizes[0]);
  COMPOUND_SPARSE_REQUIRE(file_bytes == expected, path << ": the file is " << file_bytes << " bytes, its header ("
                                                       << rows << " x " << cols << ", " << nnz << " non-zeros) needs "
                                                       << expected << " (truncated or corrupt)");
  HostCsr<Entry> a;
  a.num_rows = static_cast<int>(rows);
  a.num_cols = static_cast<int>(cols);
  a.row_offsets.resize(static_cast<std::size_t>(rows) + 1);
  a.col_indices.resize(static_cast<std::size_t>(nnz));
  a.values.resize(static_cast<std::size_t>(nnz));
  COMPOUND_SPARSE_REQUIRE_KIND(IoError,
                               detail::read_items(file, a.row_offsets.data(), a.row_offsets.size()) &&
                                   detail::read_items(file, a.col_indices.data(), a.col_indices.size()),
                               "reading '" << path << "' failed");
  std::vector<double> block;
  constexpr std::size_t entries_per_block = 1 << 16;
  for (std::size_t first = 0; first < a.values.size(); first += entries_per_block) {
    const std::size_t last = std::min(a.values.size(), first + entries_per_block);
    block.resize((last - first) * traits::size);
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, detail::read_items(file, block.data(), block.size()),
                                 "reading '" << path << "' failed");
    for (std::size_t k = first; k < last; ++k) {
      Entry& v = a.values[k];
      for (int c = 0; c < traits::size; ++c)
        traits::get(v, c) = static_cast<scalar>(block[(k - first) * traits::size + c]);
      COMPOUND_SPARSE_REQUIRE(finite_entry(v), path << ": non-zero " << k
                                                    << " is not finite in this precision (NaN, infinity, or a "
                                                       "double a float cannot hold)");
    }
  }
  try {
    validate(a);
  } catch (const Error& e) {
    throw InvalidInput(path + ": " + e.reason(), __FILE__, __LINE__);
  }
  return a;
}

}  // namespace io
}  // namespace compound_sparse
