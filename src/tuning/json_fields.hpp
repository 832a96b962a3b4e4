#pragma once
// Reading typed fields of a JSON file with errors that name the field: shared by the
// readers of the shipped database (selection_database.cpp) and of the tuner's full output
// (database.cpp). Private to src/tuning: the library's headers need no JSON library.

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "compound_sparse/device_info.hpp"
#include "compound_sparse/error.hpp"
#include "compound_sparse/tuning/features.hpp"

namespace compound_sparse {
namespace json_fields {

using Json = nlohmann::json;

/// A field of the file that is missing or of the wrong JSON type: `field` is its path below
/// the object that reports it ("features.rows"); each level up prefixes its own part, and
/// the reader turns it into an IoError naming the file. Built only when a file is wrong.
struct FieldError {
  std::string field;
  std::string problem;
  std::string record;  ///< the record's name, once known
};

[[noreturn]] inline void field_error(const char* key, const std::string& problem) {
  throw FieldError{key, problem, ""};
}

inline std::string json_kind(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_float:
      return "a floating-point number";
    default:
      return "a number";
  }
}

/// The member `key` of object `j`, or null when absent.
inline const Json* find_member(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}
inline const Json& member(const Json& j, const char* key) {
  const Json* v = find_member(j, key);
  if (v == nullptr) field_error(key, "is missing");
  return *v;
}
inline const Json& as_object(const Json& v, const char* key) {
  if (!v.is_object()) field_error(key, "is " + json_kind(v) + ", expected an object");
  return v;
}
inline const Json& as_array(const Json& v, const char* key) {
  if (!v.is_array()) field_error(key, "is " + json_kind(v) + ", expected an array");
  return v;
}
inline std::string as_string(const Json& v, const char* key) {
  if (!v.is_string()) field_error(key, "is " + json_kind(v) + ", expected a string");
  return v.get<std::string>();
}
inline bool as_bool(const Json& v, const char* key) {
  if (!v.is_boolean()) field_error(key, "is " + json_kind(v) + ", expected a boolean");
  return v.get<bool>();
}
inline double as_double(const Json& v, const char* key) {
  if (!v.is_number()) field_error(key, "is " + json_kind(v) + ", expected a number");
  return v.get<double>();
}
/// An integer field: a boolean or a fractional number is the wrong type, not a value to convert.
template <class Int>
Int as_integer(const Json& v, const char* key) {
  if (!v.is_number_integer()) field_error(key, "is " + json_kind(v) + ", expected an integer");
  if (std::is_unsigned_v<Int> && !v.is_number_unsigned())
    field_error(key, "is " + v.dump() + ", expected a non-negative integer");
  const bool in_range = v.is_number_unsigned()
                            ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<Int>::max())
                            : v.get<std::int64_t>() >= static_cast<std::int64_t>(std::numeric_limits<Int>::min()) &&
                                  v.get<std::int64_t>() <= static_cast<std::int64_t>(std::numeric_limits<Int>::max());
  if (!in_range) field_error(key, "is " + v.dump() + ", out of range");
  return v.get<Int>();
}
/// Optional fields: `fallback` when absent (files written before the field existed);
/// present, they must have the field's type (null included: it is no value of any).
inline std::string optional_string(const Json& j, const char* key, const std::string& fallback) {
  const Json* v = find_member(j, key);
  return v == nullptr ? fallback : as_string(*v, key);
}
inline double optional_double(const Json& j, const char* key, double fallback) {
  const Json* v = find_member(j, key);
  return v == nullptr ? fallback : as_double(*v, key);
}
inline bool optional_bool(const Json& j, const char* key, bool fallback) {
  const Json* v = find_member(j, key);
  return v == nullptr ? fallback : as_bool(*v, key);
}
template <class Int>
Int optional_integer(const Json& j, const char* key, Int fallback) {
  const Json* v = find_member(j, key);
  return v == nullptr ? fallback : as_integer<Int>(*v, key);
}

/// Runs `read`; a FieldError from it is placed below `prefix()` ("features" + "rows"), which
/// is computed only then.
template <class Prefix, class Read>
auto within(Prefix&& prefix, Read&& read) {
  try {
    return read();
  } catch (FieldError& e) {
    e.field = e.field.empty() ? prefix() : prefix() + "." + e.field;
    throw;
  }
}

/// The "device" header both forms of the database write: backend, name, compute capability
/// and multiprocessors (the tuner's full output adds its memory sizes, which its reader reads).
inline DeviceInfo read_device_header(const Json& j) {
  const Json& d = as_object(member(j, "device"), "device");
  return within([] { return std::string("device"); },
                [&] {
                  DeviceInfo device;
                  device.backend = as_string(member(d, "backend"), "backend");
                  device.name = optional_string(d, "name", std::string());
                  device.compute_major = as_integer<int>(member(d, "compute_major"), "compute_major");
                  device.compute_minor = as_integer<int>(member(d, "compute_minor"), "compute_minor");
                  device.multiprocessors = optional_integer(d, "multiprocessors", 1);
                  return device;
                });
}

