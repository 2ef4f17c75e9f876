// A folder under a size bound (hhlo/core/lru_folder.h).
#include "hhlo/core/lru_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <optional>
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

/// What a listing found: the evictable files, the total bytes and the number of all files.
struct Listing {
  std::vector<File> evictable;
  std::uint64_t total = 0;
  std::uint64_t files = 0;
};

bool has_suffix(const std::string& name, const std::vector<std::string_view>& suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view s) {
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  });
}

/// Lists `dir` (stale temporaries removed; the ledger not counted).
Listing list(const std::string& dir, const std::vector<std::string_view>& suffixes) {
  Listing l;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    if (name == kUsageLedger) continue;
    std::error_code e2;
    std::uint64_t size = fs::file_size(p, e2);
    auto time = fs::last_write_time(p, e2);
    if (e2) continue;                   // removed meanwhile by another process
    if (is_stale_temporary(p, time)) {  // a writer killed mid-write left it
      fs::remove(p, e2);
      continue;
    }
    l.total += size;  // a live writer's temporary counts, but is not this process's to remove
    ++l.files;
    if (has_suffix(name, suffixes)) l.evictable.push_back({p, size, time});
  }
  return l;
}

/// Removes the oldest evictable files of `l` until its total is within `target`.
void evict_down_to(Listing& l, std::uint64_t target) {
  if (l.total <= target) return;
  std::sort(l.evictable.begin(), l.evictable.end(),
            [](const File& a, const File& b) { return a.time < b.time; });
  for (const File& f : l.evictable) {
    if (l.total <= target) break;
    std::error_code ec;
    fs::remove(f.path, ec);
    l.total -= f.size;
    --l.files;
  }
}

/// The ledger's content: one line of fixed length, so that an in-place rewrite replaces all of it.
struct Ledger {
  std::uint64_t total = 0;   // bytes: the last listing's, plus those written since
  std::uint64_t files = 0;   // files the last listing found (left after its evictions)
  std::uint64_t writes = 0;  // writes since the last listing
};

constexpr const char* kLedgerFormat =
    "hhlo-usage 1 total=%020" PRIu64 " files=%020" PRIu64 " writes=%020" PRIu64;
constexpr const char* kLedgerScan =
    "hhlo-usage 1 total=%20" SCNu64 " files=%20" SCNu64 " writes=%20" SCNu64;
constexpr std::size_t kLedgerBody = 19 + 20 + 7 + 20 + 8 + 20;  // the numbers, without checksum
constexpr std::size_t kLedgerSize = kLedgerBody + 22;           // " fnv=" 16 hex digits "\n"

/// FNV-1a, 64 bits: catches a torn or damaged ledger (not an adversary).
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string format_ledger(const Ledger& l) {
  char body[kLedgerBody + 1];
  std::snprintf(body, sizeof body, kLedgerFormat, l.total, l.files, l.writes);
  char line[kLedgerSize + 1];
  std::snprintf(line, sizeof line, "%s fnv=%016" PRIx64 "\n", body, fnv1a(body));
  return std::string(line, kLedgerSize);
}

/// The ledger in `text`, or nullopt when it is not exactly one (empty, torn, damaged).
std::optional<Ledger> parse_ledger(std::string_view text) {
  if (text.size() != kLedgerSize) return std::nullopt;
  Ledger l;
  std::string body(text.substr(0, kLedgerBody));
  if (std::sscanf(body.c_str(), kLedgerScan, &l.total, &l.files, &l.writes) != 3)
    return std::nullopt;
  if (format_ledger(l) != text) return std::nullopt;  // the checksum and every digit agree
  return l;
}

/// The ledger file of a folder, open and locked (flock: exclusive, released on close).
class LockedLedger {
 public:
  explicit LockedLedger(const std::string& dir)
      : fd_(::open((fs::path(dir) / kUsageLedger).c_str(),
                   O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)) {
    if (fd_ < 0) return;
    int rc;
    while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  LockedLedger(const LockedLedger&) = delete;
  LockedLedger& operator=(const LockedLedger&) = delete;
  ~LockedLedger() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool locked() const { return fd_ >= 0; }

  std::optional<Ledger> read() const {
    char buf[kLedgerSize + 1];
    ssize_t n = ::pread(fd_, buf, sizeof buf, 0);
    if (n < 0) return std::nullopt;
    return parse_ledger(std::string_view(buf, static_cast<std::size_t>(n)));
  }
  /// Rewrites the ledger in place; a failure leaves it unreadable or as it was (listed next time).
  void write(const Ledger& l) const {
    std::string line = format_ledger(l);
    if (::pwrite(fd_, line.data(), line.size(), 0) == static_cast<ssize_t>(line.size()))
      (void)!::ftruncate(fd_, static_cast<off_t>(line.size()));  // a longer damaged one
  }

 private:
  int fd_;
};

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

}  // namespace

void evict_least_recently_used(const std::string& dir, std::uint64_t max_bytes,
                               const std::vector<std::string_view>& suffixes) {
  Listing l = list(dir, suffixes);
  evict_down_to(l, max_bytes);
}

void evict_after_write(const std::string& dir, std::uint64_t max_bytes,
                       const std::vector<std::string_view>& suffixes, const std::string& written) {
  std::error_code ec;
  std::uint64_t size = fs::file_size(written, ec);
  if (ec) size = 0;  // already evicted by another process: nothing to count
  LockedLedger ledger(dir);
  if (!ledger.locked()) return evict_least_recently_used(dir, max_bytes, suffixes);
  std::optional<Ledger> l = ledger.read();
  bool over = false;
  if (l) {
    l->total = saturating_add(l->total, size);
    ++l->writes;
    over = l->total > max_bytes;
    if (!over && l->writes < std::max(kMinWritesBetweenScans, l->files)) {
      ledger.write(*l);
      return;
    }
  }
  Listing found = list(dir, suffixes);  // `written` among the files: counted once
  if (over || found.total > max_bytes) evict_down_to(found, max_bytes - max_bytes / 10);
  ledger.write({.total = found.total, .files = found.files, .writes = 0});
}

}  // namespace hhlo
