// Result types of one op from its operand types and attributes: the dispatch from op names to the
// shape rules of hhlo/ir/infer.h, shared by the verifier and shape refinement (internal to src/ir).
#include "infer_op.h"

#include <fmt/format.h>

#include "hhlo/ir/infer.h"
#include "hhlo/ir/ops.h"
#include "infer_util.h"
#include "op_descriptor.h"

namespace hhlo::detail {

void fail_struct(const std::string& what) { throw OpStructureError(what); }

void OpInfo::missing(std::string_view n) {
  fail_struct(fmt::format("missing or mistyped attribute '{}'", n));
}

const Attribute* OpInfo::attr(std::string_view n) const {
  for (const auto& a : *attrs)
    if (a.name == n) return &a.value;
  return nullptr;
}

std::vector<std::pair<int64_t, int64_t>> OpInfo::padding() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  const Attribute* a = attr("padding");
  if (!a) return out;
  const DenseAttr* d = a->get_if<DenseAttr>();
  if (!d || d->array->dtype() != DType::i64) fail_struct("padding must be a dense i64 tensor");
  auto v = d->array->values<int64_t>();
  for (size_t i = 0; i + 1 < v.size(); i += 2) out.push_back({v[i], v[i + 1]});
  return out;
}

void OpInfo::need(size_t k) const {
  if (operands.size() != k)
    fail_struct(fmt::format("expects {} operands, has {}", k, operands.size()));
}

DType OpInfo::result_dtype() const {
  if (results.empty()) fail_struct("has no result");
  return results[0].dtype;
}

void OpInfo::region_sig(size_t r, const std::vector<TensorType>& args,
                        const std::vector<TensorType>& rets, std::string_view c) const {
  if (regions->size() <= r) fail_struct(fmt::format("needs region {}", r));
  const Block& b = *(*regions)[r];
  auto got = types_of(b.args());
  if (got != args)
    detail::fail(std::string(name).substr(10), c, "region {} takes {}, expected {}", r,
                 types_to_string(got), types_to_string(args));
  check_region_results(std::string(name).substr(10), c, b.returned_types(), rets);
}

std::vector<TensorType> scalar_types(const std::vector<TensorType>& ts) {
  std::vector<TensorType> out;
  for (const auto& t : ts) out.push_back({t.dtype, {}});
  return out;
}

