// batch_norm_inference, batch_norm_training, batch_norm_grad.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

int64_t feature_size(std::string_view op, const TensorType& operand, int64_t fi) {
  // (C1)
  if (fi < 0 || fi >= operand.rank())
    detail::fail(op, "C1", "feature_index {} outside [0, {}) for {}", fi, operand.rank(),
                 operand.to_string());
  if (!is_float(operand.dtype))
    detail::fail(op, "C2", "operand {} must have a float element type", operand.to_string());
  return operand.dims[static_cast<size_t>(fi)];
}

void check_vec(std::string_view op, std::string_view c, std::string_view what, const TensorType& t,
               const TensorType& operand, int64_t features) {
  if (t.dtype != operand.dtype)
    detail::fail(op, "C2", "{} {} and operand {} differ in element type", what, t.to_string(),
                 operand.to_string());
  if (t.rank() != 1 || !detail::dim_compatible(t.dims[0], features))
    detail::fail(op, c, "{} {} must be 1-D of the feature size {}", what, t.to_string(), features);
}

}  // namespace

TensorType infer_batch_norm_inference(const TensorType& operand, const TensorType& scale,
                                      const TensorType& offset, const TensorType& mean,
                                      const TensorType& variance, int64_t fi) {
  constexpr std::string_view op = "batch_norm_inference";
  int64_t n = feature_size(op, operand, fi);
  check_vec(op, "C3", "scale", scale, operand, n);
  check_vec(op, "C4", "offset", offset, operand, n);
  check_vec(op, "C5", "mean", mean, operand, n);
  check_vec(op, "C6", "variance", variance, operand, n);
  return operand;
}

std::vector<TensorType> infer_batch_norm_training(const TensorType& operand,
                                                  const TensorType& scale, const TensorType& offset,
                                                  int64_t fi) {
  constexpr std::string_view op = "batch_norm_training";
  int64_t n = feature_size(op, operand, fi);
  check_vec(op, "C3", "scale", scale, operand, n);
  check_vec(op, "C4", "offset", offset, operand, n);
  TensorType v{operand.dtype, {n}};
  return {operand, v, v};
}

std::vector<TensorType> infer_batch_norm_grad(const TensorType& operand, const TensorType& scale,
                                              const TensorType& mean, const TensorType& variance,
                                              const TensorType& grad_output, int64_t fi) {
  constexpr std::string_view op = "batch_norm_grad";
  int64_t n = feature_size(op, operand, fi);
  check_vec(op, "C3", "scale", scale, operand, n);
  check_vec(op, "C4", "mean", mean, operand, n);
  check_vec(op, "C5", "variance", variance, operand, n);
  if (grad_output.dtype != operand.dtype ||
      !detail::dims_compatible(grad_output.dims, operand.dims))
    detail::fail(op, "C6", "grad_output {} must have operand {}'s type", grad_output.to_string(),
                 operand.to_string());
  TensorType v{operand.dtype, {n}};
  return {operand, v, v};
}

static std::vector<NamedAttr> bn_attrs(float epsilon, int64_t fi) {
  return {{"epsilon", FloatAttr{epsilon, DType::f32}}, {"feature_index", i64_attr(fi)}};
}

Value batch_norm_inference(Value operand, Value scale, Value offset, Value mean, Value variance,
                           float epsilon, int64_t fi, Loc loc) {
  std::vector<Value> all = {operand, scale, offset, mean, variance};
  Func& f = detail::func_of("batch_norm_inference", all);
  TensorType t = infer_batch_norm_inference(operand.type(), scale.type(), offset.type(),
                                            mean.type(), variance.type(), fi);
  return f.append({"stablehlo.batch_norm_inference",
                   all,
                   {t},
                   bn_attrs(epsilon, fi),
                   {},
                   Location::from(loc)})[0];
}

std::vector<Value> batch_norm_training(Value operand, Value scale, Value offset, float epsilon,
                                       int64_t fi, Loc loc) {
  std::vector<Value> all = {operand, scale, offset};
  Func& f = detail::func_of("batch_norm_training", all);
  auto t = infer_batch_norm_training(operand.type(), scale.type(), offset.type(), fi);
  return f.append(
      {"stablehlo.batch_norm_training", all, t, bn_attrs(epsilon, fi), {}, Location::from(loc)});
}

std::vector<Value> batch_norm_grad(Value operand, Value scale, Value mean, Value variance,
                                   Value grad_output, float epsilon, int64_t fi, Loc loc) {
  std::vector<Value> all = {operand, scale, mean, variance, grad_output};
  Func& f = detail::func_of("batch_norm_grad", all);
  auto t = infer_batch_norm_grad(operand.type(), scale.type(), mean.type(), variance.type(),
                                 grad_output.type(), fi);
  return f.append(
      {"stablehlo.batch_norm_grad", all, t, bn_attrs(epsilon, fi), {}, Location::from(loc)});
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_batch_norm_inference_op(const detail::OpInfo& op) {
  op.need(5);
  const std::vector<TensorType>& in = op.operands;
  return {
      infer_batch_norm_inference(in[0], in[1], in[2], in[3], in[4], op.integer("feature_index"))};
}

std::vector<TensorType> infer_batch_norm_training_op(const detail::OpInfo& op) {
  op.need(3);
  const std::vector<TensorType>& in = op.operands;
  return infer_batch_norm_training(in[0], in[1], in[2], op.integer("feature_index"));
}

std::vector<TensorType> infer_batch_norm_grad_op(const detail::OpInfo& op) {
  op.need(5);
  const std::vector<TensorType>& in = op.operands;
  return infer_batch_norm_grad(in[0], in[1], in[2], in[3], in[4], op.integer("feature_index"));
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.batch_norm_grad", infer_batch_norm_grad_op},
    {"stablehlo.batch_norm_inference", infer_batch_norm_inference_op},
    {"stablehlo.batch_norm_training", infer_batch_norm_training_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::batch_norm_ops() { return kOps; }

}  // namespace hhlo
