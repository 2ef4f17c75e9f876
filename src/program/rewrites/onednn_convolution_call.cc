// A `stablehlo.convolution` as a call of oneDNN's convolution (onednn_calls.h): the dimension
// numbers and the window as i64 arrays.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "hhlo/onednn/kernels.h"
#include "onednn_calls.h"

namespace hhlo::detail {
namespace {

/// The i64 array attribute `name` of `op`, or `n` ones when the printer left it out (its default).
std::vector<int64_t> i64s(const Op& op, std::string_view name, size_t n) {
  const Attribute* a = op.attr(name);
  const auto* v = a ? a->get_if<I64ArrayAttr>() : nullptr;
  return v ? v->values : std::vector<int64_t>(n, 1);
}

/// The integer attribute `name` of `op`, or 1 (the group counts' default).
int64_t int_attr(const Op& op, std::string_view name) {
  const Attribute* a = op.attr(name);
  const auto* v = a ? a->get_if<IntAttr>() : nullptr;
  return v ? v->value : 1;
}

/// A convolution's window as the kernel takes it.
struct Window {
  std::vector<int64_t> strides, low, high, dilation;
  int64_t groups = 1;
};

/// Why oneDNN cannot run `op` as the spec defines it; empty when it can (then `w` is filled).
std::string unsupported(const Op& op, Window& w) {
  for (Value v : op.operands())
    if (v.dtype() != DType::f32) return fmt::format("a {} operand", dtype_name(v.dtype()));
  if (op.result(0).dtype() != DType::f32) return "a result that is not f32";
  const auto* dn = op.attr("dimension_numbers")->get_if<ConvDimensionNumbers>();
  size_t n = dn->input_spatial_dimensions.size();
  if (n < 1 || n > 3) return fmt::format("{} spatial dimensions", n);
  for (int64_t d : i64s(op, "lhs_dilation", n))
    if (d != 1) return "lhs dilation (a transposed convolution)";
  if (const Attribute* r = op.attr("window_reversal"))
    if (const auto* b = r->get_if<BoolArrayAttr>())
      for (bool x : b->values)
        if (x) return "window reversal";
  if (int_attr(op, "batch_group_count") != 1) return "batch_group_count > 1";
  w.strides = i64s(op, "window_strides", n);
  w.dilation = i64s(op, "rhs_dilation", n);
  w.groups = int_attr(op, "feature_group_count");
  const Attribute* padding = op.attr("padding");
  std::vector<int64_t> pad = padding ? padding->get_if<DenseAttr>()->array->to_vector<int64_t>()
                                     : std::vector<int64_t>(2 * n, 0);
  for (size_t i = 0; i + 1 < pad.size(); i += 2) {
    if (pad[i] < 0 || pad[i + 1] < 0) return "negative padding";
    w.low.push_back(pad[i]);
    w.high.push_back(pad[i + 1]);
  }
  return "";
}

/// [a, b, rest...] as one vector.
std::vector<int64_t> order(int64_t a, int64_t b, const std::vector<int64_t>& rest) {
  std::vector<int64_t> o = {a, b};
  o.insert(o.end(), rest.begin(), rest.end());
  return o;
}

}  // namespace

std::optional<Value> onednn_convolution_call(const Op& op, const std::vector<Value>& operands,
                                             int threads, std::string& why) {
  Window w;
  why = unsupported(op, w);
  if (!why.empty()) return std::nullopt;
  const auto& dn = *op.attr("dimension_numbers")->get_if<ConvDimensionNumbers>();
  DictAttr config;
  auto add = [&](const char* name, std::vector<int64_t> v) {
    config.entries.emplace_back(name, I64ArrayAttr{std::move(v)});
  };
  add("input_dims",
      order(dn.input_batch_dimension, dn.input_feature_dimension, dn.input_spatial_dimensions));
  add("kernel_dims", order(dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
                           dn.kernel_spatial_dimensions));
  add("output_dims",
      order(dn.output_batch_dimension, dn.output_feature_dimension, dn.output_spatial_dimensions));
  add("window_strides", w.strides);
  add("padding_low", w.low);
  add("padding_high", w.high);
  add("rhs_dilation", w.dilation);
  config.entries.emplace_back("feature_group_count", IntAttr{w.groups});
  config.entries.emplace_back("threads", IntAttr{threads});
  return onednn_kernel_call(op, operands, kOneDnnConvolutionTarget, std::move(config));
}

}  // namespace hhlo::detail
