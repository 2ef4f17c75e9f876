// rng and rng_bit_generator.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

TensorType infer_rng(const TensorType& a, const TensorType& b, const Dims& shape,
                     RngDistribution dist) {
  constexpr std::string_view op = "rng";
  // (C1)
  if (a.rank() != 0 || b.rank() != 0 || a.dtype != b.dtype)
    detail::fail(op, "C1", "a {} and b {} must be scalars of one element type", a.to_string(),
                 b.to_string());
  // (C2)
  if (dist == RngDistribution::NORMAL && !is_float(a.dtype))
    detail::fail(op, "C2", "NORMAL needs a float element type, got {}", mlir_name(a.dtype));
  if (dist == RngDistribution::UNIFORM &&
      !(is_float(a.dtype) || is_integer(a.dtype) || is_pred(a.dtype)))
    detail::fail(op, "C2", "UNIFORM needs an integer or float element type, got {}",
                 mlir_name(a.dtype));
  return TensorType{a.dtype, shape};
}

std::vector<TensorType> infer_rng_bit_generator(const TensorType& state, RngAlgorithm alg,
                                                const TensorType& output) {
  constexpr std::string_view op = "rng_bit_generator";
  if (state.rank() != 1 || !is_integer(state.dtype))
    detail::fail(op, "C1", "initial_state {} must be a 1-D integer tensor", state.to_string());
  // (C2)
  int64_t n = state.dims[0];
  if (n != kDynamic) {
    // The state's bit count; -1 for sizes whose product would overflow (found by fuzzing).
    int64_t bits = n <= 1024 ? n * bit_width(state.dtype) : -1;
    if (alg == RngAlgorithm::THREE_FRY && bits != 128)
      detail::fail(op, "C2", "THREE_FRY needs a 128-bit state (2 x ui64), got {}",
                   state.to_string());
    if (alg == RngAlgorithm::PHILOX && bits != 128 && bits != 192)
      detail::fail(op, "C2", "PHILOX needs a 128- or 192-bit state (2 or 3 x ui64), got {}",
                   state.to_string());
  }
  if (!(is_integer(output.dtype) || is_float(output.dtype)))
    detail::fail(op, "C3", "output {} must have an integer or float element type",
                 output.to_string());
  return {state, output};
}

Value rng(Value a, Value b, const Dims& shape, RngDistribution dist, Loc loc) {
  Value ops[] = {a, b};
  Func& f = detail::func_of("rng", ops);
  TensorType t = infer_rng(a.type(), b.type(), shape, dist);
  Array s(DType::i64, {static_cast<int64_t>(shape.size())});
  for (size_t i = 0; i < shape.size(); ++i) static_cast<int64_t*>(s.data())[i] = shape[i];
  Value shape_v = constant(f, s, loc);
  return f.append({"stablehlo.rng",
                   {a, b, shape_v},
                   {t},
                   {{"rng_distribution", dist}},
                   {},
                   Location::from(loc)})[0];
}

std::vector<Value> rng_bit_generator(Value state, RngAlgorithm alg, const TensorType& output,
                                     Loc loc) {
  Value ops[] = {state};
  Func& f = detail::func_of("rng_bit_generator", ops);
  auto t = infer_rng_bit_generator(state.type(), alg, output);
  return f.append({"stablehlo.rng_bit_generator",
                   {state},
                   t,
                   {{"rng_algorithm", alg}},
                   {},
                   Location::from(loc)});
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_rng_op(const detail::OpInfo& op) {
  op.need(3);
  const std::vector<TensorType>& in = op.operands;
  return {
      infer_rng(in[0], in[1], op.results.at(0).dims, op.get<RngDistribution>("rng_distribution"))};
}

std::vector<TensorType> infer_rng_bit_generator_op(const detail::OpInfo& op) {
  op.need(1);
  if (op.results.size() != 2) detail::fail_struct("needs two results");
  return infer_rng_bit_generator(op.operands[0], op.get<RngAlgorithm>("rng_algorithm"),
                                 op.results[1]);
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.rng", infer_rng_op},
    {"stablehlo.rng_bit_generator", infer_rng_bit_generator_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::rng_ops() { return kOps; }

}  // namespace hhlo
