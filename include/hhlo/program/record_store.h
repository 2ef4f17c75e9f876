// The program stage's records: what a load (hhlo/program/program_cache.h), `hhlo run`'s input
// names and `hhlo tune`'s choice (hhlo/program/tune.h) remember of a program, in a store of their
// own beside the compile cache's executables: the same folder and size bound, files of their own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/runtime/compile_cache.h"

namespace hhlo {

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
