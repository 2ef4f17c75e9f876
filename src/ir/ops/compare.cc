// compare, select, clamp, convert: elementwise ops with their own shape rules.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

ComparisonType default_comparison_type(DType t) {
  if (is_signed_int(t)) return ComparisonType::SIGNED;
  if (is_unsigned_int(t) || is_pred(t)) return ComparisonType::UNSIGNED;
  return ComparisonType::FLOAT;
}

TensorType infer_compare(const TensorType& lhs, const TensorType& rhs,
                         std::optional<ComparisonType> type) {
  // (C1)
  if (lhs.dtype != rhs.dtype)
    detail::fail("compare", "C1", "element types differ: lhs {}, rhs {}", lhs.to_string(),
                 rhs.to_string());
  // (C2)
  if (!detail::dims_compatible(lhs.dims, rhs.dims))
    detail::fail("compare", "C2", "shapes differ: lhs {}, rhs {}", lhs.to_string(),
                 rhs.to_string());
  // (C3)
  if (type && *type != ComparisonType::NOTYPE) {
    DType t = lhs.dtype;
    bool ok = false;
    switch (*type) {
      case ComparisonType::SIGNED:
        ok = is_signed_int(t);
        break;
      case ComparisonType::UNSIGNED:
        ok = is_unsigned_int(t) || is_pred(t);
        break;
      case ComparisonType::FLOAT:
        ok = is_float(t) || is_complex(t);
        break;
      case ComparisonType::TOTALORDER:
        ok = is_float(t);
        break;
      case ComparisonType::NOTYPE:
        break;
    }
    if (!ok)
      detail::fail("compare", "C3", "comparison_type {} does not fit element type {}",
                   enum_name(*type), mlir_name(t));
  }
  return TensorType{DType::pred, lhs.dims};
}

TensorType infer_select(const TensorType& pred, const TensorType& on_true,
                        const TensorType& on_false) {
  if (pred.dtype != DType::pred)
    detail::fail("select", "C1", "pred {} must have element type i1", pred.to_string());
  // (C1)
  if (pred.rank() != 0 && !detail::dims_compatible(pred.dims, on_true.dims))
    detail::fail("select", "C1", "pred {} must be a scalar or have the shape of on_true {}",
                 pred.to_string(), on_true.to_string());
  // (C2)
  if (on_true.dtype != on_false.dtype || !detail::dims_compatible(on_true.dims, on_false.dims))
    detail::fail("select", "C2", "on_true {} and on_false {} must have the same type",
                 on_true.to_string(), on_false.to_string());
  return on_true;
}

TensorType infer_clamp(const TensorType& min, const TensorType& operand, const TensorType& max) {
  // (C1)
  for (const TensorType* b : {&min, &max})
    if (b->rank() != 0 && !detail::dims_compatible(b->dims, operand.dims))
      detail::fail("clamp", "C1", "bound {} must be a scalar or have the shape of operand {}",
                   b->to_string(), operand.to_string());
  // (C2)
  if (min.dtype != operand.dtype || max.dtype != operand.dtype)
    detail::fail("clamp", "C2", "element types differ: min {}, operand {}, max {}", min.to_string(),
                 operand.to_string(), max.to_string());
  return operand;
}

TensorType infer_convert(const TensorType& operand, DType to) {
  // Every element type converts to every other (spec "convert"): complex to a non-complex type
  // drops the imaginary part.
  return TensorType{to, operand.dims};
}

Value compare(Value lhs, Value rhs, ComparisonDirection direction,
              std::optional<ComparisonType> type, Loc loc) {
  Value ops[] = {lhs, rhs};
  Func& f = detail::func_of("compare", ops);
  TensorType t = infer_compare(lhs.type(), rhs.type(), type);
  std::vector<NamedAttr> attrs = {{"comparison_direction", direction}};
  attrs.push_back({"compare_type", type.value_or(default_comparison_type(lhs.dtype()))});
  return f.append(
      {"stablehlo.compare", {lhs, rhs}, {t}, std::move(attrs), {}, Location::from(loc)})[0];
}

Value select(Value pred, Value on_true, Value on_false, Loc loc) {
  Value ops[] = {pred, on_true, on_false};
  Func& f = detail::func_of("select", ops);
  TensorType t = infer_select(pred.type(), on_true.type(), on_false.type());
  return f.append(
      {"stablehlo.select", {pred, on_true, on_false}, {t}, {}, {}, Location::from(loc)})[0];
}

Value clamp(Value min, Value operand, Value max, Loc loc) {
  Value ops[] = {min, operand, max};
  Func& f = detail::func_of("clamp", ops);
  TensorType t = infer_clamp(min.type(), operand.type(), max.type());
  return f.append({"stablehlo.clamp", {min, operand, max}, {t}, {}, {}, Location::from(loc)})[0];
}

Value convert(Value operand, DType to, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("convert", ops);
  TensorType t = infer_convert(operand.type(), to);
  return f.append({"stablehlo.convert", {operand}, {t}, {}, {}, Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_compare_op(const detail::OpInfo& op) {
  op.need(2);
  op.get<ComparisonDirection>("comparison_direction");
  const Attribute* t = op.attr("compare_type");
  std::optional<ComparisonType> ct;
  if (t && t->get_if<ComparisonType>()) ct = *t->get_if<ComparisonType>();
  return {infer_compare(op.operands[0], op.operands[1], ct)};
}

std::vector<TensorType> infer_select_op(const detail::OpInfo& op) {
  op.need(3);
  return {infer_select(op.operands[0], op.operands[1], op.operands[2])};
}

std::vector<TensorType> infer_clamp_op(const detail::OpInfo& op) {
  op.need(3);
  return {infer_clamp(op.operands[0], op.operands[1], op.operands[2])};
}

std::vector<TensorType> infer_convert_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_convert(op.operands[0], op.result_dtype())};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.clamp", infer_clamp_op},
    {"stablehlo.compare", infer_compare_op},
    {"stablehlo.convert", infer_convert_op},
    {"stablehlo.select", infer_select_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::compare_ops() { return kOps; }

}  // namespace hhlo
