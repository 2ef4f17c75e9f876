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

MappedRecord::MappedRecord(char* base, std::size_t length, std::size_t offset, std::size_t size,
                           std::string digest)
    : base_(base), length_(length), offset_(offset), size_(size), digest_(std::move(digest)) {}

MappedRecord::MappedRecord(MappedRecord&& other) noexcept { *this = std::move(other); }

MappedRecord& MappedRecord::operator=(MappedRecord&& other) noexcept {
  if (this != &other) {
    unmap();
    base_ = std::exchange(other.base_, nullptr);
    length_ = std::exchange(other.length_, 0);
    offset_ = std::exchange(other.offset_, 0);
    size_ = std::exchange(other.size_, 0);
    released_ = std::exchange(other.released_, 0);
    taken_ = std::exchange(other.taken_, 0);
    digest_ = std::move(other.digest_);
    hash_ = std::move(other.hash_);
    other.hash_.reset();
  }
  return *this;
}

MappedRecord::~MappedRecord() { unmap(); }

void MappedRecord::unmap() {
  if (base_ && length_ > released_) ::munmap(base_ + released_, length_ - released_);
  base_ = nullptr;
}

std::string_view MappedRecord::next(std::size_t n) {
  if (!base_) return {};
  std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t upto = (offset_ + taken_) / page * page;
  if (upto > released_) {
    ::munmap(base_ + released_, upto - released_);
    released_ = upto;
  }
  std::string_view part(base_ + offset_ + taken_, std::min(n, size_ - taken_));
  if (!hash_) hash_.emplace();
  hash_->update(part);
  taken_ += part.size();
  return part;
}

bool MappedRecord::sound() {
  if (!base_ || taken_ != size_) return false;
  if (!hash_) hash_.emplace();
  std::string got = hash_->hex();
  hash_.reset();
  return got == digest_;
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

/// The offset of the payload in `data` when its header has the form of the record of `key` (its
/// digest not checked: `digest` receives it), else nullopt.
std::optional<std::size_t> payload_at(const std::string& key, std::string_view data,
                                      std::string& digest) {
  std::string_view prefix = "hhlo-record 1 ";
  std::size_t at = prefix.size() + key.size() + 1, eol = at + 64;
  if (data.size() <= eol || !data.starts_with(prefix) ||
      data.substr(prefix.size(), key.size()) != key || data[at - 1] != ' ' || data[eol] != '\n')
    return std::nullopt;
  digest = std::string(data.substr(at, 64));
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
    std::string digest;
    if (std::optional<std::size_t> at = payload_at(key, {whole.data(), whole.size()}, digest)) {
      fs::last_write_time(p, fs::file_time_type::clock::now(), ec);  // least recently used
      return MappedRecord(whole.data(), whole.size(), *at, whole.size() - *at, std::move(digest));
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
