#include "hhlo/runtime/client.h"

#include <fmt/format.h>

#include "key_value_callbacks.h"
#include "pjrt.h"

namespace hhlo {

using detail::args;
using detail::ClientState;

namespace {

/// The element types that end the process inside the pinned CPU plugin (XLA aborts on them,
/// docs/facts.md): refused before any call that would give it one.
constexpr DType kAbortingTypes[] = {DType::f6E2M3FN, DType::f6E3M2FN};

[[noreturn]] void refuse_aborting(DType t, std::string_view where) {
  throw Error(
      fmt::format("{}: element type {} is not run: the XLA CPU plugin aborts the process on "
                  "it (f6 types; convert to f8E4M3FN or f32 instead)",
                  where, mlir_name(t)));
}

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Throws when the text program names an aborting element type as a type (`xf6E2M3FN>`,
/// `<f6E3M2FN>`, `: f6E2M3FN`); bytecode is not scanned (the program stage reads bytecode into a
/// module, printed as text before it reaches here).
void refuse_aborting_text(std::string_view mlir) {
  for (DType t : kAbortingTypes) {
    std::string_view n = mlir_name(t);
    for (size_t at = mlir.find(n); at != std::string_view::npos; at = mlir.find(n, at + 1)) {
      char before = at ? mlir[at - 1] : ' ';
      char after = at + n.size() < mlir.size() ? mlir[at + n.size()] : ' ';
      char dim = at >= 2 ? mlir[at - 2] : ' ';  // `4xf6E2M3FN`, `?xf6E2M3FN`
      bool typed = before == '<' || before == ' ' || before == '(' || before == ',' ||
                   before == ':' || (before == 'x' && ((dim >= '0' && dim <= '9') || dim == '?'));
      if (typed && !word_char(after)) refuse_aborting(t, "compile");
    }
  }
}

}  // namespace

Client Client::create(const Plugin& plugin, const std::vector<ClientOption>& options) {
  return create(plugin, ClientCreateOptions{.options = options});
}

Client Client::create(const Plugin& plugin, const ClientCreateOptions& create_options) {
  std::vector<ClientOption> options = create_options.options;
  const auto& node = create_options.node_id;
  const auto& nodes = create_options.num_nodes;
  if (node.has_value() != nodes.has_value())
    throw Error(fmt::format("Client::create: node_id and num_nodes go together (got only {})",
                            node ? "node_id" : "num_nodes"));
  if (node) {
    if (*nodes < 1 || *node < 0 || *node >= *nodes)
      throw Error(
          fmt::format("Client::create: node_id {} is not in [0, num_nodes = {})", *node, *nodes));
    for (const ClientOption& o : options)
      if (o.name == "node_id" || o.name == "num_nodes")
        throw Error("Client::create: option " + o.name +
                    " is given both in options and as a ClientCreateOptions field");
    options.push_back({"node_id", *node});
    options.push_back({"num_nodes", *nodes});
  }
  const PJRT_Api* api = plugin.state().api;
  std::vector<PJRT_NamedValue> values(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    PJRT_NamedValue& v = values[i];
    v.struct_size = sizeof(PJRT_NamedValue);
    v.name = options[i].name.c_str();
    v.name_size = options[i].name.size();
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, int64_t>) {
            v.type = PJRT_NamedValue_kInt64, v.int64_value = x, v.value_size = 1;
          } else if constexpr (std::is_same_v<T, std::string>) {
            v.type = PJRT_NamedValue_kString, v.string_value = x.c_str(), v.value_size = x.size();
          } else if constexpr (std::is_same_v<T, bool>) {
            v.type = PJRT_NamedValue_kBool, v.bool_value = x, v.value_size = 1;
          } else if constexpr (std::is_same_v<T, float>) {
            v.type = PJRT_NamedValue_kFloat, v.float_value = x, v.value_size = 1;
          } else {
            v.type = PJRT_NamedValue_kInt64List, v.int64_array_value = x.data(),
            v.value_size = x.size();
          }
        },
        options[i].value);
  }
  auto a = args<PJRT_Client_Create_Args>();
  a.create_options = values.data();
  a.num_options = values.size();
  if (KeyValueStore* store = create_options.kv_store.get()) {
    a.kv_get_callback = &detail::kv_get;
    a.kv_get_user_arg = store;
    a.kv_put_callback = &detail::kv_put;
    a.kv_put_user_arg = store;
    a.kv_try_get_callback = &detail::kv_try_get;
    a.kv_try_get_user_arg = store;
  }
  HHLO_PJRT_CALL(api, PJRT_Client_Create, a);
  return Client(
      std::make_shared<const ClientState>(plugin, api, a.client, create_options.kv_store));
}

Client Client::create(const std::string& platform, const std::vector<ClientOption>& options) {
  return create(Plugin::for_platform(platform), options);
}

Client Client::create(const std::string& platform, const ClientCreateOptions& options) {
  return create(Plugin::for_platform(platform), options);
}

const Plugin& Client::plugin() const { return state_->plugin; }

