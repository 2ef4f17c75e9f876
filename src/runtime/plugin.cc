#include "hhlo/runtime/plugin.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "elf_file.h"
#include "hhlo/core/paths.h"
#include "pjrt.h"

namespace hhlo {

using detail::PluginState;

namespace {

std::map<std::string, PluginAttribute> read_attributes(const PJRT_Api* api) {
  std::map<std::string, PluginAttribute> out;
  if (offsetof(PJRT_Api, PJRT_Plugin_Attributes) + sizeof(void*) > api->struct_size) return out;
  auto a = detail::args<PJRT_Plugin_Attributes_Args>();
  detail::check(api, api->PJRT_Plugin_Attributes(&a), "PJRT_Plugin_Attributes");
  for (std::size_t i = 0; i < a.num_attributes; ++i) {
    const PJRT_NamedValue& v = a.attributes[i];
    std::string name(v.name, v.name_size);
    switch (v.type) {
      case PJRT_NamedValue_kString:
        out[name] = std::string(v.string_value, v.value_size);
        break;
      case PJRT_NamedValue_kInt64:
        out[name] = v.int64_value;
        break;
      case PJRT_NamedValue_kInt64List:
        out[name] = std::vector<int64_t>(v.int64_array_value, v.int64_array_value + v.value_size);
        break;
      case PJRT_NamedValue_kFloat:
        out[name] = v.float_value;
        break;
      case PJRT_NamedValue_kBool:
        out[name] = v.bool_value;
        break;
    }
  }
  return out;
}

// A CUDA plugin unpacked from its wheel (SITE/jax_plugins/xla_cuda12/xla_cuda_plugin.so, as
// `scripts/setup.sh --cuda` does) next to the NVIDIA wheels (SITE/nvidia/<pkg>/lib): load those
// libraries first, as JAX's plugin module does, so the plugin's own dlopen of, e.g.,
// libcusolver.so.11 (not on its RPATH) finds them loaded. Missing ones are left to the plugin.
void preload_nvidia_wheels(const std::string& plugin) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(plugin).parent_path();
  if (dir.parent_path().filename() != "jax_plugins") return;
  fs::path nvidia = dir.parent_path().parent_path() / "nvidia";
  std::error_code ec;
  if (!fs::is_directory(nvidia, ec)) return;
  static const char* const kLibs[] = {
      "cuda_runtime/lib/libcudart.so.12", "cuda_nvrtc/lib/libnvrtc.so.12",
      "nvjitlink/lib/libnvJitLink.so.12", "cublas/lib/libcublasLt.so.12",
      "cublas/lib/libcublas.so.12",       "nccl/lib/libnccl.so.2",
      "cuda_cupti/lib/libcupti.so.12",    "cusparse/lib/libcusparse.so.12",
      "cusolver/lib/libcusolver.so.11",   "cufft/lib/libcufft.so.11",
      "nvshmem/lib/libnvshmem_host.so.3", "cudnn/lib/libcudnn.so.9"};
  for (const char* lib : kLibs) {
    fs::path p = nvidia / lib;
    if (fs::exists(p, ec)) dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);  // never closed
  }
}

