// Batching of batch_norm_inference / _training / _grad: the vmapped axis is merged into the
// feature dimension (n * C features, example major), so statistics stay per example and per
// feature; the 1-D operands become [n * C]; results are split back.
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

struct BnAttrs {
  float epsilon;
  int64_t fi;
};

BnAttrs bn_attrs(const Op& op) {
  const Attribute* e = op.attr("epsilon");
  const Attribute* f = op.attr("feature_index");
  const auto* ev = e ? e->get_if<FloatAttr>() : nullptr;
  const auto* fv = f ? f->get_if<IntAttr>() : nullptr;
  if (!ev || !fv) unsupported_batching(op, "missing epsilon / feature_index attributes");
  return {static_cast<float>(ev->value), fv->value};
}

Value merged(const Batched& b, int64_t n, int64_t fi) {
  return axis_into(0, fi, materialize(b, n));
}
Value merged_1d(const Batched& b, int64_t n) {
  Value v = materialize(b, n);
  return reshape(v, {v.dim(0) * v.dim(1)});
}
Batched split(Value v, int64_t n, int64_t fi) {
  return {move_axis(axis_out_of(fi, n, v), fi, 0), true};
}
Batched split_1d(Value v, int64_t n) { return {reshape(v, {n, v.dim(0) / n}), true}; }

std::vector<Batched> inference_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  BnAttrs a = bn_attrs(op);
  Value r = batch_norm_inference(merged(xs[0], n, a.fi), merged_1d(xs[1], n), merged_1d(xs[2], n),
                                 merged_1d(xs[3], n), merged_1d(xs[4], n), a.epsilon, a.fi);
  return {split(r, n, a.fi)};
}

std::vector<Batched> training_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  BnAttrs a = bn_attrs(op);
  std::vector<Value> r = batch_norm_training(merged(xs[0], n, a.fi), merged_1d(xs[1], n),
                                             merged_1d(xs[2], n), a.epsilon, a.fi);
  return {split(r[0], n, a.fi), split_1d(r[1], n), split_1d(r[2], n)};
}

std::vector<Batched> grad_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  BnAttrs a = bn_attrs(op);
  std::vector<Value> r =
      batch_norm_grad(merged(xs[0], n, a.fi), merged_1d(xs[1], n), merged_1d(xs[2], n),
                      merged_1d(xs[3], n), merged(xs[4], n, a.fi), a.epsilon, a.fi);
  return {split(r[0], n, a.fi), split_1d(r[1], n), split_1d(r[2], n)};
}

}  // namespace

void register_batch_norm_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.batch_norm_inference", inference_batch);
  r.insert_or_assign("stablehlo.batch_norm_training", training_batch);
  r.insert_or_assign("stablehlo.batch_norm_grad", grad_batch);
}

}  // namespace hhlo::ad::detail
