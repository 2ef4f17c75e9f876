#include "hhlo/runtime/executable.h"

#include <fmt/format.h>

#include "pjrt.h"
#include "pjrt_extensions.h"

namespace hhlo {

using detail::args;

LoadedExecutable::LoadedExecutable(std::shared_ptr<const detail::ClientState> client,
                                   void* executable,
                                   std::optional<std::vector<TensorType>> input_types)
    : client_(std::move(client)), handle_(executable), input_types_(std::move(input_types)) {}

LoadedExecutable::LoadedExecutable(LoadedExecutable&& o) noexcept
    : client_(std::move(o.client_)), handle_(o.handle_), input_types_(std::move(o.input_types_)) {
  o.handle_ = nullptr;
}

LoadedExecutable& LoadedExecutable::operator=(LoadedExecutable&& o) noexcept {
  if (this != &o) {
    LoadedExecutable tmp(std::move(*this));
    client_ = std::move(o.client_);
    handle_ = o.handle_;
    input_types_ = std::move(o.input_types_);
    o.handle_ = nullptr;
  }
  return *this;
}

LoadedExecutable::~LoadedExecutable() {
  if (!handle_) return;
  auto a = args<PJRT_LoadedExecutable_Destroy_Args>();
  a.executable = static_cast<PJRT_LoadedExecutable*>(handle_);
  if (PJRT_Error* e = client_->api->PJRT_LoadedExecutable_Destroy(&a)) {
    int code;
    detail::take_error(client_->api, e, &code);
  }
}

namespace {

PJRT_LoadedExecutable* loaded(void* h) {
  if (!h) throw Error("LoadedExecutable: no executable (default-constructed or moved-from)");
  return static_cast<PJRT_LoadedExecutable*>(h);
}

/// PJRT_LoadedExecutable_GetExecutable allocates a PJRT_Executable each call: own it here.
class ExecutableView {
 public:
  ExecutableView(const PJRT_Api* api, void* loaded_exe) : api_(api) {
    auto a = args<PJRT_LoadedExecutable_GetExecutable_Args>();
    a.loaded_executable = loaded(loaded_exe);
    HHLO_PJRT_CALL(api, PJRT_LoadedExecutable_GetExecutable, a);
    exe_ = a.executable;
  }
  ~ExecutableView() {
    auto a = args<PJRT_Executable_Destroy_Args>();
    a.executable = exe_;
    if (PJRT_Error* e = api_->PJRT_Executable_Destroy(&a)) {
      int code;
      detail::take_error(api_, e, &code);
    }
  }
  ExecutableView(const ExecutableView&) = delete;
  ExecutableView& operator=(const ExecutableView&) = delete;
  PJRT_Executable* get() const { return exe_; }

 private:
  const PJRT_Api* api_;
  PJRT_Executable* exe_;
};

}  // namespace

std::size_t LoadedExecutable::num_outputs() const {
  ExecutableView exe(client_->api, handle_);
  auto a = args<PJRT_Executable_NumOutputs_Args>();
  a.executable = exe.get();
  HHLO_PJRT_CALL(client_->api, PJRT_Executable_NumOutputs, a);
  return a.num_outputs;
}

std::vector<TensorType> LoadedExecutable::output_types() const {
  ExecutableView exe(client_->api, handle_);
  auto t = args<PJRT_Executable_OutputElementTypes_Args>();
  t.executable = exe.get();
  HHLO_PJRT_CALL(client_->api, PJRT_Executable_OutputElementTypes, t);
  auto d = args<PJRT_Executable_OutputDimensions_Args>();
  d.executable = exe.get();
  HHLO_PJRT_CALL(client_->api, PJRT_Executable_OutputDimensions, d);
  std::vector<TensorType> out;
  const int64_t* dims = d.dims;
  for (std::size_t i = 0; i < t.num_output_types; ++i) {
    TensorType type{detail::from_pjrt(t.output_types[i]), Dims(dims, dims + d.dim_sizes[i])};
    dims += d.dim_sizes[i];
    out.push_back(std::move(type));
  }
  return out;
}

std::string LoadedExecutable::fingerprint() const {
  auto a = args<PJRT_LoadedExecutable_Fingerprint_Args>();
  a.executable = loaded(handle_);
  PJRT_Error* e = HHLO_PJRT_FN(client_->api, PJRT_LoadedExecutable_Fingerprint)(&a);
  if (e) {  // UNIMPLEMENTED on some plugins: try the executable's fingerprint
    int code;
    detail::take_error(client_->api, e, &code);
    ExecutableView exe(client_->api, handle_);
    auto b = args<PJRT_Executable_Fingerprint_Args>();
    b.executable = exe.get();
    e = HHLO_PJRT_FN(client_->api, PJRT_Executable_Fingerprint)(&b);
    if (e) {
      detail::take_error(client_->api, e, &code);
      return {};
    }
    return {b.executable_fingerprint, b.executable_fingerprint_size};
  }
  return {a.executable_fingerprint, a.executable_fingerprint_size};
}

std::vector<Device> LoadedExecutable::devices() const {
  auto a = args<PJRT_LoadedExecutable_AddressableDevices_Args>();
  a.executable = loaded(handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_LoadedExecutable_AddressableDevices, a);
  std::vector<Device> out;
  for (std::size_t i = 0; i < a.num_addressable_devices; ++i)
    out.emplace_back(client_, a.addressable_devices[i]);
  return out;
}

std::string LoadedExecutable::serialize() const {
  ExecutableView exe(client_->api, handle_);
  auto a = args<PJRT_Executable_Serialize_Args>();
  a.executable = exe.get();
  HHLO_PJRT_CALL(client_->api, PJRT_Executable_Serialize, a);
  std::string out(a.serialized_bytes, a.serialized_bytes_size);
  if (a.serialized_executable_deleter) a.serialized_executable_deleter(a.serialized_executable);
  return out;
}

std::vector<std::vector<Buffer>> LoadedExecutable::launch(
    const std::vector<std::vector<const Buffer*>>& args_per_device, const ExecuteOptions& options,
    std::vector<Event>* events) const {
  // Check every argument before the plugin sees it.
  for (std::size_t d = 0; d < args_per_device.size(); ++d) {
    const auto& list = args_per_device[d];
    std::string where = args_per_device.size() > 1 ? fmt::format(" (device {})", d) : "";
    if (input_types_ && list.size() != input_types_->size())
      throw Error(fmt::format("execute: @main takes {} arguments, {} given{}",
                              input_types_->size(), list.size(), where));
    if (list.size() != args_per_device[0].size())
      throw Error("execute_replicated: every device needs the same number of arguments");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Buffer* b = list[i];
      if (!b || !b->valid()) throw Error(fmt::format("execute: argument {}{} is an empty Buffer", i, where));
      if (b->client_state() != client_)
        throw Error(fmt::format("execute: argument {}{} is a buffer of another client; copy it "
                                "through the host to this executable's client first", i, where));
      if (b->is_deleted())
        throw Error(fmt::format("execute: argument {}{} was deleted or donated to an earlier "
                                "execution and cannot be used again", i, where));
      if (input_types_) {
        TensorType want = (*input_types_)[i], got = b->type();
        if (want.is_static() && want != got)
          throw Error(fmt::format("execute: argument {}{} has type {}, @main expects {}", i, where,
                                  got.to_string(), want.to_string()));
      }
    }
  }
  std::size_t num_devices = args_per_device.size();
  std::size_t num_args = args_per_device.empty() ? 0 : args_per_device[0].size();
  std::size_t n_out = num_outputs();

