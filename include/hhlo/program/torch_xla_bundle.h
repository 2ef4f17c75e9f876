// torch_xla's saved StableHLO bundle: the folder `torch_xla.stablehlo.save_as_stablehlo` (and
// `StableHLOGraphModule.save`) writes, read as one program whose `@main` takes only the user's
// inputs, in torch's order, the weights bound from the folder. Layout (torch_xla/stablehlo.py,
// _save_program_bundle):
//   functions/NAME.meta      JSON StableHLOFunctionMeta: input_signature and input_locations
//                            (one per argument of the module's @main, in its order: `parameter`
//                            NAME, `constant` POSITION or `input_arg` POSITION), output_signature,
//                            unused_inputs;
//   functions/NAME.bytecode  the module (MLIR bytecode); functions/NAME.mlir its text, optional;
//   data/KEY                 each state-dict tensor, np.save'd, named by its state-dict key;
//   constants/I              the additional constants torch_xla lifted, np.save'd.
// torch_xla orders @main's parameters as its graph met them (`fc.bias, fc.weight,
// b2.running_var, ...`), so only the meta says which argument is which: reading it here leaves no
// order to guess.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hhlo/core/tensor_type.h"
#include "hhlo/ir/module.h"

namespace hhlo {

/// One argument of a bundle function's `@main` (StableHLOFunctionMeta.input_locations with its
/// input_signature entry).
struct TorchXlaInput {
  enum class Kind { input_arg, parameter, constant };
  Kind kind = Kind::input_arg;
  /// input_arg: the user's argument position; constant: the file constants/POSITION.
  int64_t position = -1;
  /// parameter: the state-dict key, the file data/NAME.
  std::string name;
  /// The argument's type: the signature's shape and dtype, `?` at its dynamic_dims.
  TensorType type;
};

/// A bundle function's meta (functions/NAME.meta).
struct TorchXlaFunction {
  /// The function's name ("forward") and the folder it was read from.
  std::string name, dir;
  /// @main's arguments, in order.
  std::vector<TorchXlaInput> inputs;
  /// The user's inputs by position (torch's order), the unused ones (unused_inputs) included:
  /// what `@main` takes once the weights are bound.
  std::vector<TensorType> user_inputs;
  /// The results (output_signature).
  std::vector<TensorType> outputs;
};

/// True when `path` is a folder holding `functions/*.meta` (a torch_xla bundle). Never throws.
bool is_torch_xla_bundle(const std::string& path);

/// Reads the meta of function `name` of the bundle at `dir`; "" is "forward", or the only
/// function there is. Dtypes are torch's names ("float32", "bfloat16", "int64", "bool", ...).
/// Throws hhlo::IoError naming the file when the function is missing (listing those present), the
/// JSON is malformed, a location's type is unknown, a dtype is one hhlo has no type for, the
/// signatures and locations differ in number, or a position repeats.
TorchXlaFunction read_torch_xla_meta(const std::string& dir, const std::string& name = "");

/// The bundle at `dir` as a module whose `@main` takes the user's inputs (the meta's user_inputs,
/// torch's order, named "args[P]" through `jax.arg_info`) and calls the function's module with
/// every parameter and constant bound from data/ and constants/ as a constant. The module is read
/// from functions/NAME.bytecode, else functions/NAME.mlir. Throws hhlo::IoError naming the file
/// for a missing or malformed weight, or one whose type differs from the signature's (naming
/// both), what read_torch_xla_meta throws, what reading the module throws (read_program), and
/// hhlo::Error when the module's @main does not take the signature's arguments.
Module read_torch_xla_bundle(const std::string& dir, const std::string& name = "");

}  // namespace hhlo
