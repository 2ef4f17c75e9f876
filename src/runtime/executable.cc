#include "hhlo/runtime/executable.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <span>

#include "custom_call_registry.h"
#include "pjrt.h"
#include "pjrt_extensions.h"
#include "program_shape.h"

namespace hhlo {

using detail::args;

LoadedExecutable::LoadedExecutable(std::shared_ptr<const detail::ClientState> client,
                                   void* executable)
    : handle_(detail::owned_by<PJRT_LoadedExecutable>(std::move(client), executable)) {
  num_outputs_ = query_num_outputs();  // constant for the executable's lifetime: asked once
  // The parameter types of what the plugin compiled: the one source that is right for text,
  // bytecode and deserialized executables alike.
  detail::ProgramShardings shardings;
  auto shape =
      detail::executable_program_shape(handle_.api(), handle_.get(), &shardings, &sharding_error_);
  if (auto* s = std::get_if<detail::ProgramShape>(&shape)) {
    for (const TensorType& t : s->results) output_dtypes_.push_back(t.dtype);
    if (shardings.has_parameters && shardings.has_results) {
      // The compiled program's types are per shard: global dims = shard dims x tile counts.
      auto layouts =
          [&](const std::vector<TensorType>& local,
              const std::vector<GspmdSharding>& tiles) -> std::optional<std::vector<ShardLayout>> {
        if (local.size() != tiles.size()) {
          sharding_error_ = fmt::format("{} shardings for {} values", tiles.size(), local.size());
          return std::nullopt;
        }
        std::vector<ShardLayout> out;
        int64_t n = static_cast<int64_t>(devices().size());
        for (std::size_t i = 0; i < local.size(); ++i) {
          Dims global = local[i].dims;
          for (std::size_t d = 0; d < global.size() && d < tiles[i].data_rank(); ++d)
            global[d] *= tiles[i].tile_dims[d];
          try {
            out.push_back(shard_layout(tiles[i], global, n));  // checks the rank and subgroups
          } catch (const Error& e) {
            sharding_error_ = e.what();
            return std::nullopt;
          }
        }
        return out;
      };
      input_layouts_ = layouts(s->parameters, shardings.parameters);
      if (input_layouts_) output_layouts_ = layouts(s->results, shardings.results);
      if (!output_layouts_) input_layouts_.reset();
    }
    input_types_ = std::move(s->parameters);
  } else {
    signature_error_ = std::get<std::string>(shape);
  }
}

namespace {

PJRT_LoadedExecutable* loaded(const detail::PjrtHandle<PJRT_LoadedExecutable>& h) {
  if (!h.get()) throw Error("LoadedExecutable: no executable (default-constructed or moved-from)");
  return h.get();
}

/// The PJRT_Executable of `exe`: PJRT_LoadedExecutable_GetExecutable allocates one each call,
/// owned by what this returns.
detail::PjrtHandle<PJRT_Executable> executable_of(
    const detail::PjrtHandle<PJRT_LoadedExecutable>& exe) {
  auto a = args<PJRT_LoadedExecutable_GetExecutable_Args>();
  a.loaded_executable = loaded(exe);
  HHLO_PJRT_CALL(exe.api(), PJRT_LoadedExecutable_GetExecutable, a);
  return {exe.api(), a.executable};
}

}  // namespace

std::size_t LoadedExecutable::num_outputs() const {
  loaded(handle_);  // throws for a default-constructed or moved-from executable
  return num_outputs_;
}

std::size_t LoadedExecutable::query_num_outputs() const {
  auto exe = executable_of(handle_);
  auto a = args<PJRT_Executable_NumOutputs_Args>();
  a.executable = exe.get();
  HHLO_PJRT_CALL(client()->api, PJRT_Executable_NumOutputs, a);
  return a.num_outputs;
}

std::vector<TensorType> LoadedExecutable::output_types() const {
  auto exe = executable_of(handle_);
  auto t = args<PJRT_Executable_OutputElementTypes_Args>();
  t.executable = exe.get();
  HHLO_PJRT_CALL(client()->api, PJRT_Executable_OutputElementTypes, t);
  auto d = args<PJRT_Executable_OutputDimensions_Args>();
  d.executable = exe.get();
  HHLO_PJRT_CALL(client()->api, PJRT_Executable_OutputDimensions, d);
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
  PJRT_Error* e = HHLO_PJRT_FN(client()->api, PJRT_LoadedExecutable_Fingerprint)(&a);
  if (e) {  // UNIMPLEMENTED on some plugins: try the executable's fingerprint
    detail::discard_error(client()->api, e);
    auto exe = executable_of(handle_);
    auto b = args<PJRT_Executable_Fingerprint_Args>();
    b.executable = exe.get();
    e = HHLO_PJRT_FN(client()->api, PJRT_Executable_Fingerprint)(&b);
    if (e) {
      detail::discard_error(client()->api, e);
      return {};
    }
    return {b.executable_fingerprint, b.executable_fingerprint_size};
  }
  return {a.executable_fingerprint, a.executable_fingerprint_size};
}

std::vector<Device> LoadedExecutable::devices() const {
  auto a = args<PJRT_LoadedExecutable_AddressableDevices_Args>();
  a.executable = loaded(handle_);
  HHLO_PJRT_CALL(client()->api, PJRT_LoadedExecutable_AddressableDevices, a);
  std::vector<Device> out;
  for (std::size_t i = 0; i < a.num_addressable_devices; ++i)
    out.emplace_back(client(), a.addressable_devices[i]);
  return out;
}

std::string LoadedExecutable::serialize() const {
  auto exe = executable_of(handle_);
  auto a = args<PJRT_Executable_Serialize_Args>();
  a.executable = exe.get();
  HHLO_PJRT_CALL(client()->api, PJRT_Executable_Serialize, a);
  std::string out(a.serialized_bytes, a.serialized_bytes_size);
  if (a.serialized_executable_deleter) a.serialized_executable_deleter(a.serialized_executable);
  return out;
}

namespace {

/// Pointer arrays of one launch: on the stack for small launches (the common one-device case
/// allocates nothing here), on the heap beyond.
template <typename T, std::size_t N = 16>
class Scratch {
 public:
  explicit Scratch(std::size_t n) : n_(n) {
    if (n > N) heap_.resize(n);
  }
  T* data() { return n_ > N ? heap_.data() : stack_.data(); }
  T& operator[](std::size_t i) { return data()[i]; }