std::string Client::platform_name() const {
  auto a = args<PJRT_Client_PlatformName_Args>();
  a.client = state_->client.get();
  HHLO_PJRT_CALL(state_->api, PJRT_Client_PlatformName, a);
  return {a.platform_name, a.platform_name_size};
}

std::string Client::platform_version() const {
  auto a = args<PJRT_Client_PlatformVersion_Args>();
  a.client = state_->client.get();
  HHLO_PJRT_CALL(state_->api, PJRT_Client_PlatformVersion, a);
  return {a.platform_version, a.platform_version_size};
}

std::vector<Device> Client::devices() const {
  auto a = args<PJRT_Client_AddressableDevices_Args>();
  a.client = state_->client.get();
  HHLO_PJRT_CALL(state_->api, PJRT_Client_AddressableDevices, a);
  std::vector<Device> out;
  for (std::size_t i = 0; i < a.num_addressable_devices; ++i)
    out.emplace_back(state_, a.addressable_devices[i]);
  return out;
}

Device Client::device(int id) const {
  auto a = args<PJRT_Client_LookupDevice_Args>();
  a.client = state_->client.get();
  a.id = id;
  HHLO_PJRT_CALL(state_->api, PJRT_Client_LookupDevice, a);
  return Device(state_, a.device);
}

Buffer Client::buffer_from_host(const Array& array, const std::optional<Device>& device) const {
  return buffer_from_host(array.data(), array.byte_size(), array.type(), device);
}

Buffer Client::buffer_from_host(const void* data, std::size_t size, const TensorType& type,
                                const std::optional<Device>& device) const {
  if (!type.is_static())
    throw Error("Client::buffer_from_host: type " + type.to_string() + " has a dynamic dimension");
  if (static_cast<int64_t>(size) != type.byte_size())
    throw Error(fmt::format("Client::buffer_from_host: {} bytes given for {} which needs {}", size,
                            type.to_string(), type.byte_size()));
  if (device && device->client_state() != state_)
    throw Error("Client::buffer_from_host: the device belongs to another client");
  PJRT_Device* dev = device ? static_cast<PJRT_Device*>(device->handle())
                            : static_cast<PJRT_Device*>(devices().at(0).handle());
  for (DType t : kAbortingTypes)
    if (type.dtype == t) refuse_aborting(t, "Client::buffer_from_host");
  auto a = args<PJRT_Client_BufferFromHostBuffer_Args>();
  a.client = state_->client.get();
  a.data = data;
  a.type = detail::to_pjrt(type.dtype);
  a.dims = type.dims.data();
  a.num_dims = type.dims.size();
  a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  a.device = dev;
  HHLO_PJRT_CALL(state_->api, PJRT_Client_BufferFromHostBuffer, a);
  // Destroyed here: the data was copied during the call.
  Event done(state_, a.done_with_host_buffer);
  return Buffer(state_, a.buffer);
}

std::vector<ClientOption> execution_client_options(bool synchronous) {
  if (!synchronous) return {};
  return {{"asynchronous", false}};
}

LoadedExecutable Client::compile(const PrintedProgram& printed,
                                 const CompileOptions& options) const {
  refuse_aborting_text(printed.text());
  std::string opts = serialize_compile_options(options);
  std::string code(printed.text());
  static constexpr char kFormat[] = "mlir";
  auto program = args<PJRT_Program>();
  program.code = code.data();
  program.code_size = code.size();
  program.format = kFormat;
  program.format_size = sizeof(kFormat) - 1;
  auto a = args<PJRT_Client_Compile_Args>();
  a.client = state_->client.get();
  a.program = &program;
  a.compile_options = opts.data();
  a.compile_options_size = opts.size();
  PJRT_Error* error;
  try {
    error = HHLO_PJRT_FN(state_->api, PJRT_Client_Compile)(&a);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    // Fact (xla-cpu-pjrt 0.0.1 and the 0.115 CPU plugin): a type whose element count overflows
    // int64, such as tensor<4611686018427387904x4xf32>, makes the MLIR-to-HLO lowering throw
    // absl::BadStatusOrAccess ("Bad StatusOr access: INVALID_ARGUMENT: overflow in static extent
    // product") through the C API instead of returning a PJRT_Error.
    std::string what = e.what();
    PjrtErrorCode code = what.find("INVALID_ARGUMENT") != std::string::npos
                             ? PjrtErrorCode::invalid_argument
                             : PjrtErrorCode::internal;
    throw PjrtError("PJRT_Client_Compile", code,
                    "the plugin threw a C++ exception instead of returning an error: " + what);
  }
  detail::check(state_->api, error, "PJRT_Client_Compile");
  return LoadedExecutable(state_, a.executable);
}

LoadedExecutable Client::deserialize(std::string_view bytes) const {
  auto a = args<PJRT_Executable_DeserializeAndLoad_Args>();
  a.client = state_->client.get();
  a.serialized_executable = bytes.data();
  a.serialized_executable_size = bytes.size();
  HHLO_PJRT_CALL(state_->api, PJRT_Executable_DeserializeAndLoad, a);
  return LoadedExecutable(state_, a.loaded_executable);
}

}  // namespace hhlo
