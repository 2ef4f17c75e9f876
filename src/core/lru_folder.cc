// A folder under a size bound (hhlo/core/lru_folder.h).
#include "hhlo/core/lru_folder.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "hhlo/core/file_io.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

struct File {
  fs::path path;
  std::uint64_t size;
  fs::file_time_type time;
};

bool has_suffix(const fs::path& p, const std::vector<std::string_view>& suffixes) {
  std::string name = p.filename().string();
  return std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view s) {
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  });
}

/// The evictable files of `dir` and the total size of all its files (stale temporaries removed).
std::vector<File> list(const std::string& dir, const std::vector<std::string_view>& suffixes,
                       std::uint64_t& total) {
  std::vector<File> files;
  total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code e2;
    std::uint64_t size = fs::file_size(p, e2);
    auto time = fs::last_write_time(p, e2);
    if (e2) continue;                   // removed meanwhile by another process
    if (is_stale_temporary(p, time)) {  // a writer killed mid-write left it
      fs::remove(p, e2);
      continue;
    }
    total += size;  // a live writer's temporary counts, but is not this process's to remove
    if (has_suffix(p, suffixes)) files.push_back({p, size, time});
  }
  return files;
}

}  // namespace

void evict_least_recently_used(const std::string& dir, std::uint64_t max_bytes,
                               const std::vector<std::string_view>& suffixes) {
  std::uint64_t total = 0;
  std::vector<File> files = list(dir, suffixes, total);
  if (total <= max_bytes) return;
  std::sort(files.begin(), files.end(),
            [](const File& a, const File& b) { return a.time < b.time; });
  for (const File& f : files) {
    if (total <= max_bytes) break;
    std::error_code ec;
    fs::remove(f.path, ec);
    total -= f.size;
  }
}

}  // namespace hhlo
