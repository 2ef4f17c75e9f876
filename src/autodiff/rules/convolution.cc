// VJP of stablehlo.convolution with any dimension numbers, strides, padding, lhs/rhs dilation and
// feature/batch groups (JAX _conv_general_dilated_transpose_lhs / _rhs): each cotangent is itself
// a convolution of the result cotangent with the other operand.
#include "rules.h"

namespace hhlo::ad::detail {
namespace {

struct ConvAttrs {
  ConvDimensionNumbers dn;
  std::vector<int64_t> strides, lhs_dil, rhs_dil;
  std::vector<std::pair<int64_t, int64_t>> padding;
  int64_t fgc = 1, bgc = 1;
};

std::vector<int64_t> i64s(const Op& op, const char* name) {
  return op.attr(name)->get_if<I64ArrayAttr>()->values;
}

ConvAttrs read(const Op& op) {
  ConvAttrs a;
  a.dn = *op.attr("dimension_numbers")->get_if<ConvDimensionNumbers>();
  a.strides = i64s(op, "window_strides");
  a.lhs_dil = i64s(op, "lhs_dilation");
  a.rhs_dil = i64s(op, "rhs_dilation");
  const Array& pad = *op.attr("padding")->get_if<DenseAttr>()->array;
  auto p = pad.to_vector<int64_t>();
  for (size_t i = 0; i + 1 < p.size(); i += 2) a.padding.emplace_back(p[i], p[i + 1]);
  a.fgc = op.attr("feature_group_count")->get_if<IntAttr>()->value;
  a.bgc = op.attr("batch_group_count")->get_if<IntAttr>()->value;
  if (op.attr("window_reversal")) {
    for (bool b : op.attr("window_reversal")->get_if<BoolArrayAttr>()->values)
      if (b) unsupported(op, "window_reversal is not differentiable here");
  }
  return a;
}

int64_t dilate(int64_t s, int64_t d) { return s == 0 ? 0 : 1 + d * (s - 1); }

std::vector<int64_t> take(const Dims& d, const std::vector<int64_t>& idx) {
  std::vector<int64_t> out;
  for (int64_t i : idx) out.push_back(d[static_cast<size_t>(i)]);
  return out;
}

// Splits axis `src` of size N into (size1, N / size1) in place.
Value reshape_axis_out_of(int64_t src, int64_t size1, Value x) {
  Dims d = x.dims();
  auto s = static_cast<size_t>(src);
  int64_t n = d[s];
  d[s] = n / size1;
  d.insert(d.begin() + src, size1);
  return reshape(x, d);
}

// Moves axis `src` next to (before) axis `dst` (numbered after src's removal) and merges them.
Value reshape_axis_into(int64_t src, int64_t dst, Value x) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (i != src) perm.push_back(i);
  perm.insert(perm.begin() + dst, src);
  Dims d;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (i != src) d.push_back(x.dim(i));
  d[static_cast<size_t>(dst)] *= x.dim(src);
  return reshape(transpose(x, perm), d);
}

std::vector<std::pair<int64_t, int64_t>> vjp_lhs_padding(
    const std::vector<int64_t>& in, const std::vector<int64_t>& win,
    const std::vector<int64_t>& strides, const std::vector<int64_t>& out,
    const std::vector<std::pair<int64_t, int64_t>>& padding, const std::vector<int64_t>& lhs_dil,
    const std::vector<int64_t>& rhs_dil) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t ld = dilate(in[i], lhs_dil[i]), rd = dilate(win[i], rhs_dil[i]),
            od = dilate(out[i], strides[i]);
    int64_t before = rd - padding[i].first - 1;
    int64_t after = ld + rd - 1 - od - before;
    r.emplace_back(before, after);
  }
  return r;
}

std::vector<std::pair<int64_t, int64_t>> vjp_rhs_padding(
    const std::vector<int64_t>& in, const std::vector<int64_t>& win,
    const std::vector<int64_t>& strides, const std::vector<int64_t>& out,
    const std::vector<std::pair<int64_t, int64_t>>& padding, const std::vector<int64_t>& lhs_dil,
    const std::vector<int64_t>& rhs_dil) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t ld = dilate(in[i], lhs_dil[i]), rd = dilate(win[i], rhs_dil[i]),
            od = dilate(out[i], strides[i]);
    int64_t lo = padding[i].first;
    int64_t hi = (od - ld) + (rd - lo - 1);
    r.emplace_back(lo, hi);
  }
  return r;
}