/// Refuses a plugin whose API table leaves null a function that is called without a check of
/// its own: the error functions (every failure goes through them), initialization, attributes,
/// and the destroy and await functions (called from destructors). The others are checked at each
/// call (HHLO_PJRT_FN). Found with a hostile plugin: a 0.115 table of nulls crashed before
/// PJRT_Plugin_Initialize.
void check_core_functions(const std::string& path, const PJRT_Api* api) {
  struct Slot {
    std::size_t offset;
    const char* name;
  };
#define HHLO_SLOT(name) \
  Slot { offsetof(PJRT_Api, name), #name }
  static const Slot kCore[] = {HHLO_SLOT(PJRT_Error_Destroy),
                               HHLO_SLOT(PJRT_Error_Message),
                               HHLO_SLOT(PJRT_Error_GetCode),
                               HHLO_SLOT(PJRT_Plugin_Initialize),
                               HHLO_SLOT(PJRT_Plugin_Attributes),
                               HHLO_SLOT(PJRT_Client_Destroy),
                               HHLO_SLOT(PJRT_Buffer_Destroy),
                               HHLO_SLOT(PJRT_Event_Destroy),
                               HHLO_SLOT(PJRT_Event_Await),
                               HHLO_SLOT(PJRT_LoadedExecutable_Destroy),
                               HHLO_SLOT(PJRT_LoadedExecutable_GetExecutable),
                               HHLO_SLOT(PJRT_Executable_Destroy)};
#undef HHLO_SLOT
  std::vector<std::string> missing;
  for (const Slot& s : kCore) {
    void* fn = nullptr;
    if (s.offset + sizeof fn <= api->struct_size)
      std::memcpy(&fn, reinterpret_cast<const char*>(api) + s.offset, sizeof fn);
    if (!fn) missing.emplace_back(s.name);
  }
  if (!missing.empty())
    throw PluginError(fmt::format(
        "PJRT plugin '{}' (PJRT C API {}.{}) leaves {} null in its API table: it cannot be used",
        path, api->pjrt_api_version.major_version, api->pjrt_api_version.minor_version,
        fmt::join(missing, ", ")));
}

const PluginState* load_state(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (std::string problem = detail::library_path_problem(path); !problem.empty())
    throw PluginError(fmt::format("PJRT plugin '{}' {}", path, problem));
  std::string canonical = fs::canonical(path, ec).string();
  if (ec) canonical = path;

  // Never unloaded, and never destroyed: a plugin outlives every static destructor that may
  // still use it, and its state stays reachable to LeakSanitizer at exit (a plain static map is
  // destroyed first, which left each PluginState unreferenced: `make asan` reported it).
  static std::mutex mu;
  static auto* const loaded = new std::map<std::string, const PluginState*>();
  std::lock_guard lock(mu);
  if (auto it = loaded->find(canonical); it != loaded->end()) return it->second;

  detail::check_elf_machine(canonical, "PJRT plugin");
  detail::check_elf_shared_library(canonical, "PJRT plugin");
  detail::check_elf_not_truncated(canonical, "PJRT plugin");
  preload_nvidia_wheels(canonical);
  void* lib = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) throw PluginError(fmt::format("cannot load PJRT plugin '{}': {}", path, dlerror()));
  using GetApi = const PJRT_Api* (*)();
  auto get = reinterpret_cast<GetApi>(dlsym(lib, "GetPjrtApi"));
  if (!get)
    throw PluginError(
        fmt::format("'{}' is not a PJRT plugin: it does not export GetPjrtApi", path));
  const PJRT_Api* api = get();
  if (!api) throw PluginError(fmt::format("PJRT plugin '{}': GetPjrtApi returned null", path));
  // Our declarations (pjrt_abi.h) are 0.115. A newer plugin reads the prefix of each args
  // struct it knows; an older one (down to 0.81, the compat plugin) has a shorter table, which
  // HHLO_PJRT_FN checks before each call, and reads the prefix it knows of our larger structs.
  int major = api->pjrt_api_version.major_version, minor = api->pjrt_api_version.minor_version;
  if (major != detail::kPjrtApiMajor || minor < detail::kPjrtOldestPluginMinor)
    throw PluginError(fmt::format(
        "PJRT plugin '{}' implements PJRT C API {}.{}, but HHLO-C++ drives plugins of PJRT C API "
        "{}.{} to {}.{} and newer (built with {}.{} declarations): use a newer plugin",
        path, major, minor, detail::kPjrtApiMajor, detail::kPjrtOldestPluginMinor,
        detail::kPjrtApiMajor, detail::kPjrtApiMinor, detail::kPjrtApiMajor,
        detail::kPjrtApiMinor));
  check_core_functions(path, api);
  auto init = detail::args<PJRT_Plugin_Initialize_Args>();
  detail::check(api, api->PJRT_Plugin_Initialize(&init), "PJRT_Plugin_Initialize");
  auto* s = new PluginState{canonical, lib, api, read_attributes(api)};
  (*loaded)[canonical] = s;
  return s;
}

