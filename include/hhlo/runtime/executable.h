// Compiled programs loaded on devices (PJRT_LoadedExecutable_*, PJRT_Executable_*).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hhlo/core/sharding.h"
#include "hhlo/runtime/buffer.h"
#include "hhlo/runtime/compile_options.h"
#include "hhlo/runtime/sharded_array.h"

namespace hhlo {

/// User data for typed XLA FFI custom-call handlers, decoded in a handler with
/// `ffi::Ctx<ffi::UserData<T>>()` where `T::id` holds `type_id`.
struct CustomCallUserData {
  /// Type id from register_custom_call_type (custom_call.h).
  int64_t type_id = 0;
  /// Not owned: must stay valid until the execution completes (for execute_async, until its event
  /// is ready).
  void* data = nullptr;
};

/// Options for one execution.
struct ExecuteOptions {
  /// For a portable executable: the device to run on (PJRT_LoadedExecutable_Execute_Args::
  /// execute_device). Ignored otherwise.
  std::optional<Device> device;
  /// Argument indices that must not be donated even if the program aliases them.
  std::vector<int64_t> non_donatable_inputs;
  /// Options under which none of `num_inputs` arguments is donated: non_donatable_inputs lists
  /// them all, so a program that aliases an input to an output (`tf.aliasing_output`,
  /// `jax.buffer_donor`, a training step's `donate_argnums`) leaves its arguments valid for the
  /// next call, and XLA copies where it would have reused (hhlo bench and tune repeat calls on
  /// the same inputs this way).
  static ExecuteOptions keeping_inputs(std::size_t num_inputs) {
    ExecuteOptions o;
    for (std::size_t i = 0; i < num_inputs; ++i)
      o.non_donatable_inputs.push_back(static_cast<int64_t>(i));
    return o;
  }
  /// User data for custom-call handlers: when not empty, or when a typed handler was registered
  /// with the plugin (register_custom_call), the execution gets a PJRT_ExecuteContext
  /// (PJRT_ExecuteContext_Create) holding each entry, added through
  /// PJRT_FFI_Extension::user_data_add. Throws hhlo::PluginError when the plugin has no FFI
  /// extension, hhlo::PjrtError when it refuses an entry (e.g. the same type id twice), and
  /// hhlo::PjrtError naming the custom call target and the type when a handler of the program
  /// needs user data this list lacks (without a context the plugin would crash).
  std::vector<CustomCallUserData> user_data;
};

/// The outputs of an asynchronous execution on one device and its completion event.
struct ExecuteResult {
  std::vector<Buffer> outputs;
  Event done;
};

/// A move-only owner of a PJRT_LoadedExecutable. Keeps its client alive.
class LoadedExecutable {
 public:
  LoadedExecutable() = default;

  /// Number of outputs per device (PJRT_Executable_NumOutputs).
  std::size_t num_outputs() const;
  /// Output types (PJRT_Executable_OutputElementTypes + PJRT_Executable_OutputDimensions).
  std::vector<TensorType> output_types() const;
  /// Parameter types of the entry computation, read from the program the plugin compiled
  /// (PJRT_Executable_OptimizedProgram), whatever the executable came from: MLIR text, bytecode
  /// or Client::deserialize. Empty only when the plugin gives no readable program (a token
  /// parameter, a plugin without that call); execute() then refuses to run, naming
  /// signature_error().
  const std::optional<std::vector<TensorType>>& input_types() const { return input_types_; }
  /// Why input_types() is empty; empty when it is known.
  const std::string& signature_error() const { return signature_error_; }
  /// Fingerprint string of the compiled program (PJRT_LoadedExecutable_Fingerprint);
  /// empty when the plugin provides none.
  std::string fingerprint() const;
  /// Devices the executable runs on, one per replica/partition
  /// (PJRT_LoadedExecutable_AddressableDevices).
  std::vector<Device> devices() const;
  /// Serialized executable bytes for Client::deserialize (PJRT_Executable_Serialize).
  std::string serialize() const;

