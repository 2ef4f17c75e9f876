#include "hhlo/runtime/plugin.h"

#include <dlfcn.h>
#include <elf.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

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
      case PJRT_NamedValue_kString: out[name] = std::string(v.string_value, v.value_size); break;
      case PJRT_NamedValue_kInt64: out[name] = v.int64_value; break;
      case PJRT_NamedValue_kInt64List:
        out[name] = std::vector<int64_t>(v.int64_array_value, v.int64_array_value + v.value_size);
        break;
      case PJRT_NamedValue_kFloat: out[name] = v.float_value; break;
      case PJRT_NamedValue_kBool: out[name] = v.bool_value; break;
    }
  }
  return out;
}

/// Refuses a 64-bit ELF file whose program headers or loadable segments extend past its end (a
/// truncated copy): glibc's dlopen maps such segments and dies with SIGBUS touching the pages
/// past the end of the file (found by tests/runtime/faults_test.cc). Other files are left to
/// dlopen, whose own error then names the cause.
void check_not_truncated(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(path, ec);
  Elf64_Ehdr eh{};
  if (ec || !in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return;
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return;
  auto truncated = [&](const std::string& what) {
    return PluginError(fmt::format(
        "cannot load PJRT plugin '{}': the file is truncated ({} bytes; its {} lie past the end)",
        path, size, what));
  };
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
      uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr) > size - eh.e_phoff)
    throw truncated("program headers");
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) throw truncated("program headers");
    if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
      throw truncated(fmt::format("loadable segment {}", i));
  }
}

const PluginState* load_state(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw PluginError(fmt::format("PJRT plugin '{}' does not exist", path));
  std::string canonical = fs::canonical(path, ec).string();
  if (ec) canonical = path;

  static std::mutex mu;
  static std::map<std::string, const PluginState*> loaded;  // never unloaded
  std::lock_guard lock(mu);
  if (auto it = loaded.find(canonical); it != loaded.end()) return it->second;

  check_not_truncated(canonical);
  void* lib = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) throw PluginError(fmt::format("cannot load PJRT plugin '{}': {}", path, dlerror()));
  using GetApi = const PJRT_Api* (*)();
  auto get = reinterpret_cast<GetApi>(dlsym(lib, "GetPjrtApi"));
  if (!get)
    throw PluginError(fmt::format("'{}' is not a PJRT plugin: it does not export GetPjrtApi", path));
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
  auto init = detail::args<PJRT_Plugin_Initialize_Args>();
  detail::check(api, api->PJRT_Plugin_Initialize(&init), "PJRT_Plugin_Initialize");
  auto* s = new PluginState{canonical, lib, api, read_attributes(api)};
  loaded[canonical] = s;
  return s;
}

}  // namespace

Plugin Plugin::load(const std::string& path) { return Plugin(load_state(path)); }

Plugin Plugin::for_platform(const std::string& platform) {
  std::string upper;
  for (char c : platform) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string env = "HHLO_PJRT_PLUGIN_" + upper;
  if (const char* p = std::getenv(env.c_str()); p && *p) return load(p);
  std::string file;
  if (platform == "cpu") file = "cpu/pjrt_c_api_cpu_plugin.so";
  else if (platform == "cuda") file = "cuda/xla_cuda_plugin.so";
  else
    throw PluginError(fmt::format("unknown platform '{}' (expected cpu or cuda, or set {} to a "
                                  "plugin path)", platform, env));
  std::string path = std::string(HHLO_PLUGIN_DIR) + "/" + file;
  if (!std::filesystem::exists(path)) {
    std::string fix = platform == "cpu"
                          ? "run scripts/setup.sh, or set " + env + " to the plugin's path"
                          : "set " + env + " to the path of xla_cuda_plugin.so (from the "
                            "jax-cuda13-pjrt wheel, with the NVIDIA runtime wheels on the library "
                            "path), or place it there";
    throw PluginError(fmt::format("no PJRT plugin for platform '{}': {} is not set and {} does not "
                                  "exist ({})",
                                  platform, env, path, fix));
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
