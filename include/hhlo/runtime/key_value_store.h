// The key-value store a multi-process PJRT client rendezvouses through (PJRT_Client_Create's
// kv_get_callback, kv_put_callback and kv_try_get_callback), and one implementation over a
// directory every process can reach. See docs/spmd.md, "Many hosts".
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/core/error.h"

namespace hhlo {

/// A store of string values by string key, shared by all processes of one multi-process client
/// (one process per host, each with its `node_id`). A user implements it over whatever every
/// process can reach (a shared directory, Redis, etcd, a coordinator service) and passes it to
/// Client::create (ClientCreateOptions::kv_store); the plugin then calls it from its own threads
/// during and after client creation to exchange topology and communicator ids.
///
/// Requirements (those the PJRT C API states for the callbacks): every method is thread-safe;
/// get() blocks; values are opaque bytes (not only text). Any exception a method throws is
/// handed to the plugin as a PJRT error naming the key (code DEADLINE_EXCEEDED for
/// KeyValueTimeout, NOT_FOUND for an absent try_get, UNKNOWN otherwise) and comes back out of
/// the PJRT call that made the request as hhlo::PjrtError.
class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  /// Stores `value` under `key`, replacing any value there (PJRT_KeyValuePutCallback).
  virtual void set(std::string_view key, std::string_view value) = 0;
  /// The value of `key`, waiting up to `timeout` for another process to set it
  /// (PJRT_KeyValueGetCallback). Throws KeyValueTimeout when it is still absent then.
  virtual std::string get(std::string_view key, std::chrono::milliseconds timeout) = 0;
  /// The value of `key` if it is set now, else nullopt; never waits
  /// (PJRT_KeyValueTryGetCallback, in the 0.115 C API).
  virtual std::optional<std::string> try_get(std::string_view key) = 0;
};

/// KeyValueStore::get found no value for `key()` within `timeout()`.
class KeyValueTimeout : public Error {
 public:
  KeyValueTimeout(std::string key, std::chrono::milliseconds timeout, const std::string& where);
  const std::string& key() const { return key_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::string key_;
  std::chrono::milliseconds timeout_;
};

/// A KeyValueStore over a directory every process can see (a local temp directory for processes
/// of one host; an NFS or other shared mount across hosts). One file per key: the file name is
/// the key with every byte outside [A-Za-z0-9_-] written %XX (so "a/b" is "a%2Fb"); set() writes
/// a temporary file in the same directory and renames it over the key's file, so a reader sees
/// the old value or the new one, never a partial one; get() polls for the file.
class DirectoryKeyValueStore final : public KeyValueStore {
 public:
  /// Uses `dir`, creating it (and its parents) when missing. `poll` is how often get() looks
  /// again. Throws hhlo::IoError when `dir` cannot be created or is not a directory.
  explicit DirectoryKeyValueStore(std::filesystem::path dir,
                                  std::chrono::milliseconds poll = std::chrono::milliseconds(5));
  /// Throws hhlo::IoError naming the key and the file when it cannot be written, hhlo::Error for
  /// an empty key or one whose file name would exceed 240 bytes.
  void set(std::string_view key, std::string_view value) override;
  /// Throws KeyValueTimeout naming the key, the timeout and the directory; hhlo::IoError when
  /// the key's file exists but cannot be read.
  std::string get(std::string_view key, std::chrono::milliseconds timeout) override;
  /// Throws hhlo::IoError when the key's file exists but cannot be read.
  std::optional<std::string> try_get(std::string_view key) override;

  const std::filesystem::path& directory() const { return dir_; }
  /// The file that holds `key` (directory() / encoded key). Throws as set() does for a bad key.
  std::filesystem::path path_of(std::string_view key) const;

 private:
  std::filesystem::path dir_;
  std::chrono::milliseconds poll_;
};

}  // namespace hhlo
