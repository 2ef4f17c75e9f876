// Batching of gather, scatter, dynamic_slice, dynamic_update_slice and sort. gather / scatter use
// the batching-dims fields of their dimension numbers (operand_batching_dims /
// start_indices_batching_dims, input_batching_dims / scatter_indices_batching_dims) when both the
// data and the indices are batched, a window over the vmapped axis when only the data is, and an
// extra index batch dimension when only the indices are (JAX's _gather_batching_rule,
// _scatter_batching_rule). dynamic_slice / dynamic_update_slice with batched start indices
// become a gather / scatter (JAX's _dynamic_slice_batching_rule does the same).
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

void inc(std::vector<int64_t>& v) {
  for (int64_t& x : v) ++x;
}

std::vector<Batched> gather_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  const Attribute* a = op.attr("dimension_numbers");
  const auto* dn = a ? a->get_if<GatherDimensionNumbers>() : nullptr;
  if (!dn) unsupported_batching(op, "no gather dimension_numbers attribute");
  GatherDimensionNumbers d = *dn;
  std::vector<int64_t> sizes = i64s(op, "slice_sizes");
  if (xs[0].batched) {
    inc(d.collapsed_slice_dims);
    inc(d.operand_batching_dims);
    inc(d.start_index_map);
  }
  if (xs[0].batched && !xs[1].batched) {
    d.offset_dims = shifted(d.offset_dims, {0});
    sizes = prepend(n, sizes);
  } else {
    inc(d.offset_dims);
    inc(d.start_indices_batching_dims);
    d.index_vector_dim += 1;
    if (xs[0].batched) {
      d.operand_batching_dims = prepend(0, d.operand_batching_dims);
      d.start_indices_batching_dims = prepend(0, d.start_indices_batching_dims);
      sizes = prepend(1, sizes);
    }
  }
  TensorType t = infer_gather(xs[0].value.type(), xs[1].value.type(), d, sizes);
  std::vector<NamedAttr> attrs = op.attrs();
  set(attrs, "dimension_numbers", d);
  set(attrs, "slice_sizes", i64_array(sizes));
  return {{emit(op, {xs[0].value, xs[1].value}, {t}, std::move(attrs))[0], true}};
}

std::vector<Batched> scatter_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  const Attribute* a = op.attr("scatter_dimension_numbers");
  const auto* dn = a ? a->get_if<ScatterDimensionNumbers>() : nullptr;
  if (!dn) unsupported_batching(op, "no scatter_dimension_numbers attribute");
  ScatterDimensionNumbers d = *dn;
  size_t k = (xs.size() - 1) / 2;
  std::vector<Value> in;
  for (size_t i = 0; i < k; ++i) in.push_back(materialize(xs[i], n));
  in.push_back(xs[k].value);
  for (size_t i = k + 1; i < xs.size(); ++i) in.push_back(materialize(xs[i], n));
  inc(d.inserted_window_dims);
  inc(d.input_batching_dims);
  inc(d.scatter_dims_to_operand_dims);
  if (xs[k].batched) {
    inc(d.update_window_dims);
    inc(d.scatter_indices_batching_dims);
    d.index_vector_dim += 1;
    d.input_batching_dims = prepend(0, d.input_batching_dims);
    d.scatter_indices_batching_dims = prepend(0, d.scatter_indices_batching_dims);
  } else {
    d.update_window_dims = shifted(d.update_window_dims, {0});
  }
  std::vector<NamedAttr> attrs = op.attrs();
  set(attrs, "scatter_dimension_numbers", d);
  return emit_batched(op, in, n, std::move(attrs));
}

// The per-example scalar start indices xs[first..] as one [n, r] tensor (signed), each clamped
// into [0, hi[i]] when `hi` is given.
Value stacked_indices(const std::vector<Batched>& xs, size_t first, int64_t n,
                      const std::vector<int64_t>* hi) {
  std::vector<Value> cols;
  for (size_t i = first; i < xs.size(); ++i) {
    Value v = xs[i].value;
    if (v.dtype() != DType::i64) v = convert(v, DType::i64);
    if (hi) {
      Func& f = v.func();
      v = clamp(constant(f, 0, DType::i64), v, constant(f, (*hi)[i - first], DType::i64));
    }
    cols.push_back(reshape(materialize({v, xs[i].batched}, n), {n, 1}));
  }
  return cols.size() == 1 ? cols[0] : concatenate(cols, 1);
}

