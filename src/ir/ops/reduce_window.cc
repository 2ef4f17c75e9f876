// reduce_window and select_and_scatter: windowed reductions (pooling and its gradient).
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using Padding = std::vector<std::pair<int64_t, int64_t>>;

std::vector<int64_t> or_ones(std::span<const int64_t> v, size_t n) {
  return v.empty() ? std::vector<int64_t>(n, 1) : std::vector<int64_t>(v.begin(), v.end());
}

void check_list(std::string_view op, std::string_view cs, std::string_view cp,
                std::string_view what, const std::vector<int64_t>& v, size_t rank) {
  if (v.size() != rank)
    detail::fail(op, cs, "{} {} must have rank = {} entries", what, detail::list(v), rank);
  for (int64_t x : v)
    if (x <= 0) detail::fail(op, cp, "{} {} must be positive", what, detail::list(v));
}

Array padding_array(std::span<const std::pair<int64_t, int64_t>> padding, size_t rank) {
  Array pad(DType::i64, {static_cast<int64_t>(rank), 2});
  auto* p = static_cast<int64_t*>(pad.data());
  for (size_t i = 0; i < padding.size(); ++i) {
    p[2 * i] = padding[i].first;
    p[2 * i + 1] = padding[i].second;
  }
  return pad;
}

}  // namespace

std::vector<TensorType> infer_reduce_window(std::span<const TensorType> inputs,
                                            std::span<const TensorType> inits,
                                            std::span<const int64_t> window_dimensions,
                                            std::span<const int64_t> window_strides,
                                            std::span<const int64_t> base_dilations,
                                            std::span<const int64_t> window_dilations,
                                            std::span<const std::pair<int64_t, int64_t>> padding) {
  constexpr std::string_view op = "reduce_window";
  // (C1)
  if (inputs.empty() || inputs.size() != inits.size())
    detail::fail(op, "C1", "needs N > 0 inputs and N init_values; got {} inputs, {} init_values",
                 inputs.size(), inits.size());
  // (C2), (C3)
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!detail::dims_compatible(inputs[i].dims, inputs[0].dims))
      detail::fail(op, "C2", "input {} {} and input 0 {} differ in shape", i, inputs[i].to_string(),
                   inputs[0].to_string());
    if (inits[i].rank() != 0 || inits[i].dtype != inputs[i].dtype)
      detail::fail(op, "C3", "init_value {} {} must be a scalar of input {}'s element type", i,
                   inits[i].to_string(), i);
  }
  size_t r = static_cast<size_t>(inputs[0].rank());
  std::vector<int64_t> wd(window_dimensions.begin(), window_dimensions.end());
  auto ws = or_ones(window_strides, r), bd = or_ones(base_dilations, r),
       wdl = or_ones(window_dilations, r);
  // (C4)-(C11)
  check_list(op, "C4", "C5", "window_dimensions", wd, r);
  check_list(op, "C6", "C7", "window_strides", ws, r);
  check_list(op, "C8", "C9", "base_dilations", bd, r);
  check_list(op, "C10", "C11", "window_dilations", wdl, r);
  // (C12)
  if (!padding.empty() && padding.size() != r)
    detail::fail(op, "C12", "padding has {} (low, high) pairs, expected rank = {}", padding.size(),
                 r);
  // (C15)
  Dims dims(r);
  for (size_t i = 0; i < r; ++i)
    dims[i] = detail::num_windows(op, "C15", inputs[0].dims[i], wd[i], ws[i], bd[i], wdl[i],
                                  padding.empty() ? 0 : padding[i].first,
                                  padding.empty() ? 0 : padding[i].second);
  std::vector<TensorType> out;
  for (const TensorType& t : inputs) out.push_back({t.dtype, dims});
  return out;
}

TensorType infer_select_and_scatter(const TensorType& operand, const TensorType& source,
                                    const TensorType& init, std::span<const int64_t> window_dims,
                                    std::span<const int64_t> window_strides,
                                    std::span<const std::pair<int64_t, int64_t>> padding) {
  constexpr std::string_view op = "select_and_scatter";
  // (C1)
  if (source.dtype != operand.dtype)
    detail::fail(op, "C1", "source {} and operand {} differ in element type", source.to_string(),
                 operand.to_string());
  // (C3)
  if (init.rank() != 0 || init.dtype != operand.dtype)
    detail::fail(op, "C3", "init_value {} must be a scalar of operand {}'s element type",
                 init.to_string(), operand.to_string());
  size_t r = static_cast<size_t>(operand.rank());
  std::vector<int64_t> wd(window_dims.begin(), window_dims.end());
  auto ws = or_ones(window_strides, r);
  // (C4)-(C7)
  check_list(op, "C4", "C5", "window_dimensions", wd, r);
  check_list(op, "C6", "C7", "window_strides", ws, r);
  // (C8)
  if (!padding.empty() && padding.size() != r)
    detail::fail(op, "C8", "padding has {} (low, high) pairs, expected rank = {}", padding.size(),
                 r);
  // (C2)
  Dims windows(r);
  for (size_t i = 0; i < r; ++i)
    windows[i] = detail::num_windows(op, "C2", operand.dims[i], wd[i], ws[i], 1, 1,
                                     padding.empty() ? 0 : padding[i].first,
                                     padding.empty() ? 0 : padding[i].second);
  if (!detail::dims_compatible(source.dims, windows))
    detail::fail(op, "C2", "source {} must have the window-count shape [{}] of operand {}",
                 source.to_string(), dims_to_string(windows), operand.to_string());
  return operand;
}