namespace {

std::vector<TensorType> infer_impl(const OpInfo& op, std::string_view s,
                                   const std::vector<TensorType>& in) {
  const std::vector<TensorType>& res = op.results;
  auto need = [&](size_t k) {
    if (in.size() != k) fail_struct(fmt::format("expects {} operands, has {}", k, in.size()));
  };
  auto result_dtype = [&]() {
    if (res.empty()) fail_struct("has no result");
    return res[0].dtype;
  };
  if (s == "constant") {
    need(0);
    return {op.get<DenseAttr>("value").array->type()};
  }
  if (s == "iota") {
    need(0);
    if (res.size() != 1) fail_struct("needs one result");
    return {infer_iota(res[0], op.integer("iota_dimension"))};
  }
  if (s == "compare") {
    need(2);
    op.get<ComparisonDirection>("comparison_direction");
    const Attribute* t = op.attr("compare_type");
    std::optional<ComparisonType> ct;
    if (t && t->get_if<ComparisonType>()) ct = *t->get_if<ComparisonType>();
    return {infer_compare(in[0], in[1], ct)};
  }
  if (s == "select") return need(3), std::vector{infer_select(in[0], in[1], in[2])};
  if (s == "clamp") return need(3), std::vector{infer_clamp(in[0], in[1], in[2])};
  if (s == "convert") return need(1), std::vector{infer_convert(in[0], result_dtype())};
  if (s == "bitcast_convert")
    return need(1), std::vector{infer_bitcast_convert(in[0], result_dtype())};
  if (s == "reduce_precision")
    return need(1), std::vector{infer_reduce_precision(in[0], op.integer("exponent_bits"),
                                                       op.integer("mantissa_bits"))};
  if (s == "dynamic_slice")
    return {infer_dynamic_slice(in.at(0), std::span(in).subspan(1), op.i64s("slice_sizes"))};
  if (s == "dynamic_update_slice")
    return {infer_dynamic_update_slice(in.at(0), in.at(1), std::span(in).subspan(2))};
  if (s == "dot_general") {
    need(2);
    const Attribute* pc = op.attr("precision_config");
    size_t npc = pc && pc->get_if<ArrayAttr>() ? pc->get_if<ArrayAttr>()->values.size() : 0;
    // The result element type is the builder's preferred_element_type when it differs from the
    // lhs type, and also when the operand types differ (the builder takes mixed operands only
    // with one, which may equal the lhs type).
    DType rd = result_dtype();
    bool preferred = rd != in[0].dtype || in[0].dtype != in[1].dtype;
    return {infer_dot_general(in[0], in[1], op.get<DotDimensionNumbers>("dot_dimension_numbers"),
                              npc, preferred ? std::optional<DType>(rd) : std::nullopt)};
  }
  if (s == "convolution") {
    need(2);
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
    if (result_dtype() != in[0].dtype || in[0].dtype != in[1].dtype)  // as for dot_general
      o.preferred_element_type = result_dtype();
    return {infer_convolution(in[0], in[1], op.get<ConvDimensionNumbers>("dimension_numbers"), o)};
  }
  if (s == "batch_norm_inference")
    return need(5), std::vector{infer_batch_norm_inference(in[0], in[1], in[2], in[3], in[4],
                                                           op.integer("feature_index"))};
  if (s == "batch_norm_training")
    return need(3), infer_batch_norm_training(in[0], in[1], in[2], op.integer("feature_index"));
  if (s == "batch_norm_grad")
    return need(5),
           infer_batch_norm_grad(in[0], in[1], in[2], in[3], in[4], op.integer("feature_index"));
  if (s == "triangular_solve")
    return need(2),
           std::vector{infer_triangular_solve(in[0], in[1], op.get<BoolAttr>("left_side").value)};
  if (s == "cholesky") return need(1), std::vector{infer_cholesky(in[0])};
  if (s == "fft")
    return need(1),
           std::vector{infer_fft(in[0], op.get<FftType>("fft_type"), op.i64s("fft_length"))};
  if (s == "rng") {
    need(3);
    return {infer_rng(in[0], in[1], res.at(0).dims, op.get<RngDistribution>("rng_distribution"))};
  }
  if (s == "rng_bit_generator") {
    need(1);
    if (res.size() != 2) fail_struct("needs two results");
    return infer_rng_bit_generator(in[0], op.get<RngAlgorithm>("rng_algorithm"), res[1]);
  }
  if (s == "optimization_barrier") return in;
  if (s == "custom_call") {
    op.get<StringAttr>("call_target_name");
    return res;  // result types are the caller's declaration
  }
  if (s == "reduce" || s == "reduce_window") {
    size_t nin = in.size() / 2;
    std::vector<TensorType> inputs(in.begin(), in.begin() + static_cast<long>(nin)),
        inits(in.begin() + static_cast<long>(nin), in.end());
    auto out = s == "reduce"
                   ? infer_reduce(inputs, inits, op.i64s("dimensions"))
                   : infer_reduce_window(inputs, inits, op.i64s("window_dimensions"),
                                         op.i64s("window_strides"), op.i64s("base_dilations"),
                                         op.i64s("window_dilations"), op.padding());
    auto sc = scalar_types(inits), args = sc;
    args.insert(args.end(), sc.begin(), sc.end());
    op.region_sig(0, args, sc, s == "reduce" ? "C6" : "C13");
    return out;
  }
  if (s == "scatter") {
    size_t nin = (in.size() - 1) / 2;
    std::vector<TensorType> inputs(in.begin(), in.begin() + static_cast<long>(nin)),
        updates(in.begin() + static_cast<long>(nin) + 1, in.end());
    auto out = infer_scatter(inputs, in.at(nin), updates,
                             op.get<ScatterDimensionNumbers>("scatter_dimension_numbers"));
    auto sc = scalar_types(inputs), args = sc;
    args.insert(args.end(), sc.begin(), sc.end());
    op.region_sig(0, args, sc, "C23");
    return out;
  }
  if (s == "sort") {
    auto out = infer_sort(in, op.integer("dimension"));
    std::vector<TensorType> args;
    for (const auto& t : in) args.insert(args.end(), 2, TensorType{t.dtype, {}});
    op.region_sig(0, args, {TensorType{DType::pred, {}}}, "C5");
    return out;
  }
  if (s == "map") {
    if (op.regions->empty()) fail_struct("needs a computation region");
    auto ret = (*op.regions)[0]->returned_types();
    if (in.empty() || ret.size() != 1)
      detail::fail("map", "C4", "computation must return one scalar");
    op.region_sig(0, scalar_types(in), ret, "C4");
    return {TensorType{ret[0].dtype, in[0].dims}};
  }
  if (s == "select_and_scatter") {
    need(3);
    auto out = infer_select_and_scatter(in[0], in[1], in[2], op.i64s("window_dimensions"),
                                        op.i64s("window_strides"), op.padding());
    TensorType e{in[0].dtype, {}};
    op.region_sig(0, {e, e}, {TensorType{DType::pred, {}}}, "C9");
    op.region_sig(1, {e, e}, {e}, "C10");
    return {out};
  }
  if (s == "while") {
    op.region_sig(0, in, {TensorType{DType::pred, {}}}, "C1");
    op.region_sig(1, in, in, "C2");
    return in;
  }
  if (s == "all_reduce" || s == "all_gather" || s == "reduce_scatter" || s == "all_to_all" ||
      s == "collective_permute" || s == "collective_broadcast") {
    std::optional<ChannelHandle> h;
    if (const Attribute* a = op.attr("channel_handle")) {
      if (!a->get_if<ChannelHandle>()) fail_struct("mistyped attribute 'channel_handle'");
      h = *a->get_if<ChannelHandle>();
    }
    bool global_ids = op.attr("use_global_device_ids") != nullptr;
    std::string_view gname = s == "collective_permute" ? "source_target_pairs" : "replica_groups";
    const Attribute* ga = op.attr(gname);
    std::optional<ReplicaGroups> g = ga ? replica_groups_of(*ga) : std::nullopt;
    if (!g) fail_struct(fmt::format("missing or mistyped attribute '{}' (a 2-D i64 dense)", gname));
    if (s == "collective_permute" && ga->get_if<DenseAttr>()->array->dims()[1] != 2)
      detail::fail(s, "C1", "source_target_pairs must have 2 columns, has {}",
                   ga->get_if<DenseAttr>()->array->dims()[1]);
    if (s == "all_reduce" || s == "reduce_scatter") {
      if (in.empty()) fail_struct("expects operands");
      auto out = s == "all_reduce"
                     ? infer_all_reduce(in, *g, h, global_ids)
                     : std::vector{infer_reduce_scatter(in[0], op.integer("scatter_dimension"), *g,
                                                        h, global_ids)};
      if (s == "reduce_scatter") need(1);
      TensorType e{in[0].dtype, {}};
      op.region_sig(0, {e, e}, {e}, s == "all_reduce" ? "C5" : "C7");
      return out;
    }
    if (s == "all_gather")
      return infer_all_gather(in, op.integer("all_gather_dim"), *g, h, global_ids);
    if (s == "all_to_all")
      return infer_all_to_all(in, op.integer("split_dimension"), op.integer("concat_dimension"),
                              op.integer("split_count"), *g);
    need(1);
    if (s == "collective_permute") return {infer_collective_permute(in[0], *g)};
    return {infer_collective_broadcast(in[0], *g)};
  }
  if (s == "replica_id" || s == "partition_id")
    return need(0), std::vector{TensorType{DType::ui32, {}}};
  if (s == "if" || s == "case") {
    if (op.regions->empty()) detail::fail(s, "C1", "needs at least one branch");
    auto out = (*op.regions)[0]->returned_types();
    for (size_t r = 0; r < op.regions->size(); ++r)
      op.region_sig(r, {}, out, s == "if" ? "C2" : "C3");
    return out;
  }
  fail_struct("unknown op");
}

}  // namespace

std::vector<TensorType> infer_op_results(const OpInfo& op) {
  std::string_view n = op.name;
  if (!n.starts_with("stablehlo.")) fail_struct("unknown dialect");
  if (const OpDescriptor* d = find_op_descriptor(n)) {
    if (!d->infer) fail_struct("unknown op");
    return d->infer(op);
  }
  return infer_impl(op, n.substr(10), op.operands);
}

}  // namespace hhlo::detail
