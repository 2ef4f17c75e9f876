#include "hhlo/runtime/key_value_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace hhlo {

namespace fs = std::filesystem;

KeyValueTimeout::KeyValueTimeout(std::string key, std::chrono::milliseconds timeout,
                                 const std::string& where)
    : Error(fmt::format("key-value store: key \"{}\" was not set within {} ms ({})", key,
                        timeout.count(), where)),
      key_(std::move(key)),
      timeout_(timeout) {}

DirectoryKeyValueStore::DirectoryKeyValueStore(fs::path dir, std::chrono::milliseconds poll)
    : dir_(std::move(dir)), poll_(std::max(poll, std::chrono::milliseconds(1))) {
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw IoError(
        fmt::format("key-value store directory {}: exists and is not a directory", dir_.string()));
  fs::create_directories(dir_, ec);
  if (!fs::is_directory(dir_))
    throw IoError(fmt::format("key-value store directory {}: cannot create it: {}", dir_.string(),
                              ec.message()));
}

fs::path DirectoryKeyValueStore::path_of(std::string_view key) const {
  if (key.empty()) throw Error("key-value store: the key is empty");
  std::string name;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '_' || c == '-')
      name += static_cast<char>(c);
    else
      name += fmt::format("%{:02X}", c);
  }
  if (name.size() > 240)
    throw Error(
        fmt::format("key-value store: key \"{}\" is too long for a file name ({} bytes "
                    "encoded, at most 240)",
                    key, name.size()));
  return dir_ / name;
}

void DirectoryKeyValueStore::set(std::string_view key, std::string_view value) {
  fs::path target = path_of(key);
  static std::atomic<uint64_t> counter{0};
  // The temporary name starts with '.', which no encoded key does, so it is never read as a key.
  fs::path tmp =
      dir_ / fmt::format(".tmp.{}.{}.{}", ::getpid(),
                         std::hash<std::thread::id>()(std::this_thread::get_id()), counter++);
  auto fail = [&](const char* what, int err) {
    ::unlink(tmp.c_str());
    return IoError(fmt::format("key-value store: set(\"{}\"): {} {}: {}", key, what, tmp.string(),
                               std::strerror(err)));
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw fail("cannot create", errno);
  const char* p = value.data();
  std::size_t left = value.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      ::close(fd);
      throw fail("cannot write", err);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) throw fail("cannot close", errno);
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw IoError(fmt::format("key-value store: set(\"{}\"): cannot rename {} to {}: {}", key,
                              tmp.string(), target.string(), std::strerror(err)));
  }
}

std::optional<std::string> DirectoryKeyValueStore::try_get(std::string_view key) {
  fs::path file = path_of(key);
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw IoError(fmt::format("key-value store: get(\"{}\"): cannot open {}: {}", key,
                              file.string(), std::strerror(errno)));
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      throw IoError(fmt::format("key-value store: get(\"{}\"): cannot read {}: {}", key,
                                file.string(), std::strerror(err)));
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string DirectoryKeyValueStore::get(std::string_view key, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (std::optional<std::string> v = try_get(key)) return *std::move(v);
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      throw KeyValueTimeout(std::string(key), timeout, "directory " + dir_.string());
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(poll_, deadline - now));
  }
}

}  // namespace hhlo
