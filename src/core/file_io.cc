#include "hhlo/core/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>

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

/// `n` bytes in words: "1 GiB", "64 MiB", "100 bytes".
std::string byte_count_text(std::size_t n) {
  if (n >= (std::size_t{1} << 30) && n % (std::size_t{1} << 30) == 0)
    return fmt::format("{} GiB", n >> 30);
  if (n >= (std::size_t{1} << 20) && n % (std::size_t{1} << 20) == 0)
    return fmt::format("{} MiB", n >> 20);
  return fmt::format("{} bytes", n);
}

/// open(2) of `path` for reading, named in every failure. A FIFO (when `streams`) is opened as
/// cat(1) opens it, waiting for a writer: opened without waiting, the writer could come, write and
/// go before we read, and a later open would wait for another. Anything else is opened with
/// O_NONBLOCK, so that a FIFO put in its place meanwhile (or any FIFO, when not `streams`) does
/// not wait before its kind is known.
int open_for_reading(const std::string& path, std::string_view what, bool streams) {
  if (path.empty()) throw IoError(fmt::format("{}: the path is empty", what));
  struct stat st {};
  bool fifo = streams && ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (fifo ? 0 : O_NONBLOCK));
  } while (fd < 0 && errno == EINTR);
  if (fd >= 0) return fd;
  int err = errno;
  if (err == ENOENT) fail(what, path, "does not exist");
  // open(2) of a Unix socket's path fails with ENXIO.
  if (err == ENXIO && ::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
    fail(what, path, "is a socket, not a file: refused");
  fail(what, path, fmt::format("cannot be opened: {}", errno_text(err)));
}

/// The whole regular file `fd` of `size` bytes.
std::string read_sized(int fd, std::size_t size, const std::string& path, std::string_view what) {
  std::string bytes(size, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(what, path, fmt::format("cannot be read: {}", std::strerror(errno)));
    if (n == 0) fail(what, path, "changed size while it was read");
    got += static_cast<std::size_t>(n);
  }
  return bytes;
}

/// The stream `fd` read to its end (blocking reads), refused once it holds more than `max` bytes.
std::string read_stream(int fd, std::size_t max, const std::string& path, std::string_view what) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::string bytes;
  for (;;) {
    if (bytes.size() > max)
      fail(what, path,
           fmt::format("is a stream (a pipe or a device) longer than {}, the most read from one: "
                       "give a regular file",
                       byte_count_text(max)));
    std::size_t had = bytes.size(), want = std::min(kChunk, max + 1 - had);
    bytes.resize(had + want);
    ssize_t n = ::read(fd, bytes.data() + had, want);
    int err = errno;
    bytes.resize(had + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0 && err == EINTR) continue;
    if (n < 0) fail(what, path, fmt::format("cannot be read: {}", std::strerror(err)));
    if (n == 0) return bytes;
  }
}

/// The bytes of `path`; streams (anything but a regular file, a directory or a socket) are read up
/// to `max_stream_bytes` when `streams`, else refused.
std::string read_any(const std::string& path, std::string_view what, bool streams,
                     std::size_t max_stream_bytes) {
  Fd fd(open_for_reading(path, what, streams));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(what, path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(what, path, "is a directory, not a file");
  if (S_ISREG(st.st_mode))
    return read_sized(fd.get(), static_cast<std::size_t>(st.st_size), path, what);
  if (S_ISSOCK(st.st_mode)) fail(what, path, "is a socket, not a file: refused");
  if (!streams) fail(what, path, "is not a regular file (a device, a pipe or a socket): refused");
  // Blocking reads from here: a pipe's data may come later.
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0 && (flags & O_NONBLOCK)) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return read_stream(fd.get(), max_stream_bytes, path, what);
}

/// The temporaries of write_file_atomically in progress, for remove_unfinished_temporaries: a slot
/// is kFree, kFilling (its path being written), kListed, or kClaimed (a signal handler took it).
enum SlotState : int { kFree, kFilling, kListed, kClaimed };
constexpr int kSlots = 64;
struct TemporarySlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
TemporarySlot g_temporaries[kSlots];
static_assert(std::atomic<int>::is_always_lock_free);  // what a signal handler may touch

/// Lists `tmp`; the slot taken, or -1 when every slot is taken or the path does not fit (then it is
/// left to remove_stale_temporaries).
int list_temporary(const std::string& tmp) {
  if (tmp.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int free = kFree;
    if (!g_temporaries[i].state.compare_exchange_strong(free, kFilling)) continue;
    std::memcpy(g_temporaries[i].path, tmp.c_str(), tmp.size() + 1);
    g_temporaries[i].state.store(kListed);
    return i;
  }
  return -1;
}

/// Frees `slot` (from list_temporary) unless a signal handler claimed it.
void unlist_temporary(int slot) {
  if (slot < 0) return;
  int listed = kListed;
  g_temporaries[slot].state.compare_exchange_strong(listed, kFree);
}

/// Whether `s` is one or more decimal digits.
bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string read_file(const std::string& path, std::string_view what,
                      std::size_t max_stream_bytes) {
  return read_any(path, what, /*streams=*/true, max_stream_bytes);
}

std::string read_regular_file(const std::string& path, std::string_view what) {
  return read_any(path, what, /*streams=*/false, 0);
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
  int slot = list_temporary(tmp);  // before it exists: a signal may come as soon as it does
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) {
    int err = errno;
    unlist_temporary(slot);
    fail(what, path, fmt::format("cannot be written: {}", errno_text(err)));
  }
  int err = write_all(fd.get(), bytes);
  if (err == 0 && ::fsync(fd.get()) != 0) err = errno;
  if (fd.close() != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) ::unlink(tmp.c_str());
  unlist_temporary(slot);
  if (err != 0) {
    fail(
        what, path,
        fmt::format("cannot be written: {} (the previous file, if any, is kept)", errno_text(err)));
  }
}

int remove_unfinished_temporaries() noexcept {
  int removed = 0;
  for (TemporarySlot& slot : g_temporaries) {
    int listed = kListed;
    if (!slot.state.compare_exchange_strong(listed, kClaimed)) continue;
    if (::unlink(slot.path) == 0) ++removed;
  }
  return removed;
}

bool is_stale_temporary(const std::filesystem::path& path, std::filesystem::file_time_type time) {
  std::string name = path.filename().string();
  std::size_t at = name.rfind(".tmp-");
  if (name.size() < 2 || name[0] != '.' || at == std::string::npos || at == 0) return false;
  std::string_view rest = std::string_view(name).substr(at + 5);
  std::size_t dash = rest.find('-');
  if (dash == std::string_view::npos || !all_digits(rest.substr(0, dash)) ||
      !all_digits(rest.substr(dash + 1)))
    return false;
  if (std::filesystem::file_time_type::clock::now() - time > std::chrono::hours(1)) return true;
  long pid = std::strtol(rest.data(), nullptr, 10);  // kill(2) of 0 or -1 would ask of many
  if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

int remove_stale_temporaries(const std::string& dir, std::string_view of) noexcept {
  namespace fs = std::filesystem;
  int removed = 0;
  std::string prefix = of.empty() ? "" : fmt::format(".{}.tmp-", of);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (!it->is_regular_file(e2)) continue;
    std::string name = it->path().filename().string();
    if (!name.starts_with(prefix)) continue;
    auto time = fs::last_write_time(it->path(), e2);
    if (!e2 && is_stale_temporary(it->path(), time) && fs::remove(it->path(), e2)) ++removed;
  }
  return removed;
}

}  // namespace hhlo
