// The persistent compile cache: executables serialized to disk (PJRT_Executable_Serialize) and
// loaded back in later processes (PJRT_Executable_DeserializeAndLoad) instead of compiling again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/core/sha256.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_options.h"
#include "hhlo/runtime/executable.h"

namespace hhlo {

/// Where and whether the compile cache keeps its entries.
struct CompileCacheOptions {
  /// Folder of the entries (created on first write); "" = default_compile_cache_dir().
  std::string dir;
  /// False: every compile goes to the plugin, nothing is read or written.
  bool enabled = true;
  /// Bound on the total bytes of the folder; past it, the least recently used entries are removed
  /// (what it counts, and when: evict_after_write, hhlo/core/lru_folder.h).
  std::uint64_t max_bytes = std::uint64_t{1} << 30;

  /// The defaults, changed by the environment: `HHLO_COMPILE_CACHE` = a folder (relocates the
  /// cache) or `off` / `0` / `false` (disables it); `HHLO_COMPILE_CACHE_MAX_MB` = the bound in MiB.
  /// Never throws: a bound that is not a whole number of MiB from 0 to 2^44-1 (`1.5`, `-5`,
  /// `17592186044416`) gives one warning line on stderr per process and the default.
  static CompileCacheOptions from_environment();
};

/// `$XDG_CACHE_HOME/hhlo/compile`, else `$HOME/.cache/hhlo/compile`, else "" (no home: the
/// cache is then off unless a folder is given). Never throws.
std::string default_compile_cache_dir();

/// What CompileCache::compile did.
enum class CacheOutcome {
  disabled,  ///< cache off (or its folder unusable): compiled
  hit,       ///< entry found, checked and loaded: nothing compiled
  miss,      ///< no entry: compiled, entry written
  rejected,  ///< entry found but truncated, corrupted, foreign or not loadable: compiled, rewritten
};

/// A folder of compiled executables keyed by sha256 over the program bytes, the serialized
/// compile options, the plugin (path, file size and time, PJRT C API version, attributes), the
/// platform and device kind and count, the host CPU (model and feature flags) and the library
/// version. Each entry `<key>.hxc` holds a header (magic, key, payload size, payload sha256) and
/// the serialized executable; it is written to a temporary file and renamed into place, so
/// readers see a whole entry or none, and two processes filling one entry both succeed. A bad
/// entry is never a crash: it is recompiled and replaced. An unusable folder gives one warning line
/// on stderr per process, then compiles as if the cache were off. Thread-safe.
class CompileCache {
 public:
  /// Never throws; the folder is created on the first write.
  explicit CompileCache(CompileCacheOptions options = CompileCacheOptions::from_environment());

  /// The folder in use ("" when off).
  const std::string& dir() const { return dir_; }
  /// True when entries are read and written.
  bool enabled() const { return enabled_; }
  /// The bound on the bytes of the folder (CompileCacheOptions::max_bytes).
  std::uint64_t max_bytes() const { return max_bytes_; }

  /// The 64-hex-digit digest of what an executable compiled on `client` depends on besides its
  /// program and options: the library version, the plugin (path, file size and time, PJRT C API
  /// version, attributes), the platform and its version, the device kind and count, the host
  /// CPU. Equal for two clients whose executables are interchangeable. Never throws.
  std::string client_identity(const Client& client) const;
  /// The 64-hex-digit digest of the part of client_identity that needs no client: the library
  /// version, the plugin (path, file size and time, PJRT C API version, attributes), the host
  /// CPU. Never throws.
  std::string plugin_identity(const Plugin& plugin) const;

  /// The 64-hex-digit key of compiling the program text `program` (PrintedProgram::text) with
  /// `options` on `client` (its client_identity). Throws hhlo::Error for inconsistent options
  /// (serialize_compile_options).
  std::string key(const Client& client, std::string_view program,
                  const CompileOptions& options) const;

  /// The executable of `program` (Client::compile): loaded from the entry of its key when one is
  /// present and sound, else compiled and stored. `outcome` (if not null) says which; `key` (if
  /// not null) receives the entry's key ("" when the cache is off). Throws what Client::compile
  /// throws; cache faults never throw.
  LoadedExecutable compile(const Client& client, const PrintedProgram& program,
                           const CompileOptions& options = {}, CacheOutcome* outcome = nullptr,
                           std::string* key = nullptr);

  /// The executable of entry `key` loaded on `client` (PJRT_Executable_DeserializeAndLoad), or
  /// nullopt when the entry is absent, damaged (then removed) or the plugin will not load it.
  /// Never throws.
  std::optional<LoadedExecutable> load(const Client& client, const std::string& key);

  /// The checked payload (serialized executable) of entry `key`, or nullopt when absent, short,
  /// corrupted or written for another key (such an entry is removed, and `bad`, if not null, is
  /// set). Refreshes the entry's time (least recently used order). Never throws.
  std::optional<std::string> read(const std::string& key, bool* bad = nullptr);
  /// Writes entry `key` atomically (write_file_atomically: temporary file, fsync, rename), then
  /// evicts the least recently used entries past max_bytes (evict_after_write,
  /// hhlo/core/lru_folder.h: what the bound counts, and when the folder is listed). Temporary
  /// files in the folder count towards max_bytes; those left by a writer that is gone (its
  /// process no longer exists, or older than an hour: a writer killed mid-write) are removed when
  /// the folder is listed. False (after the one-line warning) when the folder is not writable.
  /// Never throws.
  bool write(const std::string& key, std::string_view executable);
  /// Removes entry `key`; true when there was one, false when there was none (or the cache is
  /// off). Throws hhlo::IoError naming the entry when it exists and cannot be removed.
  bool remove(const std::string& key);
  /// Path of entry `key` (whether or not it exists).
  std::string entry_path(const std::string& key) const;

 private:
  void warn_once(const std::string& what);
  /// The executable of entry `key` on `client`, or nullopt; `rejected` set when the entry was
  /// there but damaged or not loadable.
  std::optional<LoadedExecutable> load_checked(const Client& client, const std::string& key,
                                               bool& rejected);
  /// Writes `exe` (serialized) under `key`; false when the cache keeps nothing of it.
  bool store(const std::string& key, const LoadedExecutable& exe);
  /// Keeps the folder within max_bytes after `written` was written (evict_after_write).
  void evict_after(const std::string& written);

  std::string dir_;
  bool enabled_;
  std::uint64_t max_bytes_;
};

}  // namespace hhlo
