// Batching of reduce_window and select_and_scatter (JAX's _reduce_window_batch_rule,
// _select_and_scatter_batch_rule): a window of size 1, stride 1, no padding or dilation over the
// vmapped axis; per-example init values are not supported (as in JAX).
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

// The `padding` attribute (rank x 2, i64) with a (0, 0) row in front.
Attribute padding_with_front(const Op& op, int64_t rank) {
  Array p(DType::i64, {rank + 1, 2});
  auto* d = static_cast<int64_t*>(p.data());
  for (int64_t i = 0; i < 2 * (rank + 1); ++i) d[i] = 0;
  if (const Attribute* a = op.attr("padding")) {
    const auto* dense = a->get_if<DenseAttr>();
    if (!dense) unsupported_batching(op, "the padding attribute is not a dense array");
    std::vector<int64_t> v = dense->array->to_vector<int64_t>();
    for (size_t i = 0; i < v.size(); ++i) d[2 + i] = v[i];
  }
  return dense_attr(std::move(p));
}

std::vector<NamedAttr> window_attrs(const Op& op, int64_t rank, bool dilations) {
  std::vector<NamedAttr> attrs = op.attrs();
  std::vector<int64_t> ones(rank, 1);
  set(attrs, "window_dimensions", i64_array(prepend(1, i64s(op, "window_dimensions"))));
  set(attrs, "window_strides", i64_array(prepend(1, i64s(op, "window_strides", ones))));
  if (dilations) {
    set(attrs, "base_dilations", i64_array(prepend(1, i64s(op, "base_dilations", ones))));
    set(attrs, "window_dilations", i64_array(prepend(1, i64s(op, "window_dilations", ones))));
  }
  set(attrs, "padding", padding_with_front(op, rank));
  return attrs;
}

std::vector<Batched> reduce_window_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in = inputs_and_shared_inits(op, xs, n);
  return emit_batched(op, in, n, window_attrs(op, op.operands()[0].rank(), true));
}

std::vector<Batched> select_and_scatter_batch(const Op& op, const std::vector<Batched>& xs,
                                              int64_t n) {
  if (xs[2].batched)
    unsupported_batching(op, "a per-example init value is not supported (JAX neither)");
  std::vector<Value> in = {materialize(xs[0], n), materialize(xs[1], n), xs[2].value};
  Value r = emit(op, in, {batched_type(op.result().type(), n)},
                 window_attrs(op, op.operands()[0].rank(), false))[0];
  return {{r, true}};
}

}  // namespace

void register_reduce_window_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.reduce_window", reduce_window_batch);
  r.insert_or_assign("stablehlo.select_and_scatter", select_and_scatter_batch);
}

}  // namespace hhlo::ad::detail
