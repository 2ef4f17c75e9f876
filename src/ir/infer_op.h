// Result types of one op from its operand types, attributes and regions (internal to src/ir):
// the dispatch from StableHLO op names to the shape rules of hhlo/ir/infer.h, shared by the
// verifier (hhlo/ir/verifier.h) and shape refinement (hhlo/ir/refine.h).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/module.h"

namespace hhlo::detail {

/// An op as the shape rules see it: name, attributes, regions (already built), operand types and
/// the recorded result types (used for what an op's result type itself declares: the dims of
/// broadcast_in_dim, reshape, iota and rng, the element type of convert and bitcast_convert, the
/// results of custom_call).
struct OpInfo {
  std::string_view name;  // "stablehlo.add"
  const std::vector<NamedAttr>* attrs;
  const std::vector<std::unique_ptr<Block>>* regions;
  std::vector<TensorType> operands, results;
  /// The attribute `n`, or nullptr.
  const Attribute* attr(std::string_view n) const;
};

/// A structural problem (missing or mistyped attribute, wrong operand count, unknown op); the
/// message says what, the caller adds where.
class OpStructureError : public Error {
 public:
  using Error::Error;
};

/// Result types of a `stablehlo.*` op per its shape rule. Throws ShapeError from the rule, or
/// OpStructureError for unknown ops, missing attributes and wrong operand counts.
std::vector<TensorType> infer_op_results(const OpInfo& op);

}  // namespace hhlo::detail
