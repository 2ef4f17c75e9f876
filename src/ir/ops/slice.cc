// slice and concatenate: static sub-tensors and joins.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

TensorType infer_slice(const TensorType& operand, std::span<const int64_t> start,
                       std::span<const int64_t> limit, std::span<const int64_t> strides) {
  constexpr std::string_view op = "slice";
  size_t r = static_cast<size_t>(operand.rank());
  // (C2)
  if (start.size() != r || limit.size() != r || strides.size() != r)
    detail::fail(op, "C2",
                 "start_indices {}, limit_indices {}, strides {} must each have rank({}) "
                 "= {} entries",
                 detail::list(start), detail::list(limit), detail::list(strides),
                 operand.to_string(), r);
  Dims dims(r);
  for (size_t d = 0; d < r; ++d) {
    int64_t size = operand.dims[d];
    // (C3)
    if (start[d] < 0 || start[d] > limit[d] || (size != kDynamic && limit[d] > size))
      detail::fail(op, "C3", "dim {}: need 0 <= start {} <= limit {} <= size {} of {}", d, start[d],
                   limit[d], size, operand.to_string());
    // (C4)
    if (strides[d] <= 0)
      detail::fail(op, "C4", "dim {}: stride {} must be positive", d, strides[d]);
    // ceil((limit - start) / stride) without adding the stride (2^63 - 1 overflows int64).
    int64_t n = limit[d] - start[d];
    dims[d] = n == 0 ? 0 : (n - 1) / strides[d] + 1;
  }
  return TensorType{operand.dtype, dims};
}

TensorType infer_concatenate(std::span<const TensorType> inputs, int64_t dimension) {
  constexpr std::string_view op = "concatenate";
  // (C3)
  if (inputs.empty()) detail::fail(op, "C3", "needs at least one input");
  const TensorType& first = inputs[0];
  // (C4)
  if (dimension < 0 || dimension >= first.rank())
    detail::fail(op, "C4", "dimension {} outside [0, {}) for {}", dimension, first.rank(),
                 first.to_string());
  Dims dims = first.dims;
  auto dd = static_cast<size_t>(dimension);
  for (size_t i = 1; i < inputs.size(); ++i) {
    const TensorType& t = inputs[i];
    // (C1)
    if (t.dtype != first.dtype)
      detail::fail(op, "C1", "input {} {} has element type differing from input 0 {}", i,
                   t.to_string(), first.to_string());
    // (C2)
    bool ok = t.rank() == first.rank();
    for (size_t d = 0; ok && d < dims.size(); ++d)
      ok = d == dd || detail::dim_compatible(t.dims[d], first.dims[d]);
    if (!ok)
      detail::fail(op, "C2", "input {} {} and input 0 {} differ outside dimension {}", i,
                   t.to_string(), first.to_string(), dimension);
    if (dims[dd] == kDynamic || t.dims[dd] == kDynamic)
      dims[dd] = kDynamic;
    else if (__builtin_add_overflow(dims[dd], t.dims[dd], &dims[dd]))  // found by fuzzing
      detail::fail(op, "C6", "the sizes of dimension {} add up to more than 64 bits hold",
                   dimension);
  }
  return TensorType{first.dtype, dims};
}

Value slice(Value operand, std::vector<int64_t> start, std::vector<int64_t> limit,
            std::vector<int64_t> strides, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("slice", ops);
  if (strides.empty()) strides.assign(start.size(), 1);
  TensorType t = infer_slice(operand.type(), start, limit, strides);
  return f.append({"stablehlo.slice",
                   {operand},
                   {t},
                   {{"start_indices", i64_array(std::move(start))},
                    {"limit_indices", i64_array(std::move(limit))},
                    {"strides", i64_array(std::move(strides))}},
                   {},
                   Location::from(loc)})[0];
}

Value concatenate(const std::vector<Value>& inputs, int64_t dimension, Loc loc) {
  if (inputs.empty()) detail::fail("concatenate", "C3", "needs at least one input");
  Func& f = detail::func_of("concatenate", inputs);
  TensorType t = infer_concatenate(detail::types_of(inputs), dimension);
  return f.append({"stablehlo.concatenate",
                   inputs,
                   {t},
                   {{"dimension", i64_attr(dimension)}},
                   {},
                   Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_slice_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_slice(op.operands[0], op.i64s("start_indices"), op.i64s("limit_indices"),
                      op.i64s("strides"))};
}

std::vector<TensorType> infer_concatenate_op(const detail::OpInfo& op) {
  return {infer_concatenate(op.operands, op.integer("dimension"))};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.concatenate", infer_concatenate_op},
    {"stablehlo.slice", infer_slice_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::slice_ops() { return kOps; }

}  // namespace hhlo
