// PJRT clients: the entry point to a platform's devices (PJRT_Client_*).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/runtime/buffer.h"
#include "hhlo/runtime/compile_options.h"
#include "hhlo/runtime/device.h"
#include "hhlo/runtime/executable.h"
#include "hhlo/runtime/key_value_store.h"
#include "hhlo/runtime/plugin.h"
#include "hhlo/runtime/printed_program.h"

namespace hhlo {

/// A typed client-create option (PJRT_NamedValue), e.g. {"cpu_device_count", int64_t{4}}.
struct ClientOption {
  std::string name;
  std::variant<int64_t, std::string, bool, float, std::vector<int64_t>> value;
};

/// Everything PJRT_Client_Create takes: the named create options and, for one process of a
/// multi-process (multi-host) client, its node and the key-value store the processes rendezvous
/// through. See docs/spmd.md, "Many hosts".
struct ClientCreateOptions {
  /// Plugin-specific create options (cpu_device_count; for CUDA visible_devices, allocator, ...).
  std::vector<ClientOption> options;
  /// This process's index in [0, num_nodes) and the number of processes; when set, passed as the
  /// int64 create options `node_id` and `num_nodes` (the names the CUDA plugin reads).
  std::optional<int64_t> node_id, num_nodes;
  /// Passed as kv_get_callback / kv_put_callback / kv_try_get_callback; kept alive by the client
  /// as long as it lives, since the plugin may call it after creation. Null: no callbacks.
  std::shared_ptr<KeyValueStore> kv_store;
};

/// The create options of a CPU client's execution mode: {asynchronous = false} when
/// `synchronous` (each execution runs on the calling thread: read by the 0.115 CPU plugin, ignored
/// by the 0.81 one, rejected by the CUDA plugin), else none (the plugin's default: XLA's thread
/// pool). DESIGN.md "The runtime" has what each mode costs.
std::vector<ClientOption> execution_client_options(bool synchronous);

/// A PJRT client. Cheap to copy (shared ownership): the underlying PJRT_Client is destroyed
/// when the last Client, Device, Buffer, Event or LoadedExecutable of it goes away, so
/// destruction order cannot go wrong.
class Client {
 public:
  /// Creates a client (PJRT_Client_Create). The stock CPU plugin reads `cpu_device_count`
  /// (default 4 devices there); the CUDA plugin rejects unknown names. Throws hhlo::PjrtError.
  static Client create(const Plugin& plugin, const std::vector<ClientOption>& options = {});
  /// Plugin::for_platform(platform) then create(). Throws hhlo::PluginError / PjrtError.
  static Client create(const std::string& platform, const std::vector<ClientOption>& options = {});
  /// PJRT_Client_Create with options.options, `node_id`/`num_nodes` appended when set, and
  /// options.kv_store's callbacks. Throws hhlo::Error when only one of node_id and num_nodes is
  /// set or node_id is outside [0, num_nodes), or when `options` names node_id/num_nodes too;
  /// hhlo::PjrtError when the plugin refuses (an error the store raised comes back in it,
  /// "KeyValueStore::get(\"KEY\"): ...").
  static Client create(const Plugin& plugin, const ClientCreateOptions& options);
  /// Plugin::for_platform(platform) then create(plugin, options).
  static Client create(const std::string& platform, const ClientCreateOptions& options);

  const Plugin& plugin() const;
  /// e.g. "cpu", "cuda" (PJRT_Client_PlatformName).
  std::string platform_name() const;
  /// Platform version string (PJRT_Client_PlatformVersion).
  std::string platform_version() const;
  /// Devices this process can use (PJRT_Client_AddressableDevices).
  std::vector<Device> devices() const;
  /// The device with global id `id` (PJRT_Client_LookupDevice); throws hhlo::PjrtError if none.
  Device device(int id) const;

  /// Copies `array` to `device` (default: the first device) (PJRT_Client_BufferFromHostBuffer,
  /// kImmutableOnlyDuringCall: the array may be reused as soon as this returns).
  Buffer buffer_from_host(const Array& array, const std::optional<Device>& device = {}) const;
  /// Same from raw dense row-major memory of `type`; `size` must equal type.byte_size().
  Buffer buffer_from_host(const void* data, std::size_t size, const TensorType& type,
                          const std::optional<Device>& device = {}) const;

  /// Compiles `program` (PJRT_Client_Compile, format "mlir"): the plugin runs its `@main`.
  /// The runtime compiles the text it is handed; reading a program, choosing its entry and
  /// printing a Module are the program stage's (hhlo::compile and print_program in
  /// hhlo/program/compile.h). Throws hhlo::PjrtError for a program the plugin rejects (the
  /// message holds the MLIR diagnostics with line:column; the stock CPU plugin reports its errors
  /// with code UNKNOWN), also when the plugin throws a C++ exception through the C API instead
  /// (as both CPU plugins do for a type whose element count overflows int64), or hhlo::Error for
  /// inconsistent options (serialize_compile_options).
  LoadedExecutable compile(const PrintedProgram& program, const CompileOptions& options = {}) const;
  /// Loads an executable from LoadedExecutable::serialize() bytes
  /// (PJRT_Executable_DeserializeAndLoad). Throws hhlo::PjrtError for bytes of another plugin.
  LoadedExecutable deserialize(std::string_view bytes) const;

  /// Internal.
  const std::shared_ptr<const detail::ClientState>& state() const { return state_; }

 private:
  explicit Client(std::shared_ptr<const detail::ClientState> s) : state_(std::move(s)) {}
  std::shared_ptr<const detail::ClientState> state_;
};

}  // namespace hhlo
