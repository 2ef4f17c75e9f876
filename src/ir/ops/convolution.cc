// convolution: general N-d convolution with groups and dilations.
#include <algorithm>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

std::vector<int64_t> or_ones(const std::vector<int64_t>& v, size_t n) {
  return v.empty() ? std::vector<int64_t>(n, 1) : v;
}

void check_layout(std::string_view c, std::string_view what, int64_t a, int64_t b,
                  const std::vector<int64_t>& spatial, int64_t n) {
  std::vector<int64_t> all = {a, b};
  all.insert(all.end(), spatial.begin(), spatial.end());
  detail::check_unique("convolution", c, what, all);
  detail::check_in_range("convolution", c, what, all, n);
}

}  // namespace

TensorType infer_convolution(const TensorType& lhs, const TensorType& rhs,
                             const ConvDimensionNumbers& d, const ConvOptions& o) {
  constexpr std::string_view op = "convolution";
  // (C1)
  int64_t n = lhs.rank();
  if (rhs.rank() != n || n < 2)
    detail::fail(op, "C1", "lhs {} and rhs {} must have the same rank >= 2", lhs.to_string(),
                 rhs.to_string());
  auto ns = static_cast<size_t>(n - 2);
  auto strides = or_ones(o.window_strides, ns);
  auto lhs_dil = or_ones(o.lhs_dilation, ns), rhs_dil = or_ones(o.rhs_dilation, ns);
  auto padding =
      o.padding.empty() ? std::vector<std::pair<int64_t, int64_t>>(ns, {0, 0}) : o.padding;
  auto check_list = [&](std::string_view cs, std::string_view cp, std::string_view what,
                        const std::vector<int64_t>& v) {
    if (v.size() != ns)
      detail::fail(op, cs, "{} {} must have rank - 2 = {} entries", what, detail::list(v), ns);
    for (int64_t x : v)
      if (x <= 0) detail::fail(op, cp, "{} {} must be positive", what, detail::list(v));
  };
  // (C2)-(C8)
  check_list("C2", "C3", "window_strides", strides);
  if (padding.size() != ns)
    detail::fail(op, "C4", "padding has {} (low, high) pairs, expected rank - 2 = {}",
                 padding.size(), ns);
  check_list("C5", "C6", "lhs_dilation", lhs_dil);
  check_list("C7", "C8", "rhs_dilation", rhs_dil);
  // (C9)
  if (!o.window_reversal.empty() && o.window_reversal.size() != ns)
    detail::fail(op, "C9", "window_reversal has {} entries, expected {}", o.window_reversal.size(),
                 ns);
  // (C21)-(C23)
  if (o.feature_group_count <= 0)
    detail::fail(op, "C21", "feature_group_count {} must be positive", o.feature_group_count);
  if (o.batch_group_count <= 0)
    detail::fail(op, "C22", "batch_group_count {} must be positive", o.batch_group_count);
  if (o.feature_group_count != 1 && o.batch_group_count != 1)
    detail::fail(op, "C23", "feature_group_count {} and batch_group_count {} cannot both exceed 1",
                 o.feature_group_count, o.batch_group_count);
  // (C12), (C13), (C17)-(C20)
  if (d.input_spatial_dimensions.size() != ns)
    detail::fail(op, "C12", "input_spatial_dimensions {} must have {} entries",
                 detail::list(d.input_spatial_dimensions), ns);
  check_layout("C13", "input dimensions", d.input_batch_dimension, d.input_feature_dimension,
               d.input_spatial_dimensions, n);
  if (d.kernel_spatial_dimensions.size() != ns)
    detail::fail(op, "C17", "kernel_spatial_dimensions {} must have {} entries",
                 detail::list(d.kernel_spatial_dimensions), ns);
  check_layout("C18", "kernel dimensions", d.kernel_input_feature_dimension,
               d.kernel_output_feature_dimension, d.kernel_spatial_dimensions, n);
  if (d.output_spatial_dimensions.size() != ns)
    detail::fail(op, "C19", "output_spatial_dimensions {} must have {} entries",
                 detail::list(d.output_spatial_dimensions), ns);
  check_layout("C20", "output dimensions", d.output_batch_dimension, d.output_feature_dimension,
               d.output_spatial_dimensions, n);
  auto L = [&](int64_t i) { return lhs.dims[static_cast<size_t>(i)]; };
  auto R = [&](int64_t i) { return rhs.dims[static_cast<size_t>(i)]; };
  int64_t batch = L(d.input_batch_dimension), in_feat = L(d.input_feature_dimension);
  int64_t k_in = R(d.kernel_input_feature_dimension), k_out = R(d.kernel_output_feature_dimension);
  // (C10), (C11)
  if (batch != kDynamic && batch % o.batch_group_count != 0)
    detail::fail(op, "C10", "input batch size {} is not divisible by batch_group_count {}", batch,
                 o.batch_group_count);
  if (in_feat != kDynamic && in_feat % o.feature_group_count != 0)
    detail::fail(op, "C11", "input feature size {} is not divisible by feature_group_count {}",
                 in_feat, o.feature_group_count);
  // (C14)
  if (in_feat != kDynamic && k_in != kDynamic && k_in != in_feat / o.feature_group_count)
    detail::fail(op, "C14",
                 "kernel input feature size {} must be input features {} / "
                 "feature_group_count {}; lhs {}, rhs {}",
                 k_in, in_feat, o.feature_group_count, lhs.to_string(), rhs.to_string());
  // (C15), (C16)
  if (k_out != kDynamic && k_out % o.batch_group_count != 0)
    detail::fail(op, "C15",
                 "kernel output feature size {} is not divisible by batch_group_count {}", k_out,
                 o.batch_group_count);
  if (k_out != kDynamic && k_out % o.feature_group_count != 0)
    detail::fail(op, "C16",
                 "kernel output feature size {} is not divisible by "
                 "feature_group_count {}",
                 k_out, o.feature_group_count);
  // (C24)
  if (!o.precision_config.empty() && o.precision_config.size() != 2)
    detail::fail(op, "C24", "precision_config has {} entries; it needs 0 or 2",
                 o.precision_config.size());
  if (lhs.dtype != rhs.dtype && !o.preferred_element_type)
    detail::fail(op, "C27", "element types differ: lhs {}, rhs {}", lhs.to_string(),
                 rhs.to_string());
  // (C25)
  Dims out(static_cast<size_t>(n));
  out[static_cast<size_t>(d.output_batch_dimension)] =
      batch == kDynamic ? kDynamic : batch / o.batch_group_count;
  out[static_cast<size_t>(d.output_feature_dimension)] = k_out;
  for (size_t i = 0; i < ns; ++i)
    out[static_cast<size_t>(d.output_spatial_dimensions[i])] = detail::num_windows(
        op, "C25", L(d.input_spatial_dimensions[i]), R(d.kernel_spatial_dimensions[i]), strides[i],
        lhs_dil[i], rhs_dil[i], padding[i].first, padding[i].second);
  return TensorType{o.preferred_element_type.value_or(lhs.dtype), out};
}

