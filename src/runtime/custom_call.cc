#include "hhlo/runtime/custom_call.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>

#include "custom_call_registry.h"
#include "elf_file.h"
#include "pjrt.h"
#include "pjrt_extensions.h"
#include "xla/ffi/api/c_api.h"

namespace hhlo {

namespace {

using detail::FfiExtension;

std::string api_version(const Plugin& plugin) {
  return fmt::format("{}.{}", plugin.api_major(), plugin.api_minor());
}

/// The FFI extension of `plugin` with `what` (a field of it) present, or PluginError.
const FfiExtension& ffi_extension(const Plugin& plugin, std::size_t field_offset,
                                  const char* what) {
  const PJRT_Api* api = plugin.state().api;
  const auto* base = detail::find_extension(api, PJRT_Extension_Type_FFI);
  if (!base)
    throw PluginError(fmt::format(
        "PJRT plugin '{}' (PJRT C API {}) has no FFI extension (PJRT_Extension_Type_FFI), so it "
        "cannot run typed XLA FFI custom calls: use a newer plugin",
        plugin.path(), api_version(plugin)));
  if (base->struct_size < field_offset + sizeof(void*))
    throw PluginError(fmt::format(
        "PJRT plugin '{}' (PJRT C API {}) has an FFI extension without {} (extension size {} "
        "bytes): use a newer plugin",
        plugin.path(), api_version(plugin), what, base->struct_size));
  return *reinterpret_cast<const FfiExtension*>(base);
}

}  // namespace

// ---- Typed FFI handlers ------------------------------------------------------------------------

namespace {

/// PJRT_FFI_Extension::register_handler, no checks of ours. The short args form (no api_version)
/// first: a plugin that wants the long form rejects it on its struct_size before reading any
/// other field (see pjrt_extensions.h).
void register_handler(const Plugin& plugin, const std::string& target_name, void* handler,
                      const std::string& platform, uint32_t traits) {
  const PJRT_Api* api = plugin.state().api;
  const FfiExtension& ffi =
      ffi_extension(plugin, offsetof(FfiExtension, register_handler), "register_handler");
  if (!ffi.register_handler)
    throw PluginError(
        fmt::format("PJRT plugin '{}' (PJRT C API {}): the FFI extension's "
                    "register_handler is null",
                    plugin.path(), api_version(plugin)));
  auto fail = [&](const detail::TakenError& e) {
    return PjrtError("PJRT_FFI_Extension::register_handler", e.code,
                     fmt::format("registering custom call target '{}' for platform '{}': {}",
                                 target_name, platform, e.message));
  };
  detail::FfiRegisterHandlerArgs a{};
  a.struct_size = detail::kFfiRegisterHandlerArgsSize;
  a.target_name = target_name.data();
  a.target_name_size = target_name.size();
  a.handler = handler;
  a.platform_name = platform.data();
  a.platform_name_size = platform.size();
  a.traits = traits;
  PJRT_Error* error = ffi.register_handler(&a);
  if (!error) return;
  detail::TakenError first = detail::take_error(api, error);
  if (first.message.find("PJRT_FFI_Register_Handler_Args size") == std::string::npos)
    throw fail(first);
  detail::FfiRegisterHandlerArgsV v{};
  v.struct_size = detail::kFfiRegisterHandlerArgsVSize;
  v.target_name = target_name.data();
  v.target_name_size = target_name.size();
  v.api_version = 1;  // typed
  v.handler = handler;
  v.platform_name = platform.data();
  v.platform_name_size = platform.size();
  v.traits = traits;
  if ((error = ffi.register_handler(&v))) throw fail(detail::take_error(api, error));
}

// XLA probes a handler at registration (a call frame carrying only a metadata extension) and,
// in xla-cpu-pjrt 0.0.1 (seen there), silently drops the registration when the handler reports an
// XLA FFI version newer than its own; the program then fails to compile with "No FFI handler
// registered". We catch that at registration instead: the plugin's XLA_FFI_Api (with its version)
// is learnt once per plugin (kept in its registry) by registering a probe handler of our own,
// then each user handler is asked for its version with the same metadata call XLA makes.
// The probe's callback has no user argument: it reports through this one slot, which probe_mu
// keeps to one probe at a time in the process.
std::mutex probe_mu;
const XLA_FFI_Api* probed_api = nullptr;  // written by version_probe under probe_mu

XLA_FFI_Error* version_probe(XLA_FFI_CallFrame* frame) {
  if (!frame || !frame->api) return nullptr;
  probed_api = frame->api;
  for (XLA_FFI_Extension_Base* e = frame->extension_start; e; e = e->next)
    if (e->type == XLA_FFI_Extension_Metadata) {  // answer with the framework's own version
      XLA_FFI_Metadata* md = reinterpret_cast<XLA_FFI_Metadata_Extension*>(e)->metadata;
      md->api_version.major_version = frame->api->api_version.major_version;
      md->api_version.minor_version = frame->api->api_version.minor_version;
      md->traits = 0;
    }
  return nullptr;  // no program calls this target
}

/// The plugin's XLA_FFI_Api, or null when its registration does not probe handlers.
const XLA_FFI_Api* plugin_ffi_api(const Plugin& plugin, const std::string& platform) {
  detail::CustomCallRegistry& registry = detail::custom_call_registry(plugin);
  std::lock_guard lock(probe_mu);
  if (std::optional<const XLA_FFI_Api*> known = registry.ffi_api()) return *known;
  probed_api = nullptr;
  register_handler(plugin, "hhlo.internal.ffi_version_probe",
                   reinterpret_cast<void*>(&version_probe), platform, 0);
  registry.set_ffi_api(probed_api);
  return probed_api;
}

/// Asks `handler` for the XLA FFI version it was built with (the metadata call XLA makes).
/// Throws PluginError when it answers with an error.
XLA_FFI_Api_Version handler_ffi_version(const XLA_FFI_Api* api, XLA_FFI_Handler* handler,
                                        const std::string& target_name) {
  XLA_FFI_Metadata md{};
  md.struct_size = XLA_FFI_Metadata_STRUCT_SIZE;
  XLA_FFI_Metadata_Extension ext{};
  ext.extension_base.struct_size = XLA_FFI_Metadata_Extension_STRUCT_SIZE;
  ext.extension_base.type = XLA_FFI_Extension_Metadata;
  ext.metadata = &md;
  XLA_FFI_CallFrame frame{};
  frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  frame.extension_start = &ext.extension_base;
  frame.api = api;
  if (XLA_FFI_Error* error = handler(&frame)) {
    XLA_FFI_Error_GetMessage_Args m{};
    m.struct_size = XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE;
    m.error = error;
    api->XLA_FFI_Error_GetMessage(&m);
    std::string message = m.message ? m.message : "";
    XLA_FFI_Error_Destroy_Args d{};
    d.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
    d.error = error;
    api->XLA_FFI_Error_Destroy(&d);
    throw PluginError(
        fmt::format("the handler for custom call target '{}' failed XLA's "
                    "registration probe (is it an XLA FFI handler?): {}",
                    target_name, message));
  }
  return md.api_version;
}

/// Throws PluginError when `handler` reports an XLA FFI version the plugin would not accept.
void check_ffi_version(const Plugin& plugin, const std::string& platform, void* handler,
                       const std::string& target_name) {
  const XLA_FFI_Api* api = plugin_ffi_api(plugin, platform);
  if (!api) return;
  XLA_FFI_Api_Version want = api->api_version;
  XLA_FFI_Api_Version got =
      handler_ffi_version(api, reinterpret_cast<XLA_FFI_Handler*>(handler), target_name);
  if (got.major_version != want.major_version || got.minor_version > want.minor_version)
    throw PluginError(fmt::format(
        "the handler for custom call target '{}' was built with XLA FFI API {}.{} headers, but "
        "PJRT plugin '{}' implements XLA FFI API {}.{} and would drop the registration without "
        "an error: rebuild the kernel with XLA FFI headers of version {}.{} or older (set-up "
        "pins them in third_party/xla_ffi/include)",
        target_name, got.major_version, got.minor_version, plugin.path(), want.major_version,
        want.minor_version, want.major_version, want.minor_version));
}

}  // namespace

namespace {

/// Can `plugin` make execute contexts carrying FFI user data?
bool makes_execute_contexts(const Plugin& plugin) {
  const PJRT_Api* api = plugin.state().api;
  const auto* ffi = detail::find_extension(api, PJRT_Extension_Type_FFI);
  return api->struct_size >= offsetof(PJRT_Api, PJRT_ExecuteContext_Create) + sizeof(void*) &&
         ffi && ffi->struct_size >= offsetof(FfiExtension, user_data_add) + sizeof(void*);
}

/// register_custom_call, with the kernel library `library` that lists the handler named in the
/// error for a target registered twice.
void register_from(const Plugin& plugin, const std::string& target_name, void* handler,
                   const std::string& platform, CustomCallTraits traits,
                   const std::string& library) {
  if (target_name.empty()) throw Error("register_custom_call: the target name is empty");
  if (!handler)
    throw Error(
        fmt::format("register_custom_call: the handler for target '{}' is null", target_name));
  // The plugin keeps the first handler of a (target, platform) and ignores a second one without
  // an error: the registry refuses that (for registrations made through this function).
  detail::custom_call_registry(plugin).add_handler(
      platform, target_name, handler, library, makes_execute_contexts(plugin), [&] {
        check_ffi_version(plugin, platform, handler, target_name);
        register_handler(plugin, target_name, handler, platform, static_cast<uint32_t>(traits));
      });
}

}  // namespace

void register_custom_call(const Plugin& plugin, const std::string& target_name, void* handler,
                          const std::string& platform, CustomCallTraits traits) {
  register_from(plugin, target_name, handler, platform, traits, "");
}

void register_custom_call(const Plugin& plugin, const std::string& target_name, void* handler,
                          const std::string& platform) {
  register_custom_call(plugin, target_name, handler, platform, CustomCallTraits::none);
}

int64_t register_custom_call_type(const Plugin& plugin, const std::string& type_name,
                                  int64_t type_id) {
  if (type_name.empty()) throw Error("register_custom_call_type: the type name is empty");
  const FfiExtension& ffi =
      ffi_extension(plugin, offsetof(FfiExtension, type_register), "type_register");
  static const detail::FfiTypeInfo no_callbacks{};  // the data stays owned by the caller
  detail::FfiTypeRegisterArgs a{};
  a.struct_size = detail::kFfiTypeRegisterArgsSize;
  a.type_name = type_name.data();
  a.type_name_size = type_name.size();
  a.type_id = type_id;
  a.type_info = &no_callbacks;
  detail::check(plugin.state().api, ffi.type_register(&a), "PJRT_FFI_Extension::type_register");
  detail::custom_call_registry(plugin).add_type(a.type_id, type_name);
  return a.type_id;
}

// ---- Kernel libraries --------------------------------------------------------------------------

void* CustomCallLibrary::find_symbol(const std::string& name) const noexcept {
  if (!handle_) return nullptr;
  return dlsym(handle_, name.c_str());
}

void* CustomCallLibrary::symbol(const std::string& name) const {
  if (!handle_) throw Error("CustomCallLibrary: no library (default state)");
  dlerror();
  void* p = dlsym(handle_, name.c_str());
  if (!p) {
    const char* why = dlerror();
    throw PluginError(fmt::format(
        "kernel library '{}' does not export symbol '{}'{}{} (check the name, and that it is "
        "declared extern \"C\" or made with XLA_FFI_DEFINE_HANDLER_SYMBOL)",
        path_, name, why ? ": " : "", why ? why : ""));
  }
  return p;
}

CustomCallLibrary load_custom_call_library(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, void*> loaded;  // never dlclose'd
  std::lock_guard lock(mu);
  std::error_code ec;
  std::string key = std::filesystem::weakly_canonical(path, ec).string();
  if (ec || key.empty()) key = path;
  if (auto it = loaded.find(key); it != loaded.end()) return CustomCallLibrary(path, it->second);
  detail::check_elf_machine(path, "custom-call kernel library");
  detail::check_elf_shared_library(path, "custom-call kernel library");
  detail::check_elf_not_truncated(path, "custom-call kernel library");
  // A name without a slash is a file in the current folder, as every file argument is; dlopen
  // would search the library path for it instead (and might load another build of that name).
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_LOCAL: each library resolves its own symbols. Under RTLD_GLOBAL a second library's
  // handler of the same exported name bound to the first library's (measured: the second
  // target ran the first's kernel). Typed FFI registration passes pointers, needing no global.
  dlerror();
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw PluginError(fmt::format("cannot load custom-call kernel library '{}': {}", path,
                                  why ? why : "unknown dlopen error"));
  }
  loaded[key] = handle;
  return CustomCallLibrary(path, handle);
}

