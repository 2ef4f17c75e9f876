// The VJP registry and the rule-writing helpers of vjp_registry.h.
#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ops/tensor.h"
#include "rule_table.h"
#include "rules/rules.h"

namespace hhlo::ad {
namespace {

detail::RuleTable<VjpRule>& registry() {
  static detail::RuleTable<VjpRule> table([](detail::Registry& r) {
    detail::register_elementwise_rules(r);
    detail::register_shape_rules(r);
    detail::register_dot_general_rules(r);
    detail::register_reduce_rules(r);
    detail::register_convolution_rules(r);
    detail::register_reduce_window_rules(r);
    detail::register_indexing_rules(r);
    detail::register_control_flow_rules(r);
    detail::register_batch_norm_rules(r);
    detail::register_linalg_rules(r);
    detail::register_collectives_rules(r);
  });
  return table;
}

}  // namespace

void register_vjp(std::string op_name, VjpRule rule) {
  registry().add(std::move(op_name), std::move(rule));
}

const VjpRule* find_vjp(std::string_view op_name) { return registry().find(op_name); }

std::vector<std::string> registered_vjps() { return registry().names(); }

namespace {
void defined_in(const Block& b, std::unordered_set<uint32_t>& out) {
  for (Value a : b.args()) out.insert(a.id());
  for (const auto& op : b.ops()) {
    for (Value r : op->results()) out.insert(r.id());
    for (const auto& r : op->regions()) defined_in(*r, out);
  }
}
}  // namespace

void detail::uses_in(const Block& b, std::vector<Value>& out) {
  for (const auto& op : b.ops()) {
    for (Value v : op->operands()) out.push_back(v);
    for (const auto& r : op->regions()) uses_in(*r, out);
  }
}

std::vector<Value> captured_values(const Op& op) {
  std::unordered_set<uint32_t> inside, seen;
  std::vector<Value> uses, out;
  for (const auto& r : op.regions()) {
    defined_in(*r, inside);
    detail::uses_in(*r, uses);
  }
  for (Value v : uses)
    if (!inside.count(v.id()) && seen.insert(v.id()).second) out.push_back(v);
  return out;
}

namespace {
std::vector<Value> clone_into(const Block& region, const std::vector<Value>& args,
                              std::unordered_map<uint32_t, Value>& map);

std::vector<Value> clone_ops(const Block& region, std::unordered_map<uint32_t, Value>& map) {
  Func& f = region.func();
  auto mapped = [&](Value v) {
    auto it = map.find(v.id());
    return it == map.end() ? v : it->second;
  };
  for (const auto& op : region.ops()) {
    if (op->name() == "stablehlo.return" || op->name() == "func.return" ||
        op->name() == "sdy.return") {
      std::vector<Value> out;
      for (Value v : op->operands()) out.push_back(mapped(v));
      return out;
    }
    OpState st;
    st.name = op->name();
    for (Value v : op->operands()) st.operands.push_back(mapped(v));
    for (Value r : op->results()) st.result_types.push_back(r.type());
    st.attrs = op->attrs();
    st.loc = op->loc();
    for (const auto& sub : op->regions()) {
      std::vector<TensorType> types;
      for (Value a : sub->args()) types.push_back(a.type());
      const Block* src = sub.get();
      st.regions.push_back(f.build_region(
          op->name(), types, [&](const std::vector<Value>& a) { return clone_into(*src, a, map); },
          op->loc()));
    }
    std::vector<Value> res = f.append(std::move(st));
    for (size_t i = 0; i < res.size(); ++i) map[op->result(i).id()] = res[i];
  }
  throw Error("inline_region: the region has no terminator");
}

std::vector<Value> clone_into(const Block& region, const std::vector<Value>& args,
                              std::unordered_map<uint32_t, Value>& map) {
  if (args.size() != region.args().size())
    throw Error(fmt::format("inline_region: {} arguments given, the region takes {}", args.size(),
                            region.args().size()));
  for (size_t i = 0; i < args.size(); ++i) map[region.arg(i).id()] = args[i];
  return clone_ops(region, map);
}
}  // namespace

std::vector<Value> inline_region(const Block& region, const std::vector<Value>& args) {
  std::unordered_map<uint32_t, Value> map;
  return clone_into(region, args, map);
}

void register_custom_vjp(std::string target, VjpRule rule) {
  register_vjp("custom_call:" + target, std::move(rule));
}

void register_custom_vjp(std::string forward_target, std::string backward_target) {
  register_custom_vjp(
      std::move(forward_target), [backward_target = std::move(backward_target)](
                                     const Op& op, const std::vector<Cotangent>& cts) {
        if (op.operands().empty()) return std::vector<Cotangent>{};
        CustomCallOptions options;
        if (const Attribute* v = op.attr("api_version"))
          if (const auto* i = v->get_if<IntAttr>())
            options.api_version = static_cast<int>(i->value);
        if (const Attribute* c = op.attr("backend_config")) {
          if (const auto* d = c->get_if<DictAttr>()) options.backend_config = *d;
          if (const auto* t = c->get_if<StringAttr>()) options.backend_config = t->value;
        }
        std::vector<Value> operands = op.operands();
        std::vector<TensorType> result_types;
        for (const Value& x : op.operands()) result_types.push_back(x.type());
        for (size_t k = 0; k < op.results().size(); ++k)
          operands.push_back(cts[k] ? *cts[k] : full_like(op.results()[k], 0.0));
        std::vector<Value> grads =
            custom_call(op.operands()[0].func(), backward_target, operands, result_types, options);
        std::vector<Cotangent> out(op.operands().size());
        for (size_t i = 0; i < out.size(); ++i)
          if (is_float(op.operands()[i].dtype()) || is_complex(op.operands()[i].dtype()))
            out[i] = grads[i];
        return out;
      });
}

VjpRule zero_vjp() {
  return [](const Op& op, const std::vector<Cotangent>&) {
    return std::vector<Cotangent>(op.operands().size());
  };
}

VjpRule linear_vjp(std::function<Value(const Op& op, Value ct)> transpose) {
  return [transpose = std::move(transpose)](const Op& op, const std::vector<Cotangent>& cts) {
    std::vector<Cotangent> out(op.operands().size());
    if (cts.at(0)) out[0] = transpose(op, *cts[0]);
    return out;
  };
}

Value reduce_sum(Value x, const std::vector<int64_t>& dims, Loc loc) {
  if (dims.empty()) return x;
  Value zero = constant(x.func(), 0.0, x.dtype(), {}, loc);
  return reduce(
      x, zero, dims, [](Value a, Value b) { return add(a, b); }, loc);
}

Value full_like(Value x, double value, Loc loc) { return np::full_like(x, value, loc); }

Value unbroadcast(Value ct, const Dims& operand_dims, const std::vector<int64_t>& bdims) {
  const Dims& rd = ct.dims();
  std::vector<int64_t> sum_dims;
  std::vector<bool> mapped(rd.size(), false);
  for (size_t i = 0; i < bdims.size(); ++i) {
    mapped.at(static_cast<size_t>(bdims[i])) = true;
    if (operand_dims[i] == 1 && rd[static_cast<size_t>(bdims[i])] != 1)
      sum_dims.push_back(bdims[i]);
  }
  for (size_t d = 0; d < rd.size(); ++d)
    if (!mapped[d]) sum_dims.push_back(static_cast<int64_t>(d));
  std::sort(sum_dims.begin(), sum_dims.end());
  Value s = reduce_sum(ct, sum_dims);
  if (s.dims() != operand_dims) s = reshape(s, operand_dims);
  return s;
}

Value unbroadcast(Value ct, const Dims& operand_dims) {
  int64_t off = ct.rank() - static_cast<int64_t>(operand_dims.size());
  if (off < 0) throw Error("unbroadcast: cotangent rank is smaller than the operand's");
  std::vector<int64_t> bd;
  for (size_t i = 0; i < operand_dims.size(); ++i) bd.push_back(off + static_cast<int64_t>(i));
  return unbroadcast(ct, operand_dims, bd);
}

namespace {
thread_local const std::vector<bool>* g_needed = nullptr;
}  // namespace

bool needs_cotangent(size_t i) {
  return g_needed == nullptr || i >= g_needed->size() || (*g_needed)[i];
}

namespace detail {

NeededScope::NeededScope(const std::vector<bool>* mask) : saved_(g_needed) { g_needed = mask; }
NeededScope::~NeededScope() { g_needed = saved_; }

std::string where(const Op& op) {
  const Location& l = op.loc();
  std::string mlir_loc;
  if (!l.file.empty()) {
    mlir_loc = fmt::format("{}:{}", l.file, l.line);
  } else if (!l.text.empty()) {
    std::string t = l.text.size() > 120 ? l.text.substr(0, 117) + "..." : l.text.str();
    mlir_loc = "loc(" + t + ")";
  }
  if (l.source_line == 0) return mlir_loc.empty() ? "unknown location" : mlir_loc;
  std::string out = fmt::format("line {} of the parsed text", l.source_line);
  if (!mlir_loc.empty()) out += " (" + mlir_loc + ")";
  return out;
}

void unsupported(const Op& op, const std::string& why, const char* mode) {
  throw Error(fmt::format("{} of '{}' at {}: {}", mode, op.name(), where(op), why));
}

bool real_tangent(const Op& op, Value x, const char* mode) {
  if (is_complex(x.dtype()))
    unsupported(op,
                fmt::format("no {} rule for complex operands (operand of type {}); this rule "
                            "covers real floating-point operands only",
                            mode, x.type().to_string()),
                mode);
  return is_float(x.dtype());
}

Value cast_to(Value x, DType d) { return x.dtype() == d ? x : convert(x, d); }

}  // namespace detail
}  // namespace hhlo::ad
