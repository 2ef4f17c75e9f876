// Batching of convolution (JAX's _conv_general_dilated_batch_rule): the vmapped axis is folded
// into the lhs batch dimension (lhs batched), the kernel output features (kernel batched), or,
// both batched, into the feature groups (feature_group_count * n) or batch groups; the result's
// batch or feature dimension is split again and the vmapped axis moved to the front.
#include "batching.h"

namespace hhlo::ad::detail {
namespace {

int64_t int_attr(const Op& op, const char* name) {
  const Attribute* a = op.attr(name);
  if (!a) return 1;
  const auto* i = a->get_if<IntAttr>();
  if (!i) unsupported_batching(op, fmt::format("attribute '{}' is not an integer", name));
  return i->value;
}

std::vector<Batched> convolution_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  const Attribute* a = op.attr("dimension_numbers");
  const auto* dnp = a ? a->get_if<ConvDimensionNumbers>() : nullptr;
  if (!dnp) unsupported_batching(op, "no convolution dimension_numbers attribute");
  const ConvDimensionNumbers& dn = *dnp;
  int64_t fgc = int_attr(op, "feature_group_count"), bgc = int_attr(op, "batch_group_count");
  Value lhs = xs[0].value, rhs = xs[1].value;
  int64_t lb = dn.input_batch_dimension, lf = dn.input_feature_dimension;
  int64_t ro = dn.kernel_output_feature_dimension;
  int64_t ob = dn.output_batch_dimension, of = dn.output_feature_dimension;
  // Dimension indices are the per-example op's; the vmapped axis sits at 0 of a batched operand
  // (JAX's rule with bdim = 0).
  std::vector<NamedAttr> attrs = op.attrs();
  auto conv = [&](Value l, Value r, int64_t f, int64_t b) {
    set(attrs, "feature_group_count", i64_attr(f));
    set(attrs, "batch_group_count", i64_attr(b));
    // The window attributes are unchanged: the result is the per-example op's with the batch
    // and feature sizes of the new operands.
    Dims dims = op.result().dims();
    dims[ob] = l.dim(lb) / b;
    dims[of] = r.dim(ro);
    return emit(op, {l, r}, {TensorType(op.result().dtype(), dims)}, attrs)[0];
  };
  Value out;
  if (xs[0].batched && xs[1].batched) {
    Value nr = axis_into(0, ro, rhs);
    if (bgc > 1)
      out = conv(axis_into(0, lb, lhs), nr, fgc, bgc * n);
    else
      out = conv(axis_into(0, lf, lhs), nr, fgc * n, bgc);
    out = move_axis(axis_out_of(of, n, out), of, 0);
  } else if (xs[0].batched) {
    Value nl;
    if (bgc == 1) {
      nl = axis_into(0, lb, lhs);
    } else {
      nl = axis_out_of(lb + 1, bgc, lhs);  // (groups, batch / groups)
      nl = axis_into(0, lb + 1, nl);       // n into batch / groups
      nl = axis_into(lb, lb, nl);          // groups back in front
    }
    out = conv(nl, rhs, fgc, bgc);
    out = move_axis(axis_out_of(ob, n, out), ob, 0);
  } else {
    int64_t groups = fgc > 1 ? fgc : bgc;
    if (groups == 1) {
      out = conv(lhs, axis_into(0, ro, rhs), fgc, bgc);
      out = move_axis(axis_out_of(of, n, out), of, 0);
    } else {
      Value nr = axis_out_of(ro + 1, groups, rhs);  // (groups, out / groups)
      nr = axis_into(0, ro + 1, nr);                // n into out / groups
      nr = axis_into(ro, ro, nr);                   // groups back in front
      out = conv(lhs, nr, fgc, bgc);
      out = axis_out_of(of, groups, out);
      out = axis_out_of(of + 1, n, out);
      out = axis_into(of, of + 1, out);
      out = move_axis(out, of, 0);
    }
  }
  return {{out, true}};
}

}  // namespace

void register_convolution_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.convolution", convolution_batch);
}

}  // namespace hhlo::ad::detail
