// Private to the runtime: the parameter and result types of a compiled program, read from the
// program the plugin itself compiled (PJRT_Executable_OptimizedProgram), so that execute() checks
// its arguments whatever the program came from (MLIR text, bytecode, a deserialized executable).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hhlo/core/gspmd_sharding.h"
#include "hhlo/core/tensor_type.h"

struct PJRT_Api;
struct PJRT_LoadedExecutable;

namespace hhlo::detail {

/// Entry parameter and result types of a compiled program.
struct ProgramShape {
  std::vector<TensorType> parameters;
  std::vector<TensorType> results;  // a tuple result is flattened one level, as PJRT returns it
};

/// Decodes the `host_program_shape` (field 4) of a serialized xla.HloModuleProto: ProgramShapeProto
/// {parameters = 1, result = 2}, ShapeProto {element_type = 2, dimensions = 3, tuple_shapes = 4,
/// is_dynamic_dimension = 6}, PrimitiveType numbering of xla_data.proto. Returns the reason as a
/// string when the bytes are not such a proto, have no program shape, or hold a type a
/// TensorType cannot hold (a token, a nested tuple, a dtype we do not support, a dynamic dim).
std::variant<ProgramShape, std::string> decode_hlo_program_shape(std::string_view hlo_module_proto);

}  // namespace hhlo::detail

namespace hhlo::detail {

/// The program the plugin compiled for `exe` (PJRT_Executable_OptimizedProgram, called twice:
/// size, then bytes), with its format ("hlo_with_config" on the CPU plugins) in `format`; nullopt
/// with the reason in `why` when the plugin has no such call or refuses it. Never throws.
std::optional<std::string> optimized_program(const PJRT_Api* api, PJRT_LoadedExecutable* exe,
                                             std::string& format, std::string& why);

/// The shardings XLA recorded for the entry computation: HloModuleProto
/// spmd_parameters_shardings (14, one per parameter) and spmd_output_sharding (12, a TUPLE
/// sharding flattened one level, one per result), each decoded by decode_op_sharding
/// (hhlo/core/op_sharding_proto.h) and of kind replicated or tiled. Absent (has_* false) for a
/// program compiled without SPMD partitioning.
struct ProgramShardings {
  bool has_parameters = false, has_results = false;
  std::vector<GspmdSharding> parameters, results;
};

/// Decodes the shardings of a serialized xla.HloModuleProto; the reason as a string for a
/// sharding the runtime cannot lay out (MAXIMAL, MANUAL, UNKNOWN, UNREDUCED, a tuple inside the
/// output tuple or as a parameter's) or bytes decode_op_sharding refuses.
std::variant<ProgramShardings, std::string> decode_hlo_shardings(std::string_view hlo_module_proto);

/// The program shape of a loaded executable, from PJRT_Executable_OptimizedProgram (format
/// "hlo", an HloModuleProto); the reason as a string when the plugin gives no such program or
/// it cannot be decoded. With `shardings`, also decodes the entry shardings from the same
/// bytes (the reason they could not be read into `shardings_error`). Never throws for a plugin
/// that refuses: the caller decides.
std::variant<ProgramShape, std::string> executable_program_shape(
    const PJRT_Api* api, PJRT_LoadedExecutable* exe, ProgramShardings* shardings = nullptr,
    std::string* shardings_error = nullptr);

}  // namespace hhlo::detail
