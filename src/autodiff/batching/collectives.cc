// Batching of the collectives (JAX's batchers of psum, all_gather, psum_scatter, all_to_all and
// ppermute when the vmapped axis is not a collective axis): the vmapped axis goes in front of
// every operand, the dimension attributes shift by one, the process groups are unchanged.
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

int64_t int_of(const Op& op, std::string_view name) {
  const Attribute* a = op.attr(name);
  const IntAttr* i = a ? a->get_if<IntAttr>() : nullptr;
  if (!i) unsupported_batching(op, fmt::format("attribute '{}' is missing", name));
  return i->value;
}

std::vector<Batched> collective_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in;
  for (const Batched& x : xs) in.push_back(materialize(x, n));
  std::vector<NamedAttr> attrs = op.attrs();
  for (const char* name :
       {"all_gather_dim", "scatter_dimension", "split_dimension", "concat_dimension"})
    if (op.attr(name)) set(attrs, name, i64_attr(int_of(op, name) + 1));
  return emit_batched(op, in, n, std::move(attrs));
}

}  // namespace

void register_collectives_batching(BatchRegistry& r) {
  for (const char* name :
       {"stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter",
        "stablehlo.all_to_all", "stablehlo.collective_permute", "stablehlo.collective_broadcast"})
    r.insert_or_assign(name, collective_batch);
}

}  // namespace hhlo::ad::detail
