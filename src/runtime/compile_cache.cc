#include "hhlo/runtime/compile_cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <set>
#include <sstream>
#include <system_error>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/core/file_io.h"
#include "hhlo/core/key_fields.h"
#include "hhlo/core/lru_folder.h"
#include "pjrt.h"

#ifndef HHLO_VERSION
#define HHLO_VERSION "unknown"
#endif

namespace hhlo {

namespace fs = std::filesystem;

namespace {

// Entry layout: magic (8) | key (32 raw bytes) | payload size (u64 LE) | payload sha256 (32) |
// payload. The key inside the entry catches a file copied or renamed under another key.
constexpr char kMagic[8] = {'H', 'H', 'L', 'O', 'X', 'C', '0', '1'};
constexpr std::size_t kHeader = 8 + 32 + 8 + 32;
constexpr const char* kSuffix = ".hxc";
constexpr const char* kRecordSuffix = ".hrec";

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

bool valid_key(const std::string& key) {
  return key.size() == 64 && std::all_of(key.begin(), key.end(), [](char c) {
           return std::isxdigit(c) && !std::isupper(c);
         });
}

// Host CPU identity: the model name and the feature flags of the first processor. An executable
// compiled for one CPU's features is not loaded on another (a cache folder shared between hosts).
const std::string& cpu_identity() {
  static const std::string id = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line, model, flags;
    while (std::getline(in, line) && (model.empty() || flags.empty())) {
      if (model.empty() && line.rfind("model name", 0) == 0) model = line;
      if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
    }
    return model + "\n" + flags;
  }();
  return id;
}

std::string attribute_text(const PluginAttribute& a) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          std::string s;
          for (int64_t x : v) s += fmt::format("{},", x);
          return s;
        } else {
          return fmt::format("{}", v);
        }
      },
      a);
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// The largest bound in MiB whose byte count fits 64 bits.
constexpr std::uint64_t kMaxMib = std::numeric_limits<std::uint64_t>::max() >> 20;

/// `text` as a count of MiB: decimal digits only (no sign, point or exponent), at most kMaxMib.
std::optional<std::uint64_t> whole_mib(std::string_view text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  std::uint64_t mb = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (mb > (kMaxMib - (c - '0')) / 10) return std::nullopt;
    mb = mb * 10 + (c - '0');
  }
  return mb;
}

bool env_off(const char* v) {
  std::string s = v;
  return s == "off" || s == "0" || s == "false" || s == "OFF" || s == "none";
}

}  // namespace

std::string default_compile_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
    return (fs::path(x) / "hhlo" / "compile").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".cache" / "hhlo" / "compile").string();
  return "";
}

CompileCacheOptions CompileCacheOptions::from_environment() {
  CompileCacheOptions o;
  if (const char* v = std::getenv("HHLO_COMPILE_CACHE"); v && *v) {
    if (env_off(v))
      o.enabled = false;
    else
      o.dir = v;
  }
  if (const char* v = std::getenv("HHLO_COMPILE_CACHE_MAX_MB"); v && *v) {
    if (std::optional<std::uint64_t> mb = whole_mib(v)) {
      o.max_bytes = *mb << 20;
    } else {
      static std::once_flag warned;  // one line per process
      std::call_once(warned, [&] {
        std::fprintf(stderr,
                     "hhlo: warning: HHLO_COMPILE_CACHE_MAX_MB='%s' is not a whole number of MiB "
                     "from 0 to %llu; using the default, %llu MiB\n",
                     v, static_cast<unsigned long long>(kMaxMib),
                     static_cast<unsigned long long>(o.max_bytes >> 20));
      });
    }
  }
  return o;
}

CompileCache::CompileCache(CompileCacheOptions options)
    : dir_(options.enabled ? (options.dir.empty() ? default_compile_cache_dir() : options.dir)
                           : ""),
      enabled_(options.enabled && !dir_.empty()),
      max_bytes_(options.max_bytes) {}

std::string CompileCache::entry_path(const std::string& key) const {
  return (fs::path(dir_) / (key + kSuffix)).string();
}

std::string CompileCache::plugin_identity(const Plugin& plugin) const {
  Sha256 in;
  write_field(in, "library", HHLO_VERSION);
  write_field(in, "plugin", plugin.path());
  std::error_code ec;
  auto size = fs::file_size(plugin.path(), ec);
  write_field(in, "plugin-size", ec ? "?" : std::to_string(size));
  auto time = fs::last_write_time(plugin.path(), ec);
  write_field(in, "plugin-time", ec ? "?" : std::to_string(time.time_since_epoch().count()));
  write_field(in, "pjrt", fmt::format("{}.{}", plugin.api_major(), plugin.api_minor()));
  for (const auto& [name, value] : plugin.attributes())
    write_field(in, "attr:" + name, attribute_text(value));
  write_field(in, "cpu", cpu_identity());
  return in.hex();
}

std::string CompileCache::client_identity(const Client& client) const {
  Sha256 in;
  write_field(in, "plugin", plugin_identity(client.state()->plugin));
  write_field(in, "platform", client.platform_name() + " " + client.platform_version());
  std::vector<Device> devices = client.devices();
  write_field(in, "devices", std::to_string(devices.size()));
  write_field(in, "device-kind", devices.empty() ? "" : devices.front().kind());
  return in.hex();
}