  /// Binds `trailing` as the last parameters of `@main`, set once after loading: every
  /// execution (execute, execute_async, execute_replicated) appends them to the caller's
  /// arguments, and input_types() then lists only the caller's (the parameters before them), so
  /// argument checks and ExecuteOptions::keeping_inputs cover those alone; the bound buffers are
  /// never donated. This is how a program whose large constants were hoisted into parameters
  /// (PrepareOptions::hoist_constants_min_bytes, hhlo/program/program.h) gets its weights.
  /// Throws hhlo::Error when the executable runs on more than one device, when buffers are
  /// already bound, when input_types() is unknown or has fewer entries than `trailing`, or when
  /// a buffer is empty, of another client or of another type than its parameter (naming it).
  void bind_trailing(std::vector<Buffer> trailing);
  /// The buffers bind_trailing bound (empty when none).
  const std::vector<Buffer>& bound_trailing() const { return bound_; }

  /// Runs on the executable's single device and waits for completion. `args` are the buffers
  /// of `@main`'s parameters in order, as pointers (`exe.execute({&a, &b})`); execute_async and
  /// execute_replicated take the same form.
  /// Checks the arguments before executing: count, dtype and dims against input_types() (a
  /// hhlo::Error saying the signature could not be read when it is unknown), every buffer from
  /// this executable's client; a deleted or donated argument is found
  /// when the plugin refuses it (nothing runs). Each failure is a hhlo::Error naming the
  /// argument. Execution errors are hhlo::PjrtError.
  std::vector<Buffer> execute(const std::vector<const Buffer*>& args,
                              const ExecuteOptions& options = {}) const;
  /// Starts execution and returns at once with the output buffers and the completion event.
  /// Same arguments, checks and errors as execute().
  ExecuteResult execute_async(const std::vector<const Buffer*>& args,
                              const ExecuteOptions& options = {}) const;
  /// Runs on every device of the executable at once: `args[d]` are the arguments for device d
  /// (in devices() order). Returns outputs per device, after all devices finished.
  std::vector<std::vector<Buffer>> execute_replicated(
      const std::vector<std::vector<const Buffer*>>& args,
      const ExecuteOptions& options = {}) const;

  /// Runs an SPMD-partitioned executable (compiled with use_spmd_partitioning) once over all
  /// its devices: `args` are the global arrays, each laid out as input_layouts() says; returns
  /// the global results laid out as output_layouts() says. Partition p runs on devices()[p]
  /// (PJRT_LoadedExecutable_Execute with one argument list and one output list per device).
  /// Throws ShardingError when an argument's layout differs from the one the program was
  /// partitioned for (naming the argument and both layouts) or a shard is on the wrong
  /// device, hhlo::Error when the executable has no SPMD layouts; otherwise as execute().
  std::vector<ShardedArray> execute_sharded(const std::vector<const ShardedArray*>& args,
                                            const ExecuteOptions& options = {}) const;
  /// Global layouts of the parameters after SPMD partitioning (from the compiled program's
  /// spmd_parameters_shardings, so also what the partitioner chose for unannotated ones);
  /// nullopt for an executable compiled without SPMD partitioning or one whose shardings hhlo
  /// cannot lay out (sharding_error() says why).
  const std::optional<std::vector<ShardLayout>>& input_layouts() const { return input_layouts_; }
  /// Global layouts of the results (spmd_output_sharding); as input_layouts().
  const std::optional<std::vector<ShardLayout>>& output_layouts() const { return output_layouts_; }
  /// Why input_layouts() / output_layouts() are empty for a partitioned executable.
  const std::string& sharding_error() const { return sharding_error_; }

  /// Internal.
  LoadedExecutable(std::shared_ptr<const detail::ClientState> client, void* executable);
  void* handle() const { return handle_.get(); }

 private:
  /// Checks and runs; `results` points to one output vector per device. With `events`, returns
  /// at once with one completion event per device appended; without, waits for all devices.
  void launch(std::span<const std::vector<const Buffer*>> args, const ExecuteOptions& options,
              std::vector<Event>* events, std::vector<Buffer>* results) const;
  std::size_t query_num_outputs() const;
  const std::shared_ptr<const detail::ClientState>& client() const { return handle_.keep(); }
  detail::PjrtHandle<PJRT_LoadedExecutable> handle_;
  std::optional<std::vector<TensorType>> input_types_;
  std::string signature_error_;
  std::optional<std::vector<ShardLayout>> input_layouts_, output_layouts_;
  std::vector<DType> output_dtypes_;
  std::string sharding_error_;
  /// bind_trailing's buffers, appended to every argument list.
  std::vector<Buffer> bound_;
  /// PJRT_Executable_NumOutputs, asked once at construction (the hot path must not call
  /// PJRT_LoadedExecutable_GetExecutable, which allocates).
  std::size_t num_outputs_ = 0;
};

}  // namespace hhlo