 private:
  std::size_t n_;
  std::array<T, N> stack_;  // not zeroed: launch() writes every entry it passes on
  std::vector<T> heap_;
};

/// Does `b` have type `want` (a dynamic dimension of `want` matches any size)? Two getter calls,
/// no allocation, no table search.
bool has_type(const PJRT_Api* api, const Buffer& b, const TensorType& want) {
  auto t = args<PJRT_Buffer_ElementType_Args>();
  t.buffer = static_cast<PJRT_Buffer*>(b.handle());
  HHLO_PJRT_CALL(api, PJRT_Buffer_ElementType, t);
  if (t.type != detail::to_pjrt(want.dtype)) return false;
  auto d = args<PJRT_Buffer_Dimensions_Args>();
  d.buffer = t.buffer;
  HHLO_PJRT_CALL(api, PJRT_Buffer_Dimensions, d);
  if (d.num_dims != want.dims.size()) return false;
  for (std::size_t i = 0; i < d.num_dims; ++i)
    if (want.dims[i] != kDynamic && want.dims[i] != d.dims[i]) return false;
  return true;
}

}  // namespace

// The hot path of every execution: per call it makes only the C calls the checks and the
// execution need (no PJRT_LoadedExecutable_GetExecutable: num_outputs_ is cached) and no heap
// allocation beyond the returned buffers for up to 16 pointers per array.
void LoadedExecutable::launch(std::span<const std::vector<const Buffer*>> args_per_device,
                              const ExecuteOptions& options, std::vector<Event>* events,
                              std::vector<Buffer>* results) const {
  const PJRT_Api* api = client()->api;
  if (!input_types_)
    throw Error(
        fmt::format("execute: the parameter types of this executable could not be read "
                    "({}), so its arguments cannot be checked; refusing to run",
                    signature_error_));
  // Check every argument before the plugin sees it.
  for (std::size_t d = 0; d < args_per_device.size(); ++d) {
    const auto& list = args_per_device[d];
    auto where = [&] {
      return args_per_device.size() > 1 ? fmt::format(" (device {})", d) : std::string();
    };
    if (list.size() != input_types_->size())
      throw Error(fmt::format("execute: @main takes {} arguments, {} given{}", input_types_->size(),
                              list.size(), where()));
    if (list.size() != args_per_device[0].size())
      throw Error("execute_replicated: every device needs the same number of arguments");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Buffer* b = list[i];
      if (!b || !b->valid())
        throw Error(fmt::format("execute: argument {}{} is an empty Buffer", i, where()));
      if (b->client_state() != client())
        throw Error(
            fmt::format("execute: argument {}{} is a buffer of another client; copy it "
                        "through the host to this executable's client first",
                        i, where()));
      if (!has_type(api, *b, (*input_types_)[i]))
        throw Error(fmt::format("execute: argument {}{} has type {}, @main expects {}", i, where(),
                                b->type().to_string(), (*input_types_)[i].to_string()));
    }
  }
  std::size_t num_devices = args_per_device.size();
  std::size_t num_args = args_per_device.empty() ? 0 : args_per_device[0].size();
  // The caller's arguments, then the bound ones (bind_trailing).
  std::size_t all_args = num_args + bound_.size();
  std::size_t n_out = num_outputs_;

