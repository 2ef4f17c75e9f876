// Batching of elementwise ops (JAX's broadcast_batcher): the vmapped axis goes in front of every
// operand (unbatched ones are broadcast), the op is re-emitted on the batched shapes. Covers the
// unary, binary and ternary (fma) tables, compare, select and clamp (scalar predicate / bounds stay
// scalar when unbatched, are broadcast when batched), convert, bitcast_convert, reduce_precision,
// map and optimization_barrier (per operand).
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

std::vector<Batched> elementwise_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  size_t full = 0;
  for (Value x : op.operands()) full = std::max(full, static_cast<size_t>(x.rank()));
  Dims full_dims;
  for (Value x : op.operands())
    if (static_cast<size_t>(x.rank()) == full) full_dims = x.dims();
  std::vector<Value> in;
  for (size_t i = 0; i < xs.size(); ++i) {
    Value x = op.operands()[i];
    if (static_cast<size_t>(x.rank()) == full) {
      in.push_back(materialize(xs[i], n));
    } else if (xs[i].batched) {  // a scalar predicate / bound of a batched op: broadcast fully
      in.push_back(broadcast_in_dim(xs[i].value,
                                    batched_type(TensorType(x.dtype(), full_dims), n).dims, {0}));
    } else {
      in.push_back(xs[i].value);
    }
  }
  std::vector<TensorType> types;
  for (Value r : op.results()) types.push_back(batched_type(r.type(), n));
  std::vector<NamedAttr> attrs = op.attrs();
  if (op.name() == "stablehlo.map") {
    std::vector<int64_t> dims;
    for (size_t i = 0; i <= full; ++i) dims.push_back(static_cast<int64_t>(i));
    set(attrs, "dimensions", i64_array(dims));
  }
  std::vector<Batched> out;
  for (Value v : emit(op, in, types, std::move(attrs))) out.push_back({v, true});
  return out;
}

// optimization_barrier: operands of any shapes, each result follows its operand.
std::vector<Batched> barrier_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in;
  std::vector<TensorType> types;
  for (size_t i = 0; i < xs.size(); ++i) {
    in.push_back(xs[i].value);
    types.push_back(xs[i].batched ? batched_type(op.result(i).type(), n) : op.result(i).type());
  }
  std::vector<Value> r = emit(op, in, types, op.attrs());
  std::vector<Batched> out;
  for (size_t i = 0; i < r.size(); ++i) out.push_back({r[i], xs[i].batched});
  return out;
}

}  // namespace

void register_elementwise_batching(BatchRegistry& r) {
  for (std::string_view name : supported_ops()) {
    if (!name.starts_with("stablehlo.")) continue;
    std::string_view bare = name.substr(10);
    if (is_elementwise(bare, 1) || is_elementwise(bare, 2) || is_elementwise(bare, 3))
      r.insert_or_assign(std::string(name), elementwise_batch);
  }
  for (const char* name :
       {"stablehlo.compare", "stablehlo.select", "stablehlo.clamp", "stablehlo.convert",
        "stablehlo.bitcast_convert", "stablehlo.reduce_precision", "stablehlo.map"})
    r.insert_or_assign(name, elementwise_batch);
  r.insert_or_assign("stablehlo.optimization_barrier", barrier_batch);
}

}  // namespace hhlo::ad::detail
