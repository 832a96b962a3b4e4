#pragma once
// The files of the tuning databases, the prior and the quick-tuning cache: reading one
// whole, replacing one atomically, and updating one under a lock. Run time needs all
// three, not only the tuner: TunedSpmv writes its quick-tuning cache (tuning_cache.hpp)
// while other processes may read and write it, so the lock and the atomic write are part
// of the library that applications link. Defined in src/tuning/database_files.cpp.

#include <functional>
#include <string>

namespace compound_sparse {
namespace detail {

/// The whole of `path` as text; IoError "cannot open <what> <path>: <reason>", "<what>
/// <path> is a directory, not a file" or "reading <what> <path> failed: <reason>".
std::string read_file_text(const std::string& path, const std::string& what);

/// Replaces `path` by `text` atomically: the text goes to `<path>.tmp.<pid>.<n>` in the
/// same directory (created if needed), which is then renamed over `path`, so a reader (or
/// an interrupted writer) sees the old or the new file, never a partial one.
/// `before_rename` (tests) runs between the temporary file being complete and the rename,
/// and may throw to simulate an interruption: the temporary file is removed and `path`
/// left untouched.
void write_file_atomically(const std::string& text, const std::string& path,
                           const std::function<void(const std::string& temporary)>& before_rename = {});

/// Runs `update` while holding an exclusive lock (flock) on the sidecar file
/// `<path>.lock` (created, with the directories, if absent; it stays afterwards), so that
/// writers in other processes and threads that read, merge and replace `path` the same way
/// take turns and keep each other's records. IoError when the lock cannot be taken. The
/// lock needs a file system where flock works between the writers (local disks do).
void with_file_lock(const std::string& path, const std::function<void()>& update);

/// Renames `path` (under the caller's lock) to the first free `<path>.unreadable.<n>` (n =
/// 1, 2, ...; an earlier one is never replaced) and returns that name; `why` goes into the
/// IoError when no name is free or the rename fails.
std::string set_aside_unreadable(const std::string& path, const std::string& why);

}  // namespace detail
}  // namespace compound_sparse
