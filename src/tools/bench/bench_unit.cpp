// compound-bench's run_matrix for the compiled entry types of one precision (bench_matrix.hpp's
// bench_unit_of): unit COMPOUND_BENCH_UNIT. CMake builds this file once per unit, so the
// precisions compile in parallel.
#include "bench_matrix.hpp"

#ifndef COMPOUND_BENCH_UNIT
#error "COMPOUND_BENCH_UNIT (0 to compound_bench::bench_units - 1) is set by src/tools/bench/CMakeLists.txt"
#endif

namespace compound_bench {

static_assert(COMPOUND_BENCH_UNIT < bench_units, "COMPOUND_BENCH_UNIT beyond bench_units");

template <std::size_t Unit>
bool run_matrix_of_unit(const std::string& entry_class, const json& info, const fs::path& dir,
                        const std::string& precision, cs::Op op, int k, const Options& o, json& result,
                        std::string& refusal) {
  bool found = false;
  cs::for_each_type(cs::CompiledEntries{}, [&](auto tag) {
    using Entry = typename decltype(tag)::type;
    if constexpr (bench_unit_of<Entry>() == Unit) {
      if (!found && cs::entry_type_name<Entry>() == entry_class && cs::precision_name<Entry>() == precision) {
        found = true;
        result = run_matrix<Entry>(info, dir, precision, op, k, o, refusal);
      }
    }
  });
  return found;
}

template bool run_matrix_of_unit<COMPOUND_BENCH_UNIT>(const std::string&, const json&, const fs::path&,
                                                      const std::string&, cs::Op, int, const Options&, json&,
                                                      std::string&);

}  // namespace compound_bench
