// The program stage's records (hhlo/program/record_store.h).
#include "hhlo/program/record_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <span>
#include <system_error>
#include <utility>

#include "hhlo/core/error.h"
#include "hhlo/core/file_io.h"
#include "hhlo/core/lru_folder.h"
#include "hhlo/core/sha256.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSuffix = ".hrec";
/// The executables' entries (hhlo/runtime/compile_cache.h), evicted with the records.
constexpr std::string_view kExecutableSuffix = ".hxc";

bool valid_key(const std::string& key) {
  return key.size() == 64 && std::all_of(key.begin(), key.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) &&
                  !std::isupper(static_cast<unsigned char>(c));
         });
}

std::string header(const std::string& key, std::string_view text) {
  return fmt::format("hhlo-record 1 {} {}\n", key, sha256_hex(text));
}

/// The text of `data` when it is the record of `key`, else nullopt.
std::optional<std::string> checked_text(const std::string& key, const std::string& data) {
  std::size_t eol = data.find('\n');
  if (eol == std::string::npos) return std::nullopt;
  std::string text = data.substr(eol + 1);
  if (data.compare(0, eol + 1, header(key, text)) != 0) return std::nullopt;
  return text;
}

}  // namespace

MappedRecord::MappedRecord(MappedRecord&& other) noexcept { *this = std::move(other); }

MappedRecord& MappedRecord::operator=(MappedRecord&& other) noexcept {
  if (this != &other) {
    unmap();
    base_ = std::exchange(other.base_, nullptr);
    length_ = std::exchange(other.length_, 0);
    offset_ = std::exchange(other.offset_, 0);
    size_ = std::exchange(other.size_, 0);
    released_ = std::exchange(other.released_, 0);
  }
  return *this;
}

MappedRecord::~MappedRecord() { unmap(); }

void MappedRecord::unmap() {
  if (base_ && length_ > released_) ::munmap(base_ + released_, length_ - released_);
  base_ = nullptr;
}

void MappedRecord::release_before(std::size_t end) {
  if (!base_) return;
  std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t upto = std::min(offset_ + end, length_) / page * page;
  if (upto <= released_) return;
  ::munmap(base_ + released_, upto - released_);
  released_ = upto;
}

RecordStore::RecordStore(const CompileCache& cache)
    : dir_(cache.dir()), enabled_(cache.enabled()), max_bytes_(cache.max_bytes()) {}

std::string RecordStore::path(const std::string& key) const {
  return (fs::path(dir_) / (key + std::string(kSuffix))).string();
}

std::optional<std::string> RecordStore::read(const std::string& key, bool* bad) {
  if (bad) *bad = false;
  if (!enabled_ || !valid_key(key)) return std::nullopt;
  std::string p = path(key);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(p, ec))) return std::nullopt;
  std::string data;
  try {
    data = read_regular_file(p, "record");
  } catch (const IoError&) {  // a folder in its place, unreadable: damaged, found bad below
  }
  if (std::optional<std::string> text = checked_text(key, data)) {
    fs::last_write_time(p, fs::file_time_type::clock::now(), ec);  // least recently used order
    return text;
  }
  fs::remove(p, ec);
  if (bad) *bad = true;
  return std::nullopt;
}

namespace {

/// `path` mapped read-only whole (the caller unmaps it), or an empty span (absent, empty, not
/// mappable).
std::span<char> map_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  void* base = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    base = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) return {};
  return {static_cast<char*>(base), static_cast<std::size_t>(st.st_size)};
}

/// The offset of the payload in `data` when it is the record of `key`, else nullopt.
std::optional<std::size_t> checked_payload(const std::string& key, std::string_view data) {
  std::size_t eol = data.find('\n');
  if (eol == std::string_view::npos) return std::nullopt;
  if (data.substr(0, eol + 1) != header(key, data.substr(eol + 1))) return std::nullopt;
  return eol + 1;
}

}  // namespace

std::optional<MappedRecord> RecordStore::map(const std::string& key, bool* bad) {
  if (bad) *bad = false;
  if (!enabled_ || !valid_key(key)) return std::nullopt;
  std::string p = path(key);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(p, ec))) return std::nullopt;
  std::span<char> whole = map_file(p);
  if (!whole.empty()) {
    if (std::optional<std::size_t> at = checked_payload(key, {whole.data(), whole.size()})) {
      fs::last_write_time(p, fs::file_time_type::clock::now(), ec);  // least recently used
      return MappedRecord(whole.data(), whole.size(), *at, whole.size() - *at);
    }
    ::munmap(whole.data(), whole.size());
  }
  fs::remove(p, ec);
  if (bad) *bad = true;
  return std::nullopt;
}

bool RecordStore::write(const std::string& key, std::string_view text) {
  if (!enabled_ || !valid_key(key)) return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return false;
  try {
    write_file_atomically(path(key), header(key, text) + std::string(text), "record");
  } catch (const IoError&) {
    return false;
  }
  evict_after_write(dir_, max_bytes_, {kSuffix, kExecutableSuffix}, path(key));
  return true;
}

bool RecordStore::remove(const std::string& key) {
  if (!enabled_ || !valid_key(key)) return false;
  std::error_code ec;
  bool removed = fs::remove(path(key), ec);
  if (ec) throw IoError(fmt::format("record {}: cannot remove it: {}", path(key), ec.message()));
  return removed;
}

}  // namespace hhlo
