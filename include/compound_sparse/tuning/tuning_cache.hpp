#pragma once
// The per-user cache of quick tuning (tuned_spmv.hpp, TunedSpmvOptions::quick_tune):
// records of the candidates TunedSpmv timed on a caller's own matrices, in the shipped
// database's form (selection_database.hpp), one file per device key (database_file_name:
// sm_90.json, ...) in default_tuning_cache_dir(). The next TunedSpmv for the same pattern,
// in this process or a later one, finds its record by fingerprint (rule exact) and times
// nothing.
//
// A cache is a convenience, never a reason to fail: reading or writing it reports
// warnings and no exceptions. Writes go through update_selection_database (an exclusive
// lock on `<file>.lock`, the file read again under it, written atomically), so two
// processes tuning at once keep both records; a cache file whose contents do not read
// (corrupt, or another library version's, such as a cache in the tuner's full form that
// versions before the shipped form wrote) is moved aside to the first free
// `<file>.unreadable.<n>`, never over an earlier one, and started afresh.

#include <string>

#include "selection_database.hpp"

namespace compound_sparse {

/// $COMPOUND_SPARSE_CACHE_DIR when set; else $XDG_CACHE_HOME/compound_sparse when
/// XDG_CACHE_HOME is an absolute path (the XDG base directory rule: a relative one
/// is ignored); else $HOME/.cache/compound_sparse; else "" (no cache).
std::string default_tuning_cache_dir();

/// The cache at `path`, or no database when the file is absent (no warning) or does
/// not read (a warning naming the file and the reason).
LoadedDatabase load_tuning_cache(const std::string& path);

/// Adds `record` to the cache at `path` (directories created, replacing a record of
/// the same name, entry type, precision and device). Returns the warnings: the file was
/// unreadable and moved aside, or the record could not be stored, and why.
std::vector<std::string> store_in_tuning_cache(const std::string& path, const SelectionRecord& record);

}  // namespace compound_sparse
