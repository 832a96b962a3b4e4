#pragma once
// Reading a compound-zoo index.json (docs/zoo.md) in the tools that take --zoo
// (compound-tune, compound-bench): every problem is an IoError that names the
// index file and what is wrong with it, before any matrix is read.
#include <compound_sparse/error.hpp>
#include <compound_sparse/io/binary_csr.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace compound_tools {

/// The "matrices" list of the index at `path`, each entry checked to have a string
/// "name", "file" and "class" and an integer "nonzeros". Throws
/// compound_sparse::IoError for a missing file, a directory, text that is not JSON
/// (a truncated file), a "matrices" that is not a non-empty list, or an entry
/// without those fields.
inline nlohmann::json read_zoo_index(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A directory opens as a stream on Linux and fails only on reading, with
  // "basic_filebuf::underflow error": say what it is instead.
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, !fs::is_directory(path, ec),
                               "zoo index " << path << " is a directory; give the index file, DIR/index.json");
  std::ifstream in(path, std::ios::binary);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, in, "cannot open zoo index " << path);
  nlohmann::json index;
  try {
    index = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false,
                                 "zoo index " << path << " is not valid JSON (truncated or corrupt?): " << e.what());
  }
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, index.is_object() && index.contains("matrices"),
                               "zoo index " << path << " has no \"matrices\" list");
  const nlohmann::json& matrices = index["matrices"];
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, matrices.is_array(),
                               "zoo index " << path << ": \"matrices\" is " << matrices.type_name() << ", not a list");
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, !matrices.empty(), "zoo index " << path << " lists no matrices");
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    const nlohmann::json& m = matrices[i];
    COMPOUND_SPARSE_REQUIRE_KIND(
        IoError, m.is_object(),
        "zoo index " << path << ": matrix #" << i + 1 << " is " << m.type_name() << ", not an object");
    const std::string name = m.contains("name") && m["name"].is_string() ? m["name"].get<std::string>() : "";
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, !name.empty(),
                                 "zoo index " << path << ": matrix #" << i + 1 << " has no string \"name\"");
    for (const char* field : {"file", "class"})
      COMPOUND_SPARSE_REQUIRE_KIND(
          IoError, m.contains(field) && m[field].is_string(),
          "zoo index " << path << ": matrix '" << name << "' has no string \"" << field << "\"");
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, m.contains("nonzeros") && m["nonzeros"].is_number_integer(),
                                 "zoo index " << path << ": matrix '" << name << "' has no integer \"nonzeros\"");
  }
  return matrices;
}

/// A zoo matrix's file: binary CSR (.csrb, the xl scale; compound_sparse/io/binary_csr.hpp)
/// or Matrix Market; a float entry type rounds the stored components.
template <class Entry>
compound_sparse::HostCsr<Entry> read_zoo_matrix(const std::filesystem::path& path) {
  return path.extension() == ".csrb" ? compound_sparse::io::read_binary_csr<Entry>(path.string())
                                     : compound_sparse::io::read_matrix_market<Entry>(path.string());
}

}  // namespace compound_tools
