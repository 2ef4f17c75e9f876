#include "hhlo/core/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "hhlo/core/error.h"

namespace hhlo {
namespace {

/// Closes a file descriptor at scope exit unless released.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  /// close(2) now, returning its result (a deferred write error shows here, e.g. on NFS).
  int close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

[[noreturn]] void fail(std::string_view what, const std::string& path, std::string_view cause) {
  throw IoError(fmt::format("{} '{}' {}", what, path, cause));
}

std::string errno_text(int err) {
  if (err == ENAMETOOLONG) return fmt::format("path is longer than PATH_MAX ({} bytes)", PATH_MAX);
  return std::strerror(err);
}

/// write(2) all of `bytes`, retrying on EINTR; errno of the failure, or 0.
int write_all(int fd, std::string_view bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

std::string read_regular_file(const std::string& path, std::string_view what) {
  if (path.empty()) throw IoError(fmt::format("{}: the path is empty", what));
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    int err = errno;
    if (err == ENOENT) fail(what, path, "does not exist");
    fail(what, path, fmt::format("cannot be opened: {}", errno_text(err)));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(what, path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(what, path, "is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    fail(what, path, "is not a regular file (a device, a pipe or a socket): refused");
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(what, path, fmt::format("cannot be read: {}", std::strerror(errno)));
    if (n == 0) fail(what, path, "changed size while it was read");
    got += static_cast<std::size_t>(n);
  }
  return bytes;
}

void write_file_atomically(const std::string& path, std::string_view bytes, std::string_view what) {
  namespace fs = std::filesystem;
  if (path.empty()) throw IoError(fmt::format("{}: the output path is empty", what));
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail(what, path, "is a directory; cannot write a file there");
  fs::path target(path);
  static std::atomic<unsigned> counter{0};
  std::string name = target.filename().string();
  std::string tmp = (target.parent_path() /
                     fmt::format(".{}.tmp-{}-{}", name.substr(0, 200), ::getpid(), counter++))
                        .string();
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail(what, path, fmt::format("cannot be written: {}", errno_text(errno)));
  int err = write_all(fd.get(), bytes);
  if (err == 0 && ::fsync(fd.get()) != 0) err = errno;
  if (fd.close() != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(
        what, path,
        fmt::format("cannot be written: {} (the previous file, if any, is kept)", errno_text(err)));
  }
}

}  // namespace hhlo