  Scratch<PJRT_Buffer*> in(num_devices * all_args), out(num_devices * n_out);
  Scratch<PJRT_Buffer* const*, 4> in_lists(num_devices);
  Scratch<PJRT_Buffer**, 4> out_lists(num_devices);
  Scratch<PJRT_Event*, 4> done(num_devices);
  for (std::size_t d = 0; d < num_devices; ++d) {
    for (std::size_t i = 0; i < num_args; ++i)
      in[d * all_args + i] = static_cast<PJRT_Buffer*>(args_per_device[d][i]->handle());
    for (std::size_t i = 0; i < bound_.size(); ++i)
      in[d * all_args + num_args + i] = static_cast<PJRT_Buffer*>(bound_[i].handle());
    in_lists[d] = in.data() + d * all_args;
    out_lists[d] = out.data() + d * n_out;
    done[d] = nullptr;
  }

  auto opts = args<PJRT_ExecuteOptions>();
  // The bound buffers are never donated: they serve every execution.
  std::vector<int64_t> keep;
  const std::vector<int64_t>* non_donatable = &options.non_donatable_inputs;
  if (!bound_.empty()) {
    keep = options.non_donatable_inputs;
    for (std::size_t i = 0; i < bound_.size(); ++i)
      keep.push_back(static_cast<int64_t>(num_args + i));
    non_donatable = &keep;
  }
  opts.non_donatable_input_indices = non_donatable->data();
  opts.num_non_donatable_input_indices = non_donatable->size();
  auto a = args<PJRT_LoadedExecutable_Execute_Args>();
  a.executable = loaded(handle_);
  a.options = &opts;
  a.argument_lists = in_lists.data();
  a.num_devices = num_devices;
  a.num_args = all_args;
  a.output_lists = out_lists.data();
  a.device_complete_events = done.data();
  // Kept alive until every device finished (by the events' callbacks when asynchronous).
  std::shared_ptr<detail::ExecuteContext> context;
  if (!options.user_data.empty() ||
      detail::custom_call_registry(client()->plugin).needs_execute_context()) {
    context = detail::make_execute_context(client()->plugin, options.user_data);
    opts.context = context->get();
  }
  if (options.device) {
    if (options.device->client_state() != client())
      throw Error("execute: the device belongs to another client");
    a.execute_device = static_cast<PJRT_Device*>(options.device->handle());
  }
  if (PJRT_Error* e = HHLO_PJRT_FN(api, PJRT_LoadedExecutable_Execute)(&a)) {
    // A deleted or donated argument is checked here, after the plugin refused it, rather than
    // before every call (PJRT_Buffer_IsDeleted takes a lock in the plugin): same error, no cost
    // on the hot path.
    // An execution that failed while running (on CPU the call runs inline: a custom call's
    // error) has consumed its donated arguments too: then the plugin's message is the error.
    detail::TakenError error = detail::take_error(api, e);
    std::string lower = error.message;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const bool refused_argument = lower.find("delet") != std::string::npos ||
                                  lower.find("donat") != std::string::npos ||
                                  lower.find("invalid buffer") != std::string::npos;
    for (std::size_t d = 0; d < num_devices && refused_argument; ++d)
      for (std::size_t i = 0; i < num_args; ++i)
        if (args_per_device[d][i]->is_deleted())
          throw Error(
              fmt::format("execute: argument {}{} was deleted or donated to an earlier "
                          "execution and cannot be used again",
                          i, num_devices > 1 ? fmt::format(" (device {})", d) : ""));
    throw PjrtError("PJRT_LoadedExecutable_Execute", error.code,
                    detail::explain_execute_error(client()->plugin, a.executable, error.message));
  }

