#pragma once
// The tools' entry-type dispatch: from the names a zoo index or a command line
// gives ("complex" + "double") to the compiled C++ entry type, over the variant
// space's CompiledEntries, so that a tool handles every entry type the build
// compiles and no list of types is spelled out here.
#include <algorithm>
#include <compound_sparse/tuning/database.hpp>  // entry_type_name, precision_name
#include <compound_sparse/variants/registry.hpp>
#include <string>
#include <vector>

namespace compound_tools {

/// Calls f(compound_sparse::TypeTag<Entry>{}) for the compiled entry type of class
/// `entry_type` ("complex", "quaternion", "block3", ...) in `precision`; returns
/// false, calling nothing, when this build compiles no such type.
template <class F>
bool dispatch_entry(const std::string& entry_type, const std::string& precision, F&& f) {
  bool found = false;
  compound_sparse::for_each_type(compound_sparse::CompiledEntries{}, [&](auto tag) {
    using Entry = typename decltype(tag)::type;
    if (!found && compound_sparse::entry_type_name<Entry>() == entry_type &&
        compound_sparse::precision_name<Entry>() == precision) {
      found = true;
      f(tag);
    }
  });
  return found;
}

/// The entry classes of the compiled entry types, each once, in declaration order.
inline std::vector<std::string> compiled_entry_classes() {
  std::vector<std::string> classes;
  compound_sparse::for_each_type(compound_sparse::CompiledEntries{}, [&](auto tag) {
    const std::string name = compound_sparse::entry_type_name<typename decltype(tag)::type>();
    if (std::find(classes.begin(), classes.end(), name) == classes.end()) classes.push_back(name);
  });
  return classes;
}

}  // namespace compound_tools