Value transpose_lhs(Value g, Value lhs, Value rhs, const ConvAttrs& a) {
  const auto& dn = a.dn;
  int64_t fgc = a.fgc;
  if (fgc > 1) {
    rhs = reshape_axis_out_of(dn.kernel_output_feature_dimension, fgc, rhs);
    rhs = reshape_axis_into(dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
                            rhs);
  } else if (a.bgc > 1) {
    rhs = reshape_axis_out_of(dn.kernel_output_feature_dimension, a.bgc, rhs);
    rhs = reshape_axis_into(dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
                            rhs);
    fgc = a.bgc;
  }
  ConvDimensionNumbers t;
  t.input_batch_dimension = dn.output_batch_dimension;
  t.input_feature_dimension = dn.output_feature_dimension;
  t.input_spatial_dimensions = dn.output_spatial_dimensions;
  t.kernel_output_feature_dimension = dn.kernel_input_feature_dimension;
  t.kernel_input_feature_dimension = dn.kernel_output_feature_dimension;
  t.kernel_spatial_dimensions = dn.kernel_spatial_dimensions;
  t.output_batch_dimension = dn.input_batch_dimension;
  t.output_feature_dimension = dn.input_feature_dimension;
  t.output_spatial_dimensions = dn.input_spatial_dimensions;
  auto padding = vjp_lhs_padding(
      take(lhs.dims(), dn.input_spatial_dimensions), take(rhs.dims(), dn.kernel_spatial_dimensions),
      a.strides, take(g.dims(), dn.output_spatial_dimensions), a.padding, a.lhs_dil, a.rhs_dil);
  Value rev = reverse(rhs, dn.kernel_spatial_dimensions);
  ConvOptions o;
  o.window_strides = a.lhs_dil;
  o.padding = padding;
  o.lhs_dilation = a.strides;
  o.rhs_dilation = a.rhs_dil;
  o.feature_group_count = fgc;
  Value out = convolution(g, rev, t, o);
  if (a.bgc > 1) {
    out = reshape_axis_out_of(dn.input_feature_dimension, a.bgc, out);
    out = reshape_axis_into(dn.input_feature_dimension, dn.input_batch_dimension, out);
  }
  return out;
}

Value transpose_rhs(Value g, Value lhs, Value rhs, const ConvAttrs& a) {
  const auto& dn = a.dn;
  int64_t fgc = a.fgc, bgc = a.bgc;
  if (bgc > 1) {
    fgc = bgc;
    bgc = 1;
  } else if (fgc > 1) {
    bgc = fgc;
    fgc = 1;
  }
  ConvDimensionNumbers t;
  t.input_batch_dimension = dn.input_feature_dimension;
  t.input_feature_dimension = dn.input_batch_dimension;
  t.input_spatial_dimensions = dn.input_spatial_dimensions;
  t.kernel_output_feature_dimension = dn.output_feature_dimension;
  t.kernel_input_feature_dimension = dn.output_batch_dimension;
  t.kernel_spatial_dimensions = dn.output_spatial_dimensions;
  t.output_batch_dimension = dn.kernel_input_feature_dimension;
  t.output_feature_dimension = dn.kernel_output_feature_dimension;
  t.output_spatial_dimensions = dn.kernel_spatial_dimensions;
  auto padding = vjp_rhs_padding(
      take(lhs.dims(), dn.input_spatial_dimensions), take(rhs.dims(), dn.kernel_spatial_dimensions),
      a.strides, take(g.dims(), dn.output_spatial_dimensions), a.padding, a.lhs_dil, a.rhs_dil);
  ConvOptions o;
  o.window_strides = a.rhs_dil;
  o.padding = padding;
  o.lhs_dilation = a.lhs_dil;
  o.rhs_dilation = a.strides;
  o.feature_group_count = fgc;
  o.batch_group_count = bgc;
  return convolution(lhs, g, t, o);
}

}  // namespace

void register_convolution_rules(Registry& r) {
  r["stablehlo.convolution"] = [](const Op& op, const std::vector<Cotangent>& cts) {
    std::vector<Cotangent> out(2);
    if (!cts[0]) return out;
    ConvAttrs a = read(op);
    if (a.fgc > 1 && a.bgc > 1)
      unsupported(op, "feature_group_count and batch_group_count both > 1");
    Value lhs = op.operands()[0], rhs = op.operands()[1], g = *cts[0];
    if (real_tangent(op, lhs) && needs_cotangent(0))
      out[0] = cast_to(transpose_lhs(cast_to(g, rhs.dtype()), lhs, rhs, a), lhs.dtype());
    if (real_tangent(op, rhs) && needs_cotangent(1))
      out[1] = cast_to(transpose_rhs(cast_to(g, lhs.dtype()), lhs, rhs, a), rhs.dtype());
    return out;
  };
}

// JVP: bilinear in (lhs, rhs), one convolution per operand with the same attributes.
void register_convolution_jvps(JvpRegistry& r) { r["stablehlo.convolution"] = bilinear_jvp(); }

}  // namespace hhlo::ad::detail
