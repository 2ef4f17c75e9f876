// VJP and JVP of stablehlo.reduce with a single input and a sum / max / min / product body (JAX
// _reduce_sum_transpose_rule, _reduce_chooser_jvp_rule, _reduce_prod_jvp_rule); sum and product
// hold for complex inputs too, max / min are real only.
#include <algorithm>

#include "rules.h"

namespace hhlo::ad::detail {
namespace {

// The single binary op the reduce body applies to its two block arguments, or "".
std::string body_kind(const Op& op) {
  if (op.regions().size() != 1) return "";
  const Block& b = *op.regions()[0];
  std::vector<const Op*> real;
  for (const auto& o : b.ops())
    if (o->name() != "stablehlo.return") real.push_back(o.get());
  if (real.size() != 1 || real[0]->operands().size() != 2) return "";
  for (Value v : real[0]->operands())
    if (v != b.arg(0) && v != b.arg(1)) return "";
  return real[0]->name();
}

}  // namespace

void register_reduce_rules(Registry& r) {
  r["stablehlo.reduce"] = [](const Op& op, const std::vector<Cotangent>& cts) {
    if (op.operands().size() != 2)
      unsupported(op,
                  "only single-input reduce is differentiable (argmax-style multi-input reduce "
                  "has no gradient); stop the gradient before it");
    std::vector<Cotangent> out(2);
    if (!cts[0]) return out;
    Value x = op.operands()[0], z = op.result(0), g = *cts[0];
    auto dims = op.attr("dimensions")->get_if<I64ArrayAttr>()->values;
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < x.rank(); ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
    auto back = [&](Value v) { return broadcast_in_dim(v, x.dims(), kept); };
    std::string kind = body_kind(op);
    if (needs_cotangent(1) && is_inexact(op.operands()[1].dtype())) {
      // An init value that depends on the inputs: each result element is init + sum(...).
      if (kind != "stablehlo.add")
        unsupported(op, "the gradient of a reduce's init value is supported for sum bodies only");
      std::vector<int64_t> all;
      for (int64_t d = 0; d < g.rank(); ++d) all.push_back(d);
      out[1] = reduce_sum(g, all);
    }
    if (kind == "stablehlo.add") {
      out[0] = back(g);
    } else if (kind == "stablehlo.maximum" || kind == "stablehlo.minimum") {
      real_tangent(op, x);
      // Split the cotangent equally among the elements equal to the extremum.
      Value mask = convert(compare(x, back(z), ComparisonDirection::EQ), x.dtype());
      Value count = reduce_sum(mask, dims);
      out[0] = multiply(back(divide(g, count)), mask);
    } else if (kind == "stablehlo.multiply") {
      out[0] = divide(multiply(back(g), back(z)), x);
    } else {
      unsupported(op, "the reduce body is not a single add / maximum / minimum / multiply");
    }
    return out;
  };
}

// JVP of reduce: sum is linear (the reduce applied to the tangents, init's tangent included);
// max / min: the tangent at the extremum (averaged over ties, as the VJP splits them); product:
// z * sum(t / x), the same formula as the VJP.
void register_reduce_jvps(JvpRegistry& r) {
  r["stablehlo.reduce"] = [](const Op& op, const std::vector<Tangent>& ts) {
    if (op.operands().size() != 2)
      unsupported(op,
                  "only single-input reduce is differentiable (argmax-style multi-input reduce "
                  "has no derivative); stop the gradient before it",
                  "JVP");
    std::string kind = body_kind(op);
    if (kind == "stablehlo.add") return linear_jvp()(op, ts);
    std::vector<Tangent> out(1);
    Value x = op.operands()[0], z = op.result(0);
    if (ts[1])
      unsupported(op, "the tangent of a reduce's init value is supported for sum bodies only",
                  "JVP");
    if (!ts[0]) return out;
    Value t = *ts[0];
    auto dims = op.attr("dimensions")->get_if<I64ArrayAttr>()->values;
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < x.rank(); ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
    auto back = [&](Value v) { return broadcast_in_dim(v, x.dims(), kept); };
    if (kind == "stablehlo.maximum" || kind == "stablehlo.minimum") {
      real_tangent(op, x, "JVP");
      Value mask = convert(compare(x, back(z), ComparisonDirection::EQ), x.dtype());
      out[0] = divide(reduce_sum(multiply(t, mask), dims), reduce_sum(mask, dims));
    } else if (kind == "stablehlo.multiply") {
      out[0] = multiply(z, reduce_sum(divide(t, x), dims));
    } else {
      unsupported(op, "the reduce body is not a single add / maximum / minimum / multiply", "JVP");
    }
    return out;
  };
}

}  // namespace hhlo::ad::detail
