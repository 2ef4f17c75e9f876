// Batching of dot_general (JAX's _dot_general_batch_rule): both operands batched -> the vmapped
// axis becomes a new leading batch dimension (result dim 0); one operand batched -> it is a free
// dimension of that operand, moved to the front of the result afterwards.
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

std::vector<Batched> dot_general_batch(const Op& op, const std::vector<Batched>& xs, int64_t) {
  const Attribute* a = op.attr("dot_dimension_numbers");
  const auto* dn = a ? a->get_if<DotDimensionNumbers>() : nullptr;
  if (!dn) unsupported_batching(op, "no dot_dimension_numbers attribute");
  DotDimensionNumbers d = *dn;
  auto shift = [](std::vector<int64_t>& v) {
    for (int64_t& x : v) ++x;
  };
  int64_t to_front = 0;  // result position of the vmapped axis
  if (xs[0].batched) {
    shift(d.lhs_batching_dimensions);
    shift(d.lhs_contracting_dimensions);
  }
  if (xs[1].batched) {
    shift(d.rhs_batching_dimensions);
    shift(d.rhs_contracting_dimensions);
  }
  int64_t nb = static_cast<int64_t>(dn->lhs_batching_dimensions.size());
  if (xs[0].batched && xs[1].batched) {
    d.lhs_batching_dimensions.insert(d.lhs_batching_dimensions.begin(), 0);
    d.rhs_batching_dimensions.insert(d.rhs_batching_dimensions.begin(), 0);
  } else if (xs[0].batched) {
    to_front = nb;  // the first lhs free dimension
  } else {
    int64_t lhs_free =
        op.operands()[0].rank() - nb - static_cast<int64_t>(dn->lhs_contracting_dimensions.size());
    to_front = nb + lhs_free;  // the first rhs free dimension
  }
  const Attribute* pc = op.attr("precision_config");
  size_t npc = 0;
  if (pc)
    if (const auto* arr = pc->get_if<ArrayAttr>()) npc = arr->values.size();
  TensorType t =
      infer_dot_general(xs[0].value.type(), xs[1].value.type(), d, npc, op.result().dtype());
  std::vector<NamedAttr> attrs = op.attrs();
  set(attrs, "dot_dimension_numbers", d);
  Value r = emit(op, {xs[0].value, xs[1].value}, {t}, std::move(attrs))[0];
  return {{move_axis(r, to_front, 0), true}};
}

}  // namespace

void register_dot_general_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.dot_general", dot_general_batch);
}

}  // namespace hhlo::ad::detail