Value convolution(Value lhs, Value rhs, const ConvDimensionNumbers& dims, const ConvOptions& o,
                  Loc loc) {
  Value ops[] = {lhs, rhs};
  Func& f = detail::func_of("convolution", ops);
  TensorType t = infer_convolution(lhs.type(), rhs.type(), dims, o);
  auto ns = static_cast<size_t>(lhs.rank() - 2);
  Array pad(DType::i64, {static_cast<int64_t>(ns), 2});
  auto* p = static_cast<int64_t*>(pad.data());
  for (size_t i = 0; i < o.padding.size(); ++i) {
    p[2 * i] = o.padding[i].first;
    p[2 * i + 1] = o.padding[i].second;
  }
  std::vector<NamedAttr> attrs = {{"dimension_numbers", dims},
                                  {"window_strides", i64_array(or_ones(o.window_strides, ns))},
                                  {"padding", dense_attr(std::move(pad))},
                                  {"lhs_dilation", i64_array(or_ones(o.lhs_dilation, ns))},
                                  {"rhs_dilation", i64_array(or_ones(o.rhs_dilation, ns))},
                                  {"feature_group_count", i64_attr(o.feature_group_count)},
                                  {"batch_group_count", i64_attr(o.batch_group_count)}};
  if (!o.window_reversal.empty())
    attrs.push_back({"window_reversal", BoolArrayAttr{o.window_reversal}});
  if (!o.precision_config.empty()) {
    ArrayAttr pc;
    for (Precision x : o.precision_config) pc.values.push_back(x);
    attrs.push_back({"precision_config", std::move(pc)});
  }
  return f.append(
      {"stablehlo.convolution", {lhs, rhs}, {t}, std::move(attrs), {}, Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rule on a recorded op.
namespace {

std::vector<TensorType> infer_convolution_op(const detail::OpInfo& op) {
  op.need(2);
  const std::vector<TensorType>& in = op.operands;
  ConvOptions o;
  o.window_strides = op.i64s("window_strides");
  o.padding = op.padding();
  o.lhs_dilation = op.i64s("lhs_dilation");
  o.rhs_dilation = op.i64s("rhs_dilation");
  if (const Attribute* wr = op.attr("window_reversal"); wr && wr->get_if<BoolArrayAttr>())
    o.window_reversal = wr->get_if<BoolArrayAttr>()->values;
  o.feature_group_count = op.integer("feature_group_count");
  o.batch_group_count = op.integer("batch_group_count");
  if (const Attribute* pc = op.attr("precision_config"); pc && pc->get_if<ArrayAttr>())
    o.precision_config.resize(pc->get_if<ArrayAttr>()->values.size());
  if (op.result_dtype() != in[0].dtype || in[0].dtype != in[1].dtype)  // as for dot_general
    o.preferred_element_type = op.result_dtype();
  return {infer_convolution(in[0], in[1], op.get<ConvDimensionNumbers>("dimension_numbers"), o)};
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.convolution", infer_convolution_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::convolution_ops() { return kOps; }

}  // namespace hhlo