CustomCallLibrary register_custom_call_library(const Plugin& plugin, const std::string& path,
                                               const std::vector<CustomCallSymbol>& targets,
                                               const std::string& platform) {
  CustomCallLibrary lib = load_custom_call_library(path);
  std::vector<void*> handlers;
  for (const CustomCallSymbol& t : targets) handlers.push_back(lib.symbol(t.symbol));
  for (std::size_t i = 0; i < targets.size(); ++i)
    register_from(plugin, targets[i].target, handlers[i], platform, CustomCallTraits::none, path);
  return lib;
}

std::vector<std::string> register_kernel_library(const Plugin& plugin, const std::string& path) {
  // A path past PATH_MAX to an existing library was "does not exist": the reason is named.
  if (std::string problem = detail::library_path_problem(path); !problem.empty())
    throw IoError(fmt::format("kernel library '{}' {}", path, problem));
  CustomCallLibrary lib = load_custom_call_library(path);
  using ListFn = const HhloCustomCallTarget* (*)(size_t*);
  auto list = reinterpret_cast<ListFn>(lib.find_symbol(HHLO_CUSTOM_CALL_TARGETS_SYMBOL));
  if (!list)
    throw PluginError(fmt::format(
        "'{}' is not an HHLO kernel library: it does not export {} (define the target list with "
        "HHLO_CUSTOM_CALL_TARGETS from hhlo/runtime/custom_call_kernel.h)",
        path, HHLO_CUSTOM_CALL_TARGETS_SYMBOL));
  size_t count = 0;
  const HhloCustomCallTarget* targets = list(&count);
  if (!targets && count > 0)
    throw PluginError(fmt::format("kernel library '{}': {} returned no list", path,
                                  HHLO_CUSTOM_CALL_TARGETS_SYMBOL));
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    const HhloCustomCallTarget& t = targets[i];
    if (!t.target || !*t.target || !t.handler)
      throw PluginError(fmt::format("kernel library '{}': entry {} of its target list has {}", path,
                                    i,
                                    !t.target || !*t.target ? "no target name" : "a null handler"));
    if (std::find(names.begin(), names.end(), t.target) != names.end())
      throw PluginError(fmt::format("kernel library '{}' lists target '{}' twice", path, t.target));
    names.emplace_back(t.target);
  }
  for (size_t i = 0; i < count; ++i)
    register_from(plugin, targets[i].target, targets[i].handler,
                  targets[i].platform ? targets[i].platform : "Host", CustomCallTraits::none, path);
  return names;
}

