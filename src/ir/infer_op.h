// Result types of one recorded op from its operand types, attributes and regions (internal to
// src/ir): what each op family's descriptor (op_descriptor.h) reads from a recorded op, and the
// dispatch through those descriptors shared by the verifier (hhlo/ir/verifier.h) and shape
// refinement (hhlo/ir/refine.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/module.h"

namespace hhlo::detail {

/// A structural problem (missing or mistyped attribute, wrong operand count, unknown op); the
/// message says what, the caller adds where.
class OpStructureError : public Error {
 public:
  using Error::Error;
};

/// Throws OpStructureError(what).
[[noreturn]] void fail_struct(const std::string& what);

/// An op as the shape rules see it: name, attributes, regions (already built), operand types and
/// the recorded result types (used for what an op's result type itself declares: the dims of
/// broadcast_in_dim, reshape, iota and rng, the element type of convert and bitcast_convert, the
/// results of custom_call). The accessors below decode what the builders of src/ir/ops encode;
/// each throws OpStructureError for what is missing or mistyped.
struct OpInfo {
  std::string_view name;  // "stablehlo.add"
  const std::vector<NamedAttr>* attrs;
  const std::vector<std::unique_ptr<Block>>* regions;
  std::vector<TensorType> operands, results;

  /// The attribute `n`, or nullptr.
  const Attribute* attr(std::string_view n) const;
  /// The attribute `n` as a T. Throws OpStructureError "missing or mistyped attribute 'n'".
  template <typename T>
  const T& get(std::string_view n) const {
    const Attribute* a = attr(n);
    const T* t = a ? a->get_if<T>() : nullptr;
    if (!t) missing(n);
    return *t;
  }
  /// The I64ArrayAttr `n` (`array<i64: ...>`), copied.
  std::vector<int64_t> i64s(std::string_view n) const { return get<I64ArrayAttr>(n).values; }
  /// The IntAttr `n`.
  int64_t integer(std::string_view n) const { return get<IntAttr>(n).value; }
  /// The (low, high) pairs of the optional `padding` attribute (a dense i64 tensor [rank, 2], as
  /// convolution, reduce_window and select_and_scatter write it); empty when absent. Throws
  /// OpStructureError when it is not a dense i64 tensor.
  std::vector<std::pair<int64_t, int64_t>> padding() const;
  /// Throws OpStructureError "expects k operands, has n" unless there are `k` operands.
  void need(size_t k) const;
  /// The element type of the first recorded result. Throws OpStructureError "has no result".
  DType result_dtype() const;
  /// Checks that region `r` takes `args` and returns `rets`: OpStructureError when there is no
  /// region `r`, ShapeError(op, constraint) otherwise (check_region_results for the returns).
  void region_sig(size_t r, const std::vector<TensorType>& args,
                  const std::vector<TensorType>& rets, std::string_view constraint) const;

 private:
  [[noreturn]] static void missing(std::string_view n);
};

/// The rank-0 types of the element types of `ts` (the arguments of reduction bodies).
std::vector<TensorType> scalar_types(const std::vector<TensorType>& ts);

/// Result types of a `stablehlo.*` op per the shape rule of its descriptor (op_descriptor.h).
/// Throws ShapeError from the rule, or OpStructureError for other dialects ("unknown dialect"),
/// names without a descriptor or whose descriptor has no rule ("unknown op"), missing
/// attributes and wrong operand counts.
std::vector<TensorType> infer_op_results(const OpInfo& op);

}  // namespace hhlo::detail