std::vector<Value> reduce_window(const std::vector<Value>& inputs, const std::vector<Value>& inits,
                                 std::vector<int64_t> window_dimensions, const WindowOptions& o,
                                 const RegionBody& body, Loc loc) {
  std::vector<Value> all = inputs;
  all.insert(all.end(), inits.begin(), inits.end());
  Func& f = detail::func_of("reduce_window", all);
  auto results =
      infer_reduce_window(detail::types_of(inputs), detail::types_of(inits), window_dimensions,
                          o.window_strides, o.base_dilations, o.window_dilations, o.padding);
  std::vector<TensorType> scalars = detail::types_of(inits);
  std::vector<TensorType> args = scalars;
  args.insert(args.end(), scalars.begin(), scalars.end());
  Location l = Location::from(loc);
  auto region = f.build_region("reduce_window", args, body, l);
  // (C13)
  check_region_results("reduce_window", "C13", region->returned_types(), scalars);
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(region));
  size_t r = window_dimensions.size();
  std::vector<NamedAttr> attrs = {{"window_dimensions", i64_array(std::move(window_dimensions))},
                                  {"window_strides", i64_array(or_ones(o.window_strides, r))},
                                  {"base_dilations", i64_array(or_ones(o.base_dilations, r))},
                                  {"window_dilations", i64_array(or_ones(o.window_dilations, r))},
                                  {"padding", dense_attr(padding_array(o.padding, r))}};
  return f.append(
      {"stablehlo.reduce_window", all, results, std::move(attrs), std::move(regions), l});
}

Value select_and_scatter(Value operand, Value source, Value init,
                         std::vector<int64_t> window_dimensions,
                         std::vector<int64_t> window_strides,
                         std::vector<std::pair<int64_t, int64_t>> padding,
                         const std::function<Value(Value, Value)>& select,
                         const std::function<Value(Value, Value)>& scatter, Loc loc) {
  std::vector<Value> all = {operand, source, init};
  Func& f = detail::func_of("select_and_scatter", all);
  TensorType t = infer_select_and_scatter(operand.type(), source.type(), init.type(),
                                          window_dimensions, window_strides, padding);
  TensorType s{operand.dtype(), {}}, p{DType::pred, {}};
  Location l = Location::from(loc);
  auto wrap = [](const std::function<Value(Value, Value)>& fn) {
    return [&fn](const std::vector<Value>& a) { return std::vector<Value>{fn(a[0], a[1])}; };
  };
  auto sel = f.build_region("select_and_scatter", {s, s}, wrap(select), l);
  // (C9)
  check_region_results("select_and_scatter", "C9", sel->returned_types(), std::span(&p, 1));
  auto sca = f.build_region("select_and_scatter", {s, s}, wrap(scatter), l);
  // (C10)
  check_region_results("select_and_scatter", "C10", sca->returned_types(), std::span(&s, 1));
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(sel));
  regions.push_back(std::move(sca));
  size_t r = window_dimensions.size();
  std::vector<NamedAttr> attrs = {{"window_dimensions", i64_array(std::move(window_dimensions))},
                                  {"window_strides", i64_array(or_ones(window_strides, r))},
                                  {"padding", dense_attr(padding_array(padding, r))}};
  return f.append(
      {"stablehlo.select_and_scatter", all, {t}, std::move(attrs), std::move(regions), l})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_reduce_window_op(const detail::OpInfo& op) {
  const std::vector<TensorType>& in = op.operands;
  size_t nin = in.size() / 2;
  std::vector<TensorType> inputs(in.begin(), in.begin() + static_cast<long>(nin)),
      inits(in.begin() + static_cast<long>(nin), in.end());
  auto out =
      infer_reduce_window(inputs, inits, op.i64s("window_dimensions"), op.i64s("window_strides"),
                          op.i64s("base_dilations"), op.i64s("window_dilations"), op.padding());
  auto sc = detail::scalar_types(inits), args = sc;
  args.insert(args.end(), sc.begin(), sc.end());
  op.region_sig(0, args, sc, "C13");
  return out;
}

std::vector<TensorType> infer_select_and_scatter_op(const detail::OpInfo& op) {
  op.need(3);
  const std::vector<TensorType>& in = op.operands;
  auto out = infer_select_and_scatter(in[0], in[1], in[2], op.i64s("window_dimensions"),
                                      op.i64s("window_strides"), op.padding());
  TensorType e{in[0].dtype, {}};
  op.region_sig(0, {e, e}, {TensorType{DType::pred, {}}}, "C9");
  op.region_sig(1, {e, e}, {e}, "C10");
  return {out};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.reduce_window", infer_reduce_window_op},
    {"stablehlo.select_and_scatter", infer_select_and_scatter_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::reduce_window_ops() { return kOps; }

}  // namespace hhlo
