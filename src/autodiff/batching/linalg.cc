// Batching of cholesky, triangular_solve and fft (they already take leading batch dimensions:
// the vmapped axis is one more), and of the RNG ops: rng with per-example bounds draws a batch of
// standard values and scales them; rng_bit_generator with a per-example state runs once per
// example (unrolled, the axis size is static) and stacks the results. An RNG op with unbatched
// operands is re-emitted unchanged (the same draw for every example, as JAX's vmap of an
// unbatched key).
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

std::vector<Batched> leading_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in;
  for (const Batched& b : xs) in.push_back(materialize(b, n));
  return {{emit(op, in, {batched_type(op.result().type(), n)}, op.attrs())[0], true}};
}

std::vector<Batched> rng_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  if (xs[2].batched) unsupported_batching(op, "the shape operand is batched");
  const Attribute* d = op.attr("rng_distribution");
  const auto* dist = d ? d->get_if<RngDistribution>() : nullptr;
  if (!dist) unsupported_batching(op, "no rng_distribution attribute");
  DType t = op.result().dtype();
  if (!is_float(t))
    unsupported_batching(op, "per-example bounds of an integer rng are not supported");
  Func& f = xs[0].value.func();
  Dims shape = batched_type(op.result().type(), n).dims;
  Value z = rng(constant(f, 0.0, t), constant(f, 1.0, t), shape, *dist);
  auto full = [&](const Batched& b) {
    return b.batched ? broadcast_in_dim(b.value, shape, {0}) : broadcast_in_dim(b.value, shape, {});
  };
  Value a = full(xs[0]), b = full(xs[1]);
  // UNIFORM: a + (b - a) u; NORMAL: mean a + stddev b * z.
  Value scale = *dist == RngDistribution::UNIFORM ? subtract(b, a) : b;
  return {{add(a, multiply(scale, z)), true}};
}

std::vector<Batched> rng_bit_generator_batch(const Op& op, const std::vector<Batched>& xs,
                                             int64_t n) {
  Value s = xs[0].value;  // [n] ++ state
  std::vector<Value> states, bits;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> lo(s.rank(), 0), hi = s.dims();
    lo[0] = i;
    hi[0] = i + 1;
    Value si = reshape(slice(s, lo, hi), op.operands()[0].dims());
    std::vector<Value> r = emit(op, {si}, {op.result(0).type(), op.result(1).type()}, op.attrs());
    states.push_back(reshape(r[0], batched_type(r[0].type(), 1).dims));
    bits.push_back(reshape(r[1], batched_type(r[1].type(), 1).dims));
  }
  auto cat = [](const std::vector<Value>& v) { return v.size() == 1 ? v[0] : concatenate(v, 0); };
  return {{cat(states), true}, {cat(bits), true}};
}

}  // namespace

void register_linalg_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.cholesky", leading_batch);
  r.insert_or_assign("stablehlo.triangular_solve", leading_batch);
  r.insert_or_assign("stablehlo.fft", leading_batch);
  r.insert_or_assign("stablehlo.rng", rng_batch);
  r.insert_or_assign("stablehlo.rng_bit_generator", rng_bit_generator_batch);
}

}  // namespace hhlo::ad::detail
