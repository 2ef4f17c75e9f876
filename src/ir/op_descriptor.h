// The op descriptors (internal to src/ir): each op family (src/ir/ops/<family>.cc) lists, next to
// its builders, one descriptor per op it emits: the op's full name and its shape rule on a recorded
// op (attributes decoded from OpInfo). The registry (src/ir/ops/registry.cc) gathers the families'
// lists; the verifier, shape refinement and supported_ops() all read it, so an op exists in one
// place.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "infer_op.h"

namespace hhlo::detail {

/// One op the builder emits.
struct OpDescriptor {
  /// The full name, "stablehlo.gather", "func.call".
  std::string_view name;
  /// Result types of a recorded op of this name (OpInfo: operand and declared result types,
  /// attributes, regions) per its shape rule (hhlo/ir/infer.h), with the attributes decoded and
  /// the regions' signatures checked. Throws ShapeError, or OpStructureError for missing or
  /// mistyped attributes and wrong operand counts. nullptr for the ops the verifier checks
  /// against the module itself (func.call, func.return, stablehlo.composite) and for
  /// stablehlo.return (checked by the op owning the region).
  std::vector<TensorType> (*infer)(const OpInfo& op);
};

/// The descriptors of one op family, each defined in src/ir/ops/<family>.cc.
std::span<const OpDescriptor> batch_norm_ops();
std::span<const OpDescriptor> bitcast_ops();
std::span<const OpDescriptor> call_ops();
std::span<const OpDescriptor> collective_ops();
std::span<const OpDescriptor> compare_ops();
std::span<const OpDescriptor> constant_ops();
std::span<const OpDescriptor> control_flow_ops();
std::span<const OpDescriptor> convolution_ops();
std::span<const OpDescriptor> custom_call_ops();
std::span<const OpDescriptor> dot_general_ops();
std::span<const OpDescriptor> dynamic_slice_ops();
std::span<const OpDescriptor> elementwise_ops();
std::span<const OpDescriptor> fft_ops();
std::span<const OpDescriptor> gather_ops();
std::span<const OpDescriptor> linalg_ops();
std::span<const OpDescriptor> map_ops();
std::span<const OpDescriptor> pad_ops();
std::span<const OpDescriptor> reduce_ops();
std::span<const OpDescriptor> reduce_window_ops();
std::span<const OpDescriptor> rng_ops();
std::span<const OpDescriptor> scatter_ops();
std::span<const OpDescriptor> shape_ops();
std::span<const OpDescriptor> slice_ops();
std::span<const OpDescriptor> sort_ops();

/// Every descriptor of every family, sorted by name (the names are unique).
const std::vector<OpDescriptor>& op_descriptors();

/// The descriptor named `name` ("stablehlo.add"), or nullptr: one hash look-up.
const OpDescriptor* find_op_descriptor(std::string_view name);

}  // namespace hhlo::detail