  std::vector<std::vector<PJRT_Buffer*>> in(num_devices);
  std::vector<PJRT_Buffer* const*> in_lists(num_devices);
  std::vector<std::vector<PJRT_Buffer*>> out(num_devices, std::vector<PJRT_Buffer*>(n_out));
  std::vector<PJRT_Buffer**> out_lists(num_devices);
  std::vector<PJRT_Event*> done(num_devices, nullptr);
  for (std::size_t d = 0; d < num_devices; ++d) {
    for (const Buffer* b : args_per_device[d]) in[d].push_back(static_cast<PJRT_Buffer*>(b->handle()));
    in_lists[d] = in[d].data();
    out_lists[d] = out[d].data();
  }

  auto opts = args<PJRT_ExecuteOptions>();
  opts.non_donatable_input_indices = options.non_donatable_inputs.data();
  opts.num_non_donatable_input_indices = options.non_donatable_inputs.size();
  auto a = args<PJRT_LoadedExecutable_Execute_Args>();
  a.executable = loaded(handle_);
  a.options = &opts;
  a.argument_lists = in_lists.data();
  a.num_devices = num_devices;
  a.num_args = num_args;
  a.output_lists = out_lists.data();
  a.device_complete_events = done.data();
  // Kept alive until every device finished (by the events' callbacks when asynchronous).
  std::shared_ptr<detail::ExecuteContext> context;
  if (!options.user_data.empty()) {
    context = detail::make_execute_context(client_->plugin, options.user_data);
    opts.context = context->get();
  }
  if (options.device) {
    if (options.device->client_state() != client_)
      throw Error("execute: the device belongs to another client");
    a.execute_device = static_cast<PJRT_Device*>(options.device->handle());
  }
  HHLO_PJRT_CALL(client_->api, PJRT_LoadedExecutable_Execute, a);

  std::vector<std::vector<Buffer>> result(num_devices);
  std::vector<Event> owned;
  for (std::size_t d = 0; d < num_devices; ++d) {
    for (PJRT_Buffer* b : out[d]) result[d].emplace_back(client_, b);
    owned.emplace_back(client_, done[d]);
  }
  if (events) {
    if (context)
      for (Event& e : owned) e.on_ready([context](std::exception_ptr) {});
    *events = std::move(owned);
  } else {
    for (Event& e : owned) e.await();
  }
  return result;
}

std::vector<Buffer> LoadedExecutable::execute(const std::vector<const Buffer*>& args,
                                              const ExecuteOptions& options) const {
  return std::move(launch({args}, options, nullptr).at(0));
}

std::vector<Buffer> LoadedExecutable::execute(
    std::initializer_list<std::reference_wrapper<const Buffer>> args,
    const ExecuteOptions& options) const {
  std::vector<const Buffer*> ptrs;
  for (const Buffer& b : args) ptrs.push_back(&b);
  return execute(ptrs, options);
}

ExecuteResult LoadedExecutable::execute_async(const std::vector<const Buffer*>& args,
                                              const ExecuteOptions& options) const {
  std::vector<Event> events;
  auto outs = launch({args}, options, &events);
  return ExecuteResult{std::move(outs.at(0)), std::move(events.at(0))};
}

std::vector<std::vector<Buffer>> LoadedExecutable::execute_replicated(
    const std::vector<std::vector<const Buffer*>>& args, const ExecuteOptions& options) const {
  std::size_t n = devices().size();
  if (args.size() != n)
    throw Error(fmt::format("execute_replicated: the executable runs on {} devices, argument lists "
                            "given for {}",
                            n, args.size()));
  return launch(args, options, nullptr);
}

}  // namespace hhlo