  for (std::size_t d = 0; d < num_devices; ++d) {
    results[d].reserve(n_out);
    for (std::size_t o = 0; o < n_out; ++o) results[d].emplace_back(client(), out_lists[d][o]);
  }
  if (events) {
    for (std::size_t d = 0; d < num_devices; ++d) {
      events->emplace_back(client(), done[d]);
      if (context) events->back().on_ready([context](std::exception_ptr) {});
    }
    return;
  }
  // Synchronous: await and destroy every event (all of them, even after a failure), then report
  // the first failure.
  PJRT_Error* first = nullptr;
  for (std::size_t d = 0; d < num_devices; ++d) {
    detail::PjrtHandle<PJRT_Event> event(api, done[d]);
    auto w = args<PJRT_Event_Await_Args>();
    w.event = event.get();
    PJRT_Error* e = api->PJRT_Event_Await(&w);
    if (e && !first)
      first = e;
    else
      detail::discard_error(api, e);
  }
  if (first) {
    detail::TakenError error = detail::take_error(api, first);
    throw PjrtError("PJRT_Event_Await", error.code,
                    detail::explain_execute_error(client()->plugin, a.executable, error.message));
  }
}

void LoadedExecutable::bind_trailing(std::vector<Buffer> trailing) {
  if (trailing.empty()) return;
  if (!bound_.empty()) throw Error("bind_trailing: this executable has bound buffers already");
  std::size_t devices_count = devices().size();
  if (devices_count != 1)
    throw Error(fmt::format(
        "bind_trailing: the executable runs on {} devices; only a one-device executable takes "
        "bound buffers",
        devices_count));
  if (!input_types_)
    throw Error(
        fmt::format("bind_trailing: the parameter types of this executable could not be read ({})",
                    signature_error_));
  std::size_t n = input_types_->size();
  if (trailing.size() > n)
    throw Error(fmt::format("bind_trailing: {} buffers given, @main takes {} arguments",
                            trailing.size(), n));
  const PJRT_Api* api = client()->api;
  std::size_t first = n - trailing.size();
  for (std::size_t i = 0; i < trailing.size(); ++i) {
    const Buffer& b = trailing[i];
    if (!b.valid()) throw Error(fmt::format("bind_trailing: buffer {} is empty", i));
    if (b.client_state() != client())
      throw Error(fmt::format("bind_trailing: buffer {} is a buffer of another client", i));
    if (!has_type(api, b, (*input_types_)[first + i]))
      throw Error(fmt::format("bind_trailing: buffer {} has type {}, argument {} of @main is {}", i,
                              b.type().to_string(), first + i,
                              (*input_types_)[first + i].to_string()));
  }
  input_types_->resize(first);
  bound_ = std::move(trailing);
}