std::vector<int64_t> range(int64_t from, int64_t to) {
  std::vector<int64_t> v;
  for (int64_t i = from; i < to; ++i) v.push_back(i);
  return v;
}

std::vector<Batched> dynamic_slice_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<int64_t> sizes = i64s(op, "slice_sizes");
  bool idx = false;
  for (size_t i = 1; i < xs.size(); ++i) idx = idx || xs[i].batched;
  if (!idx) {
    std::vector<Value> starts = {constant(xs[0].value.func(), 0, xs[1].value.dtype())};
    for (size_t i = 1; i < xs.size(); ++i) starts.push_back(xs[i].value);
    return {{dynamic_slice(xs[0].value, starts, prepend(n, sizes)), true}};
  }
  int64_t r = op.operands()[0].rank();
  GatherDimensionNumbers d;
  d.offset_dims = range(1, r + 1);
  d.operand_batching_dims = {0};
  d.start_indices_batching_dims = {0};
  d.start_index_map = range(1, r + 1);
  d.index_vector_dim = 1;
  return {{gather(materialize(xs[0], n), stacked_indices(xs, 1, n, nullptr), d, prepend(1, sizes)),
           true}};
}

std::vector<Batched> dynamic_update_slice_batch(const Op& op, const std::vector<Batched>& xs,
                                                int64_t n) {
  Value x = materialize(xs[0], n), u = materialize(xs[1], n);
  bool idx = false;
  for (size_t i = 2; i < xs.size(); ++i) idx = idx || xs[i].batched;
  if (!idx) {
    std::vector<Value> starts = {constant(x.func(), 0, xs[2].value.dtype())};
    for (size_t i = 2; i < xs.size(); ++i) starts.push_back(xs[i].value);
    return {{dynamic_update_slice(x, u, starts), true}};
  }
  int64_t r = op.operands()[0].rank();
  std::vector<int64_t> hi;
  for (int64_t i = 0; i < r; ++i) hi.push_back(op.operands()[0].dim(i) - op.operands()[1].dim(i));
  ScatterDimensionNumbers d;
  d.update_window_dims = range(1, r + 1);
  d.input_batching_dims = {0};
  d.scatter_indices_batching_dims = {0};
  d.scatter_dims_to_operand_dims = range(1, r + 1);
  d.index_vector_dim = 1;
  Value out = scatter(
      {x}, stacked_indices(xs, 2, n, &hi), {u}, d,
      [](const std::vector<Value>& a) { return std::vector<Value>{a[1]}; }, false, true)[0];
  return {{out, true}};
}

std::vector<Batched> sort_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in;
  for (const Batched& b : xs) in.push_back(materialize(b, n));
  const Attribute* a = op.attr("dimension");
  const auto* dim = a ? a->get_if<IntAttr>() : nullptr;
  if (!dim) unsupported_batching(op, "no integer 'dimension' attribute");
  int64_t dd = dim->value < 0 ? dim->value + op.operands()[0].rank() : dim->value;
  std::vector<NamedAttr> attrs = op.attrs();
  set(attrs, "dimension", IntAttr{dd + 1, dim->type});
  return emit_batched(op, in, n, std::move(attrs));
}

}  // namespace

void register_indexing_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.gather", gather_batch);
  r.insert_or_assign("stablehlo.scatter", scatter_batch);
  r.insert_or_assign("stablehlo.dynamic_slice", dynamic_slice_batch);
  r.insert_or_assign("stablehlo.dynamic_update_slice", dynamic_update_slice_batch);
  r.insert_or_assign("stablehlo.sort", sort_batch);
}

}  // namespace hhlo::ad::detail
