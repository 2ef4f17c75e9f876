// Batching of reduce (JAX's _reduce_batch_rule): inputs batched at dimension 0, reduced
// dimensions shifted by one; per-example init values are not supported (as in JAX).
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

std::vector<Batched> reduce_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in = inputs_and_shared_inits(op, xs, n);
  std::vector<NamedAttr> attrs = op.attrs();
  set(attrs, "dimensions", i64_array(shifted(i64s(op, "dimensions"))));
  return emit_batched(op, in, n, std::move(attrs));
}

}  // namespace

void register_reduce_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.reduce", reduce_batch);
}

}  // namespace hhlo::ad::detail