/// `path`, followed by " (= TARGET)" when a link on the way leads elsewhere: the build tree's
/// share/hhlo/plugins is a link to the set-up folder third_party/pjrt (cmake/install.cmake), so a
/// missing-plugin message names the folder `make setup-cuda` fills, not only the link.
std::string with_link_target(const std::string& path) {
  std::error_code ec;
  std::filesystem::path target = std::filesystem::weakly_canonical(path, ec);
  if (ec || target == std::filesystem::path(path).lexically_normal()) return path;
  return path + " (= " + target.string() + ")";
}

/// `message` about the plugin at `path` with " (from ENV)" after the first quoted `path`, or
/// at its end when it does not quote it: a path the user did not type names where it came from.
std::string with_source(const std::string& message, const std::string& path,
                        const std::string& env) {
  std::string quoted = "'" + path + "'";
  std::size_t at = message.find(quoted);
  if (at == std::string::npos)
    return message + " (the plugin path " + quoted + " is from " + env + ")";
  return std::string(message).insert(at + quoted.size(), " (from " + env + ")");
}

}  // namespace

Plugin Plugin::load(const std::string& path) { return Plugin(load_state(path)); }

Plugin Plugin::for_platform(const std::string& platform) {
  std::string upper;
  for (char c : platform) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string env = "HHLO_PJRT_PLUGIN_" + upper;
  // An explicit choice wins (the compat tests point it at the runner-up plugin).
  if (const char* p = std::getenv(env.c_str()); p && *p) {
    try {
      return load(p);
    } catch (const PluginError& e) {
      throw PluginError(with_source(e.what(), p, env));
    }
  }
  std::string file;
  if (platform == "cpu")
    file = "cpu/pjrt_c_api_cpu_plugin.so";
  else if (platform == "cuda")
    file = "cuda/xla_cuda_plugin.so";
  else
    throw PluginError(
        fmt::format("unknown platform '{}' (expected cpu or cuda, or set {} to a "
                    "plugin path)",
                    platform, env));
  // share/hhlo/plugins next to the installed library or program (the build tree's links).
  std::vector<std::string> looked;
  std::string path = find_share_file("plugins/" + file, &looked);
  if (path.empty()) {
    for (std::string& p : looked) p = with_link_target(p);
    std::string fix = platform == "cpu"
                          ? "run scripts/setup.sh (then install); a program linked against "
                            "the static libraries outside P/bin without find_package(hhlo) "
                            "(e.g. through pkg-config) must set " +
                                env + " to P/share/hhlo/plugins/" + file + "; or set " + env +
                                " to the plugin's path"
                          : "run scripts/setup.sh --cuda (make setup-cuda), which unpacks it into "
                            "third_party/pjrt/cuda, or set " +
                                env +
                                " to the path of xla_cuda_plugin.so (from the jax-cuda12-pjrt "
                                "wheel, with the NVIDIA runtime wheels beside it)";
    throw PluginError(
        fmt::format("no PJRT plugin for platform '{}': {} is not set and none of {} "
                    "exists ({})",
                    platform, env, fmt::join(looked, ", "), fix));
  }
  return load(path);
}

const std::string& Plugin::path() const { return state_->path; }
int Plugin::api_major() const { return state_->api->pjrt_api_version.major_version; }
int Plugin::api_minor() const { return state_->api->pjrt_api_version.minor_version; }
int Plugin::header_api_major() { return detail::kPjrtApiMajor; }
int Plugin::header_api_minor() { return detail::kPjrtApiMinor; }
const std::map<std::string, PluginAttribute>& Plugin::attributes() const {
  return state_->attributes;
}

static std::vector<int64_t> int_list_attr(const PluginState& s, const char* name) {
  auto it = s.attributes.find(name);
  if (it == s.attributes.end()) return {};
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  return {};
}
std::vector<int64_t> Plugin::stablehlo_current_version() const {
  return int_list_attr(*state_, "stablehlo_current_version");
}
std::vector<int64_t> Plugin::stablehlo_minimum_version() const {
  return int_list_attr(*state_, "stablehlo_minimum_version");
}

bool Plugin::has_extension(PluginExtension ext) const {
  for (const PJRT_Extension_Base* e = state_->api->extension_start; e; e = e->next)
    if (static_cast<int>(e->type) == static_cast<int>(ext)) return true;
  return false;
}

}  // namespace hhlo
