// A loaded PJRT plugin: the shared library that exports `GetPjrtApi` (PJRT C API).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace hhlo {

namespace detail {
struct PluginState;
}

/// A plugin attribute value as returned by PJRT_Plugin_Attributes.
using PluginAttribute = std::variant<std::string, int64_t, std::vector<int64_t>, float, bool>;

/// PJRT C API extension kinds we look up (the values of PJRT_Extension_Type).
enum class PluginExtension : int {
  gpu_custom_call = 0,
  profiler = 1,
  custom_partitioner = 2,
  stream = 3,
  layouts = 4,
  ffi = 5,
  memory_descriptions = 6,
};

/// A PJRT plugin, loaded once per path and never unloaded (XLA keeps static state and threads;
/// `dlclose` is unsafe). Cheap to copy: all copies refer to the same process-lifetime state.
/// Loading calls `GetPjrtApi` and `PJRT_Plugin_Initialize` exactly once per path.
class Plugin {
 public:
  /// Loads the plugin at `path` (dlopen RTLD_NOW|RTLD_LOCAL). Throws hhlo::PluginError when the
  /// file does not exist, cannot be loaded (the dlerror() text is included), has no `GetPjrtApi`
  /// symbol (not a PJRT plugin), or speaks a PJRT C API major version other than ours (0) or a
  /// minor version older than 0.81, the oldest plugin we drive (our declarations are 0.115; a
  /// function a plugin's table lacks is a PluginError when called).
  static Plugin load(const std::string& path);
  /// Loads the plugin for a platform ("cpu" or "cuda"): the path in env var
  /// `HHLO_PJRT_PLUGIN_<PLATFORM>` (upper case) if set, else the first
  /// `DIR/plugins/cpu/pjrt_c_api_cpu_plugin.so` (`.../cuda/xla_cuda_plugin.so`) for DIR in
  /// share_dirs() (hhlo/core/paths.h): `P/share/hhlo` next to the installed library or program, the
  /// build tree's links to the set-up folder. Throws hhlo::PluginError for an unknown platform or
  /// when no plugin file is found (the message names every place looked at and how to fix it).
  static Plugin for_platform(const std::string& platform);

  /// Absolute path the plugin was loaded from.
  const std::string& path() const;
  /// PJRT C API version the plugin implements (PJRT_Api::pjrt_api_version).
  int api_major() const;
  int api_minor() const;
  /// PJRT C API version of the declarations HHLO-C++ was compiled with.
  static int header_api_major();
  static int header_api_minor();
  /// All attributes from PJRT_Plugin_Attributes (e.g. "xla_version", "stablehlo_current_version").
  const std::map<std::string, PluginAttribute>& attributes() const;
  /// StableHLO version range the plugin parses, from the attributes, e.g. {1,13,3}; empty if
  /// absent.
  std::vector<int64_t> stablehlo_current_version() const;
  std::vector<int64_t> stablehlo_minimum_version() const;
  /// True when the plugin's extension chain contains `ext`.
  bool has_extension(PluginExtension ext) const;

  /// Internal state (for other runtime components).
  const detail::PluginState& state() const { return *state_; }

 private:
  explicit Plugin(const detail::PluginState* s) : state_(s) {}
  const detail::PluginState* state_;
};

}  // namespace hhlo
