// pad, reverse, get_dimension_size.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

TensorType infer_pad(const TensorType& operand, const TensorType& pv, std::span<const int64_t> low,
                     std::span<const int64_t> high, std::span<const int64_t> interior) {
  constexpr std::string_view op = "pad";
  // (C1)
  if (pv.rank() != 0 || pv.dtype != operand.dtype)
    detail::fail(op, "C1", "padding_value {} must be a scalar of operand {}'s element type",
                 pv.to_string(), operand.to_string());
  size_t r = static_cast<size_t>(operand.rank());
  // (C2)
  if (low.size() != r || high.size() != r || interior.size() != r)
    detail::fail(op, "C2",
                 "edge_padding_low {}, edge_padding_high {}, interior_padding {} must "
                 "each have rank({}) = {} entries",
                 detail::list(low), detail::list(high), detail::list(interior), operand.to_string(),
                 r);
  Dims dims(r);
  for (size_t d = 0; d < r; ++d) {
    // (C3)
    if (interior[d] < 0)
      detail::fail(op, "C3", "interior_padding {} of dim {} is negative", interior[d], d);
    int64_t n = operand.dims[d];
    if (n == kDynamic) {
      dims[d] = kDynamic;
      continue;
    }
    // (C4)
    int64_t size = 0, inner = 0;
    if (__builtin_mul_overflow(std::max<int64_t>(n - 1, 0), interior[d], &inner) ||
        __builtin_add_overflow(low[d], n, &size) || __builtin_add_overflow(size, high[d], &size) ||
        __builtin_add_overflow(size, inner, &size))
      detail::fail(op, "C4",
                   "dim {} overflows a 64-bit size (low {}, size {}, high {}, interior {})", d,
                   low[d], n, high[d], interior[d]);
    if (size < 0)
      detail::fail(op, "C4",
                   "dim {} would have negative size {} (low {}, size {}, high {}, "
                   "interior {})",
                   d, size, low[d], n, high[d], interior[d]);
    dims[d] = size;
  }
  return TensorType{operand.dtype, dims};
}

TensorType infer_reverse(const TensorType& operand, std::span<const int64_t> dimensions) {
  // (C2), (C3)
  detail::check_unique("reverse", "C2", "dimensions", dimensions);
  detail::check_in_range("reverse", "C3", "dimensions", dimensions, operand.rank());
  return operand;
}

TensorType infer_get_dimension_size(const TensorType& operand, int64_t dimension) {
  // (C1)
  if (dimension < 0 || dimension >= operand.rank())
    detail::fail("get_dimension_size", "C1", "dimension {} outside [0, {}) for {}", dimension,
                 operand.rank(), operand.to_string());
  return TensorType{DType::i32, {}};
}

Value pad(Value operand, Value padding_value, std::vector<int64_t> low, std::vector<int64_t> high,
          std::vector<int64_t> interior, Loc loc) {
  Value ops[] = {operand, padding_value};
  Func& f = detail::func_of("pad", ops);
  TensorType t = infer_pad(operand.type(), padding_value.type(), low, high, interior);
  return f.append({"stablehlo.pad",
                   {operand, padding_value},
                   {t},
                   {{"edge_padding_low", i64_array(std::move(low))},
                    {"edge_padding_high", i64_array(std::move(high))},
                    {"interior_padding", i64_array(std::move(interior))}},
                   {},
                   Location::from(loc)})[0];
}

Value reverse(Value operand, std::vector<int64_t> dimensions, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("reverse", ops);
  TensorType t = infer_reverse(operand.type(), dimensions);
  return f.append({"stablehlo.reverse",
                   {operand},
                   {t},
                   {{"dimensions", i64_array(std::move(dimensions))}},
                   {},
                   Location::from(loc)})[0];
}

Value get_dimension_size(Value operand, int64_t dimension, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("get_dimension_size", ops);
  TensorType t = infer_get_dimension_size(operand.type(), dimension);
  return f.append({"stablehlo.get_dimension_size",
                   {operand},
                   {t},
                   {{"dimension", i64_attr(dimension)}},
                   {},
                   Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_pad_op(const detail::OpInfo& op) {
  op.need(2);
  return {infer_pad(op.operands[0], op.operands[1], op.i64s("edge_padding_low"),
                    op.i64s("edge_padding_high"), op.i64s("interior_padding"))};
}

std::vector<TensorType> infer_reverse_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_reverse(op.operands[0], op.i64s("dimensions"))};
}

std::vector<TensorType> infer_get_dimension_size_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_get_dimension_size(op.operands[0], op.integer("dimension"))};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.get_dimension_size", infer_get_dimension_size_op},
    {"stablehlo.pad", infer_pad_op},
    {"stablehlo.reverse", infer_reverse_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::pad_ops() { return kOps; }

}  // namespace hhlo