std::vector<Buffer> LoadedExecutable::execute(const std::vector<const Buffer*>& args,
                                              const ExecuteOptions& options) const {
  std::vector<Buffer> out;
  launch(std::span(&args, 1), options, nullptr, &out);
  return out;
}

ExecuteResult LoadedExecutable::execute_async(const std::vector<const Buffer*>& args,
                                              const ExecuteOptions& options) const {
  std::vector<Event> events;
  std::vector<Buffer> out;
  launch(std::span(&args, 1), options, &events, &out);
  return ExecuteResult{std::move(out), std::move(events.at(0))};
}

std::vector<std::vector<Buffer>> LoadedExecutable::execute_replicated(
    const std::vector<std::vector<const Buffer*>>& args, const ExecuteOptions& options) const {
  std::size_t n = devices().size();
  if (args.size() != n)
    throw Error(
        fmt::format("execute_replicated: the executable runs on {} devices, argument lists "
                    "given for {}",
                    n, args.size()));
  std::vector<std::vector<Buffer>> out(args.size());
  launch(std::span(args), options, nullptr, out.data());
  return out;
}

std::vector<ShardedArray> LoadedExecutable::execute_sharded(
    const std::vector<const ShardedArray*>& args, const ExecuteOptions& options) const {
  if (!input_layouts_ || !output_layouts_)
    throw Error(fmt::format(
        "execute_sharded: this executable has no SPMD layouts ({}); compile it with "
        "use_spmd_partitioning and num_partitions > 0",
        sharding_error_.empty() ? "compiled without SPMD partitioning" : sharding_error_));
  if (args.size() != input_layouts_->size())
    throw Error(fmt::format("execute_sharded: @main takes {} arguments, {} given",
                            input_layouts_->size(), args.size()));
  std::vector<Device> devs = devices();
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i]) throw Error(fmt::format("execute_sharded: argument {} is null", i));
    const ShardLayout& want = (*input_layouts_)[i];
    if (!args[i]->layout().same_placement(want))
      throw ShardingError(-1, "",
                          fmt::format("execute_sharded: argument {} is laid out as {}, the program "
                                      "was partitioned for {}",
                                      i, args[i]->layout().to_string(), want.to_string()));
  }
  std::vector<std::vector<const Buffer*>> lists(devs.size());
  for (std::size_t p = 0; p < devs.size(); ++p)
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Buffer& b = args[i]->shard_on(static_cast<int64_t>(p));
      if (b.valid() && !(b.device() == devs[p]))
        throw ShardingError(-1, "",
                            fmt::format("execute_sharded: the shard of argument {} for partition "
                                        "{} is on device {}, the executable runs partition {} on "
                                        "device {}",
                                        i, p, b.device().id(), p, devs[p].id()));
      lists[p].push_back(&b);
    }
  std::vector<std::vector<Buffer>> out(devs.size());
  launch(std::span(lists), options, nullptr, out.data());
  std::vector<ShardedArray> results;
  for (std::size_t o = 0; o < output_layouts_->size(); ++o) {
    const ShardLayout& layout = (*output_layouts_)[o];
    std::vector<Buffer> shards;
    for (int64_t p : layout.devices) shards.push_back(std::move(out.at(p).at(o)));
    results.push_back(
        ShardedArray::from_shards(output_dtypes_.at(o), layout, std::move(shards), devs));
  }
  return results;
}

}  // namespace hhlo
