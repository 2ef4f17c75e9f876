// bitcast_convert and reduce_precision: bit-level type ops.
#include <cstdint>
#include <limits>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

TensorType infer_bitcast_convert(const TensorType& operand, DType to) {
  constexpr std::string_view op = "bitcast_convert";
  // i1 is one bit (spec "num_bits"): tensor<64xi1> is the bits of an i64, element 0 the least
  // significant (the reference interpreter's bitcast_convert.mlir); the program stage computes
  // that with shifts (hhlo/program/spec_rewrites.h), the plugin does not.
  // (C2)
  if (is_complex(operand.dtype) != is_complex(to))
    detail::fail(op, "C2", "complex and non-complex types do not bitcast: {} to {}",
                 operand.to_string(), mlir_name(to));
  int wi = bit_width(operand.dtype), wo = bit_width(to);
  Dims dims = operand.dims;
  // (C1)
  if (wo < wi) {
    dims.push_back(wi / wo);
  } else if (wo > wi) {
    // wi divides wo (both powers of two): compare with the quotient, never multiply a dimension
    // (2^62 x 16 overflows int64).
    if (dims.empty() || (dims.back() != kDynamic && dims.back() != wo / wi))
      detail::fail(op, "C1", "widening {} to {} needs a last dimension of size {}",
                   operand.to_string(), mlir_name(to), wo / wi);
    dims.pop_back();
  }
  return TensorType{to, dims};
}

TensorType infer_reduce_precision(const TensorType& operand, int64_t exponent_bits,
                                  int64_t mantissa_bits) {
  constexpr std::string_view op = "reduce_precision";
  if (!is_float(operand.dtype))
    detail::fail(op, "C1", "operand {} must have a float element type", operand.to_string());
  // (C2), (C3); both are si32 constants (spec inputs I2, I3).
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (exponent_bits < 1 || exponent_bits > kMax)
    detail::fail(op, "C2", "exponent_bits {} must be >= 1 and fit in si32", exponent_bits);
  if (mantissa_bits < 0 || mantissa_bits > kMax)
    detail::fail(op, "C3", "mantissa_bits {} must be >= 0 and fit in si32", mantissa_bits);
  return operand;
}

Value bitcast_convert(Value operand, DType to, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("bitcast_convert", ops);
  TensorType t = infer_bitcast_convert(operand.type(), to);
  return f.append({"stablehlo.bitcast_convert", {operand}, {t}, {}, {}, Location::from(loc)})[0];
}

Value reduce_precision(Value operand, int64_t exponent_bits, int64_t mantissa_bits, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("reduce_precision", ops);
  TensorType t = infer_reduce_precision(operand.type(), exponent_bits, mantissa_bits);
  return f.append(
      {"stablehlo.reduce_precision",
       {operand},
       {t},
       {{"exponent_bits", i32_attr(exponent_bits)}, {"mantissa_bits", i32_attr(mantissa_bits)}},
       {},
       Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_bitcast_convert_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_bitcast_convert(op.operands[0], op.result_dtype())};
}

std::vector<TensorType> infer_reduce_precision_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_reduce_precision(op.operands[0], op.integer("exponent_bits"),
                                 op.integer("mantissa_bits"))};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.bitcast_convert", infer_bitcast_convert_op},
    {"stablehlo.reduce_precision", infer_reduce_precision_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::bitcast_ops() { return kOps; }

}  // namespace hhlo
