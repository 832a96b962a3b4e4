// Reading, atomic replacement and locked update of the tuning files
// (include/compound_sparse/tuning/impl/database_files.hpp).
#include "compound_sparse/tuning/impl/database_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "compound_sparse/error.hpp"

namespace compound_sparse {
namespace detail {

std::string read_file_text(const std::string& path, const std::string& what) {
  // POSIX calls rather than a stream: a stream opens a directory and reads it as empty
  // text, and says nothing of why an open failed.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, fd >= 0, "cannot open " << what << " " << path << ": " << std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, ::fstat(fd, &st) == 0,
                               "cannot read " << what << " " << path << ": " << std::strerror(errno));
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, !S_ISDIR(st.st_mode), what << " " << path << " is a directory, not a file");
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, n > 0,
                                 "reading " << what << " " << path << " failed: " << std::strerror(errno));
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

void write_file_atomically(const std::string& text, const std::string& path,
                           const std::function<void(const std::string&)>& before_rename) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  // Same directory as the target: rename is atomic only within a file system.
  // The pid keeps two concurrent writers from sharing a temporary file, the counter
  // two threads of one process.
  static std::atomic<unsigned> counter{0};
  const std::string temporary = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  try {
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, out, "cannot create " << temporary);
      out << text;
      out.flush();
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, out, "writing " << temporary << " failed (disk full?)");
    }
    if (before_rename) before_rename(temporary);
    std::error_code ec;
    fs::rename(temporary, target, ec);
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, !ec,
                                 "cannot replace " << path << " by " << temporary << ": " << ec.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

namespace {
/// An exclusive flock on `path`, created if absent, held until destruction. flock
/// locks belong to the open file description, so two threads that each open the
/// file exclude each other as two processes do. A sidecar file rather than the
/// database itself: the database is replaced by rename, and a lock on the old inode
/// would not exclude a writer that opened the new one.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, fd_ >= 0, "cannot open lock file " << path << ": " << std::strerror(errno));
    int rc;
    do rc = ::flock(fd_, LOCK_EX);
    while (rc != 0 && errno == EINTR);  // a signal while waiting: wait again
    if (rc != 0) {
      const int error = errno;
      ::close(fd_);
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, "cannot lock " << path << ": " << std::strerror(error));
    }
  }
  ~FileLock() { ::close(fd_); }  // closing the last descriptor releases the lock
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};
}  // namespace

void with_file_lock(const std::string& path, const std::function<void()>& update) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  // The lock file stays after the update: removing it would let a writer that
  // already opened it lock an unlinked file while a third one locks a new file.
  const FileLock lock(path + ".lock");
  update();
}

std::string set_aside_unreadable(const std::string& path, const std::string& why) {
  // Never over an earlier one: library versions that cannot read each other's cache, used
  // in turn, each set the other's aside, and one fixed name kept only the last. link(2)
  // fails rather than replace, so a name taken meanwhile by anyone is skipped, not overwritten.
  for (int n = 1;; ++n) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, n <= 10000,
                                 why << "; and " << path << ".unreadable.1 to .10000 are all taken: remove old ones");
    const std::string aside = path + ".unreadable." + std::to_string(n);
    if (::link(path.c_str(), aside.c_str()) == 0) {
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, ::unlink(path.c_str()) == 0,
                                   why << "; linked to " << aside << " but not removed: " << std::strerror(errno));
      return aside;
    }
    if (errno == EEXIST) continue;
    // A file system without hard links: the same, by a rename to a name seen free under the lock.
    std::error_code ec;
    if (std::filesystem::exists(aside, ec)) continue;
    std::filesystem::rename(path, aside, ec);
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, !ec,
                                 why << "; and it could not be moved to " << aside << ": " << ec.message());
    return aside;
  }
}

}  // namespace detail
}  // namespace compound_sparse
