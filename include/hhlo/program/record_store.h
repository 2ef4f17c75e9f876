// The program stage's records: what a load (hhlo/program/program_cache.h), `hhlo run`'s input
// names and `hhlo tune`'s choice (hhlo/program/tune.h) remember of a program, in a store of their
// own beside the compile cache's executables: the same folder and size bound, files of their own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/core/sha256.h"
#include "hhlo/runtime/compile_cache.h"

namespace hhlo {

/// The payload of a record mapped read-only (mmap), as RecordStore::map gives it: for large
/// binary records (the constants hoisted out of a program, hhlo/program/hoist_constants.h) read
/// once, in parts, without a copy on the heap, its SHA-256 checked as it is consumed. Unmapped
/// when destroyed. Move-only.
class MappedRecord {
 public:
  MappedRecord() = default;
  MappedRecord(MappedRecord&& other) noexcept;
  MappedRecord& operator=(MappedRecord&& other) noexcept;
  MappedRecord(const MappedRecord&) = delete;
  MappedRecord& operator=(const MappedRecord&) = delete;
  ~MappedRecord();

  /// Bytes of the payload (what RecordStore::write was given).
  std::size_t size() const { return size_; }
  /// The next `n` bytes of the payload (fewer at its end), fed to the digest; the whole pages
  /// before them are unmapped first (what earlier calls gave must not be read any more), so
  /// that a consumed part stops counting as resident. Not yet checked: see sound(). Throws
  /// hhlo::Error only if libcrypto fails.
  std::string_view next(std::size_t n);
  /// True when next() gave every byte of the payload and their SHA-256 is the one its header
  /// holds; call once, at the end. Throws hhlo::Error only if libcrypto fails.
  bool sound();

  /// Internal: the mapping of `length` bytes at `base`, the payload `size` bytes at `offset`,
  /// its SHA-256 (hex) `digest`.
  MappedRecord(char* base, std::size_t length, std::size_t offset, std::size_t size,
               std::string digest);

 private:
  void unmap();
  char* base_ = nullptr;
  std::size_t length_ = 0, offset_ = 0, size_ = 0;
  /// Bytes from base_ already unmapped (a multiple of the page size).
  std::size_t released_ = 0;
  /// Bytes of the payload next() gave.
  std::size_t taken_ = 0;
  std::string digest_;
  std::optional<Sha256> hash_;
};

/// A folder of small text records (the program stage's JSON) keyed by 64-hex-digit keys: one file
/// `<key>.hrec` each, a header line ("hhlo-record 1 KEY SHA256-OF-TEXT") then the text, written
/// atomically (write_file_atomically). It lives in a compile cache's folder and counts towards its
/// size bound: past it, the least recently used records and executables go
/// (evict_after_write, hhlo/core/lru_folder.h). A damaged record (short, corrupted,
/// written for another key) is removed and reported, never a crash. Thread-safe.
class RecordStore {
 public:
  /// The store of `cache`: its folder, on when it is on, within its bound. Never throws.
  explicit RecordStore(const CompileCache& cache);

  /// True when records are read and written.
  bool enabled() const { return enabled_; }
  /// Path of record `key` (whether or not it exists).
  std::string path(const std::string& key) const;

  /// The text of record `key`, or nullopt when absent or damaged (then removed, and `bad`, if not
  /// null, set). Refreshes the record's time (least recently used order). Never throws.
  std::optional<std::string> read(const std::string& key, bool* bad = nullptr);
  /// The record `key` mapped read-only, its header checked (the form read() checks, for this
  /// key) and its payload's digest left to check as it is consumed (MappedRecord::next, then
  /// sound(): a record found unsound there is the caller's to remove), or nullopt when absent,
  /// of another form or key (then removed, and `bad`, if not null, set) or not mappable.
  /// Refreshes the record's time. Never throws.
  std::optional<MappedRecord> map(const std::string& key, bool* bad = nullptr);
  /// Writes record `key` atomically, then keeps the folder within its bound. False when the store
  /// is off, `key` is not 64 lowercase hex digits, or the folder is not writable. Never throws.
  bool write(const std::string& key, std::string_view text);
  /// Removes record `key`; true when there was one, false when there was none (or the store is
  /// off). Throws hhlo::IoError naming the record when it exists and cannot be removed.
  bool remove(const std::string& key);

 private:
  std::string dir_;
  bool enabled_;
  std::uint64_t max_bytes_;
};

}  // namespace hhlo