// ---- GPU custom calls --------------------------------------------------------------------------

void register_gpu_custom_call(const Plugin& plugin, const std::string& lib_path,
                              const std::string& target_name, GpuCustomCallApi api,
                              const std::string& symbol) {
  if (target_name.empty()) throw Error("register_gpu_custom_call: the target name is empty");
  const PJRT_Api* papi = plugin.state().api;
  const auto* base = detail::find_extension(papi, PJRT_Extension_Type_Gpu_Custom_Call);
  if (!base) {
    std::string file = std::filesystem::path(plugin.path()).filename().string();
    std::string who = file.find("cpu") != std::string::npos ? "the CPU plugin" : "this plugin";
    throw PluginError(fmt::format(
        "{} has no GPU custom-call extension (PJRT_Gpu_Custom_Call), so GPU kernel '{}' cannot be "
        "registered with PJRT plugin '{}' (PJRT C API {}); CPU kernels are typed FFI handlers "
        "registered with register_custom_call",
        who, target_name, plugin.path(), api_version(plugin)));
  }
  const auto& gpu = *reinterpret_cast<const detail::GpuCustomCallExtension*>(base);
  if (base->struct_size < offsetof(detail::GpuCustomCallExtension, custom_call) + sizeof(void*) ||
      !gpu.custom_call)
    throw PluginError(
        fmt::format("PJRT plugin '{}' (PJRT C API {}): its GPU custom-call "
                    "extension has no custom_call function",
                    plugin.path(), api_version(plugin)));
  CustomCallLibrary lib = load_custom_call_library(lib_path);
  void* fn = lib.symbol(symbol.empty() ? target_name : symbol);
  // A typed handler is probed like register_custom_call does, when the plugin lets us learn its
  // XLA FFI version (it has the FFI extension with register_handler).
  if (api == GpuCustomCallApi::typed && plugin.has_extension(PluginExtension::ffi))
    check_ffi_version(plugin, "CUDA", fn, target_name);

  detail::GpuRegisterCustomCallArgs a{};
  a.struct_size = sizeof(a);  // the newest form; older plugins ignore `traits`
  a.function_name = target_name.data();
  a.function_name_size = target_name.size();
  a.api_version = static_cast<int>(api);
  a.handler_execute = fn;
  detail::check(papi, gpu.custom_call(&a), "PJRT_Gpu_Register_Custom_Call");
  detail::custom_call_registry(plugin).add_gpu_target(target_name);
}

}  // namespace hhlo