/// The JSON of a database file's text and its schema version; throws IoError naming
/// `source` for text that is not JSON or not an object with an integer "schema_version".
/// Both readers look at the version first, so that a file of the other form is refused by
/// its version, with the reason, before any field is read.
inline Json parse_database_text(const std::string& text, const std::string& source, int& version) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const std::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, source << " is not valid JSON (truncated or corrupt?): " << e.what());
  }
  COMPOUND_SPARSE_REQUIRE_KIND(IoError,
                               j.is_object() && j.contains("schema_version") && j["schema_version"].is_number_integer(),
                               source << " is not a tuning database (no schema_version)");
  version = j["schema_version"].get<int>();
  return j;
}

/// A record's features as both forms of the database write them (`JsonType`: nlohmann's
/// json, or ordered_json to keep the keys in this order) and read them.
template <class JsonType = Json>
JsonType features_to_json(const MatrixFeatures& f) {
  return {{"entry_type", f.entry_type},
          {"precision", f.precision},
          {"rows", f.rows},
          {"cols", f.cols},
          {"nnz", f.nnz},
          {"nnz_per_row_mean", f.nnz_per_row_mean},
          {"nnz_per_row_max", f.nnz_per_row_max},
          {"nnz_per_row_stddev", f.nnz_per_row_stddev},
          {"bandwidth_mean", f.bandwidth_mean},
          {"bandwidth_max", f.bandwidth_max},
          {"fingerprint", f.fingerprint}};
}

inline MatrixFeatures features_from_json(const Json& j) {
  MatrixFeatures f;
  f.entry_type = as_string(member(j, "entry_type"), "entry_type");
  f.precision = as_string(member(j, "precision"), "precision");
  f.rows = as_integer<long long>(member(j, "rows"), "rows");
  f.cols = as_integer<long long>(member(j, "cols"), "cols");
  f.nnz = as_integer<long long>(member(j, "nnz"), "nnz");
  f.nnz_per_row_mean = as_double(member(j, "nnz_per_row_mean"), "nnz_per_row_mean");
  f.nnz_per_row_max = as_double(member(j, "nnz_per_row_max"), "nnz_per_row_max");
  f.nnz_per_row_stddev = as_double(member(j, "nnz_per_row_stddev"), "nnz_per_row_stddev");
  f.bandwidth_mean = as_double(member(j, "bandwidth_mean"), "bandwidth_mean");
  f.bandwidth_max = as_double(member(j, "bandwidth_max"), "bandwidth_max");
  f.fingerprint = as_string(member(j, "fingerprint"), "fingerprint");
  return f;
}

/// Appends `value` to `out` as nlohmann's dump(1) would at nesting `depth`, except that the
/// elements of an array whose key satisfies `one_line_key` take one line of compact JSON
/// each: both database forms are written so. `JsonType`: json, or ordered_json to keep the
/// keys in the order given.
template <class JsonType, class OneLineKey>
void append_json_lines(std::string& out, const JsonType& value, int depth, const OneLineKey& one_line_key,
                       bool one_line_elements = false) {
  const auto indent = [&](int d) { out.append(static_cast<std::size_t>(d), ' '); };
  if (value.is_object() && !value.empty()) {
    out += "{\n";
    std::size_t i = 0;
    for (auto it = value.begin(); it != value.end(); ++it, ++i) {
      indent(depth + 1);
      out += JsonType(it.key()).dump() + ": ";
      append_json_lines(out, it.value(), depth + 1, one_line_key, one_line_key(it.key()));
      out += i + 1 < value.size() ? ",\n" : "\n";
    }
    indent(depth);
    out += "}";
  } else if (value.is_array() && !value.empty()) {
    out += "[\n";
    for (std::size_t i = 0; i < value.size(); ++i) {
      indent(depth + 1);
      if (one_line_elements)
        out += value[i].dump();
      else
        append_json_lines(out, value[i], depth + 1, one_line_key);
      out += i + 1 < value.size() ? ",\n" : "\n";
    }
    indent(depth);
    out += "]";
  } else {
    out += value.dump();
  }
}

/// Runs `parse` (which reads a database's fields) and turns a FieldError or a JSON library
/// error into IoError naming `source`: the one message both readers give for a bad field.
template <class Parse>
void reading_database(const std::string& source, Parse&& parse) {
  try {
    parse();
  } catch (const FieldError& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false,
                                 source << " is not a valid tuning database: field '" << e.field << "'"
                                        << (e.record.empty() ? "" : " (record '" + e.record + "')") << " "
                                        << e.problem);
  } catch (const nlohmann::json::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, source << " is not a valid tuning database: " << e.what());
  }
}

}  // namespace json_fields
}  // namespace compound_sparse
