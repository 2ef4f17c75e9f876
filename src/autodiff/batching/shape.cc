// Batching of shape ops: broadcast_in_dim, reshape, transpose, slice, concatenate, pad, reverse,
// get_dimension_size. The vmapped axis stays dimension 0; attributes shift by one. (constant and
// iota take no operands, so they are never batched.)
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

std::vector<Batched> one(Value v) { return {{v, true}}; }

std::vector<Batched> broadcast_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  return one(broadcast_in_dim(xs[0].value, batched_type(op.result().type(), n).dims,
                              shifted(i64s(op, "broadcast_dimensions"), {0})));
}

std::vector<Batched> reshape_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  return one(reshape(xs[0].value, batched_type(op.result().type(), n).dims));
}

std::vector<Batched> transpose_batch(const Op& op, const std::vector<Batched>& xs, int64_t) {
  return one(transpose(xs[0].value, shifted(i64s(op, "permutation"), {0})));
}

std::vector<Batched> slice_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  int64_t r = op.operands()[0].rank();
  return one(slice(xs[0].value, prepend(0, i64s(op, "start_indices")),
                   prepend(n, i64s(op, "limit_indices")),
                   prepend(1, i64s(op, "strides", std::vector<int64_t>(r, 1)))));
}

std::vector<Batched> concatenate_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in;
  for (const Batched& b : xs) in.push_back(materialize(b, n));
  const Attribute* d = op.attr("dimension");
  const auto* i = d ? d->get_if<IntAttr>() : nullptr;
  if (!i) unsupported_batching(op, "no integer 'dimension' attribute");
  return one(concatenate(in, i->value + 1));
}

std::vector<Batched> pad_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  int64_t r = op.operands()[0].rank();
  std::vector<int64_t> lo = i64s(op, "edge_padding_low"), hi = i64s(op, "edge_padding_high"),
                       in = i64s(op, "interior_padding", std::vector<int64_t>(r, 0));
  Value x = materialize(xs[0], n);
  if (!xs[1].batched)
    return one(pad(x, xs[1].value, prepend(0, lo), prepend(0, hi), prepend(0, in)));
  // A per-example padding value (JAX's _pad_batch_rule): pad with any value, then select the
  // padding value where a padded mask of `true` reads `false`.
  Func& f = x.func();
  Value zero = constant(f, 0, x.dtype());
  Value padded = pad(x, zero, prepend(0, lo), prepend(0, hi), prepend(0, in));
  Value mask = pad(constant(f, true, DType::pred, op.operands()[0].dims()),
                   constant(f, false, DType::pred), lo, hi, in);
  Dims full = padded.dims();
  std::vector<int64_t> bd;
  for (int64_t i = 0; i < r; ++i) bd.push_back(i + 1);
  return one(
      select(broadcast_in_dim(mask, full, bd), padded, broadcast_in_dim(xs[1].value, full, {0})));
}

std::vector<Batched> reverse_batch(const Op& op, const std::vector<Batched>& xs, int64_t) {
  return one(reverse(xs[0].value, shifted(i64s(op, "dimensions"))));
}

std::vector<Batched> dimension_size_batch(const Op& op, const std::vector<Batched>& xs, int64_t) {
  const Attribute* d = op.attr("dimension");
  const auto* i = d ? d->get_if<IntAttr>() : nullptr;
  if (!i) unsupported_batching(op, "no integer 'dimension' attribute");
  return {{get_dimension_size(xs[0].value, i->value + 1), false}};
}

}  // namespace

void register_shape_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.broadcast_in_dim", broadcast_batch);
  r.insert_or_assign("stablehlo.reshape", reshape_batch);
  r.insert_or_assign("stablehlo.transpose", transpose_batch);
  r.insert_or_assign("stablehlo.slice", slice_batch);
  r.insert_or_assign("stablehlo.concatenate", concatenate_batch);
  r.insert_or_assign("stablehlo.pad", pad_batch);
  r.insert_or_assign("stablehlo.reverse", reverse_batch);
  r.insert_or_assign("stablehlo.get_dimension_size", dimension_size_batch);
}

}  // namespace hhlo::ad::detail