std::string CompileCache::key(const Client& client, std::string_view program,
                              const CompileOptions& options) const {
  Sha256 in;
  write_field(in, "hhlo-compile-cache", "3");
  write_field(in, "client", client_identity(client));
  write_field(in, "options", serialize_compile_options(options));
  write_field(in, "program", program);
  return in.hex();
}

std::optional<LoadedExecutable> CompileCache::load(const Client& client, const std::string& key) {
  bool rejected = false;
  return load_checked(client, key, rejected);
}

void CompileCache::warn_once(const std::string& what) {
  static std::mutex mu;
  static std::set<std::string> warned;  // one line per folder and process
  std::lock_guard lock(mu);
  if (warned.insert(dir_).second)
    std::fprintf(stderr, "hhlo: warning: compile cache %s: %s; compiling without it\n",
                 dir_.c_str(), what.c_str());
}

std::optional<std::string> CompileCache::read(const std::string& key, bool* bad) {
  if (bad) *bad = false;
  if (!enabled_ || !valid_key(key)) return std::nullopt;
  std::string path = entry_path(key);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
  std::string data;
  try {
    data = read_regular_file(path, "compile cache entry");
  } catch (const IoError&) {  // not a regular file (a folder in the entry's place), unreadable:
                              // a damaged entry, left empty and so found bad just below
  }
  bool ok = data.size() >= kHeader && std::memcmp(data.data(), kMagic, 8) == 0 &&
            data.compare(8, 32, from_hex(key)) == 0 &&
            get_u64(data.data() + 40) == data.size() - kHeader;
  if (ok) {
    std::string payload = data.substr(kHeader);
    if (data.compare(48, 32, sha256(payload)) == 0) {
      std::error_code ec;  // least recently used = oldest modification time
      fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
      return payload;
    }
  }
  fs::remove(path, ec);  // truncated, corrupted or foreign: drop it, the caller recompiles
  if (bad) *bad = true;
  return std::nullopt;
}

bool CompileCache::remove(const std::string& key) {
  if (!enabled_ || !valid_key(key)) return false;
  std::error_code ec;
  bool removed = fs::remove(entry_path(key), ec);
  if (ec)
    throw IoError(
        fmt::format("compile cache entry {}: cannot remove it: {}", entry_path(key), ec.message()));
  return removed;
}

bool CompileCache::write(const std::string& key, std::string_view executable) {
  if (!enabled_ || !valid_key(key)) return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    warn_once(fmt::format("cannot create the folder ({})", ec.message()));
    return false;
  }
  std::string data(kMagic, 8);
  data += from_hex(key);
  put_u64(data, executable.size());
  data += sha256(executable);
  data.append(executable);
  try {
    write_file_atomically(entry_path(key), data, "compile cache entry");
  } catch (const IoError& e) {
    warn_once(fmt::format("cannot write an entry ({})", e.what()));
    return false;
  }
  evict_after(entry_path(key));
  return true;
}

void CompileCache::evict_after(const std::string& written) {
  // Records of the program stage (hhlo/program/record_store.h, `.hrec`) share the folder and
  // bound: the least recently used of both go.
  evict_after_write(dir_, max_bytes_, {kSuffix, kRecordSuffix}, written);
}

LoadedExecutable CompileCache::compile(const Client& client, const PrintedProgram& program,
                                       const CompileOptions& options, CacheOutcome* outcome,
                                       std::string* key_out) {
  auto report = [&](CacheOutcome o) {
    if (outcome) *outcome = o;
  };
  if (key_out) key_out->clear();
  if (!enabled_) {
    report(CacheOutcome::disabled);
    return client.compile(program, options);
  }
  std::string k = key(client, program.text(), options);
  if (key_out) *key_out = k;
  bool rejected = false;
  if (std::optional<LoadedExecutable> exe = load_checked(client, k, rejected)) {
    report(CacheOutcome::hit);
    return std::move(*exe);
  }
  LoadedExecutable exe = client.compile(program, options);
  bool stored = store(k, exe);
  report(rejected ? CacheOutcome::rejected : stored ? CacheOutcome::miss : CacheOutcome::disabled);
  return exe;
}

std::optional<LoadedExecutable> CompileCache::load_checked(const Client& client,
                                                           const std::string& key, bool& rejected) {
  std::optional<std::string> bytes = read(key, &rejected);
  if (!bytes) return std::nullopt;
  try {
    return client.deserialize(*bytes);
  } catch (const std::exception&) {
    // A sound entry the plugin will not load (e.g. another build's executable): recompile.
    rejected = true;
    return std::nullopt;
  }
}

bool CompileCache::store(const std::string& key, const LoadedExecutable& exe) {
  try {
    return write(key, exe.serialize());
  } catch (const std::exception& e) {  // the plugin cannot serialize this executable
    warn_once(fmt::format("the plugin cannot serialize the executable ({})", e.what()));
    return false;
  }
}

}  // namespace hhlo
