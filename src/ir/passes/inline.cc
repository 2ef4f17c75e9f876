// inline_call: copies a function body (and every function it calls) into a function under
// construction, making default-valued window attributes explicit on the way.
#include "hhlo/ir/inline.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "hhlo/core/array.h"

namespace hhlo {
namespace {

constexpr size_t kMaxCallDepth = 256;

bool has(const OpState& st, std::string_view name) {
  return std::any_of(st.attrs.begin(), st.attrs.end(),
                     [&](const NamedAttr& a) { return a.name == name; });
}

void ones(OpState& st, std::string_view name, int64_t count) {
  if (count >= 0 && !has(st, name))
    st.attrs.push_back(
        {std::string(name), i64_array(std::vector<int64_t>(static_cast<size_t>(count), 1))});
}

void zero_padding(OpState& st, int64_t count) {
  if (count >= 0 && !has(st, "padding"))
    st.attrs.push_back({"padding", dense_attr(Array(DType::i64, {count, 2}))});
}

// The attributes the StableHLO printer omits at their defaults, in our builders' forms.
void explicit_defaults(OpState& st) {
  const std::string& n = st.name;
  int64_t rank = st.operands.empty() ? -1 : st.operands[0].rank();
  if (n == "stablehlo.reduce_window") {
    ones(st, "window_strides", rank);
    ones(st, "base_dilations", rank);
    ones(st, "window_dilations", rank);
    zero_padding(st, rank);
  } else if (n == "stablehlo.select_and_scatter") {
    ones(st, "window_strides", rank);
    zero_padding(st, rank);
  } else if (n == "stablehlo.convolution") {
    int64_t sp = rank - 2;
    for (const auto& a : st.attrs)
      if (a.name == "dimension_numbers")
        if (const auto* d = a.value.get_if<ConvDimensionNumbers>())
          sp = static_cast<int64_t>(d->input_spatial_dimensions.size());
    ones(st, "window_strides", sp);
    ones(st, "lhs_dilation", sp);
    ones(st, "rhs_dilation", sp);
    zero_padding(st, sp);
    if (!has(st, "feature_group_count")) st.attrs.push_back({"feature_group_count", i64_attr(1)});
    if (!has(st, "batch_group_count")) st.attrs.push_back({"batch_group_count", i64_attr(1)});
  }
}

class Inliner {
 public:
  Inliner(Func& dest, const Module& source, const InlineRewrite* rewrite = nullptr,
          RewriteScope scope = RewriteScope::bodies, bool keep_calls = false)
      : dest_(dest), source_(source), rewrite_(rewrite), scope_(scope), keep_calls_(keep_calls) {}

  std::vector<Value> call(std::string_view callee, const std::vector<Value>& args) {
    const Func* f = source_.find(callee);
    if (!f) {
      std::string names;
      for (const auto& g : source_.funcs()) names += (names.empty() ? "@" : ", @") + g->name();
      throw Error(fmt::format("inline_call: no function @{} in the module; it has {}", callee,
                              names.empty() ? "none" : names));
    }
    if (f == &dest_) throw Error(fmt::format("inline_call: cannot inline @{} into itself", callee));
    if (!f->returned())
      throw Error(fmt::format("inline_call: @{} has not returned (no func.return)", callee));
    if (std::find(stack_.begin(), stack_.end(), f) != stack_.end() ||
        stack_.size() >= kMaxCallDepth)
      throw Error(fmt::format("inline_call: recursive call of @{}", callee));
    if (args.size() != f->args().size())
      throw Error(fmt::format("inline_call: @{} takes {} arguments, {} given", callee,
                              f->args().size(), args.size()));
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].type() != f->arg(i).type())
        throw Error(
            fmt::format("inline_call: argument {} of @{} has type {}, the value given has {}", i,
                        callee, f->arg(i).type().to_string(), args[i].type().to_string()));
    stack_.push_back(f);
    std::unordered_map<uint32_t, Value> map;
    for (size_t i = 0; i < args.size(); ++i) map[f->arg(i).id()] = args[i];
    std::vector<Value> out = block(f->body(), map, End::func_return);
    stack_.pop_back();
    return out;
  }

  // The ops of region block `b` with its arguments bound to `args`; the values it returns.
  std::vector<Value> region(const Block& b, const std::vector<Value>& args) {
    if (args.size() != b.args().size())
      throw Error(fmt::format("inline_region: the block takes {} arguments, {} given",
                              b.args().size(), args.size()));
    std::unordered_map<uint32_t, Value> map;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].type() != b.arg(i).type())
        throw Error(fmt::format("inline_region: argument {} has type {}, the value given has {}", i,
                                b.arg(i).type().to_string(), args[i].type().to_string()));
      map[b.arg(i).id()] = args[i];
    }
    outer_constants_ = true;
    return block(b, map, End::region_values);
  }

 private:
  // How a copied block ends: at its func.return (a function's body), at its stablehlo.return
  // appended as the copy's terminator (a region of a copied op), or at its stablehlo.return
  // whose operands are the result, not appended (a region inlined in place).
  enum class End { func_return, region_return, region_values };

  // Copies the ops of `b`; returns the operands of its terminator.
  std::vector<Value> block(const Block& b, std::unordered_map<uint32_t, Value>& map, End end) {
    const bool body = end == End::func_return;
    auto mapped = [&](Value v) {
      auto it = map.find(v.id());
      if (it == map.end() && outer_constants_) it = copied_constant(v, map);
      if (it == map.end())
        throw Error(stack_.empty()
                        ? std::string("inline_region: the block uses a value defined outside it")
                        : fmt::format("inline_call: a value used in @{} is not defined before its "
                                      "use",
                                      stack_.back()->name()));
      return it->second;
    };
    for (const auto& op : b.ops()) {
      std::vector<Value> operands;
      for (Value v : op->operands()) operands.push_back(mapped(v));
      if (body && op->name() == "func.return") return operands;
      if (end == End::region_values && op->name() == "stablehlo.return") return operands;
      bool call_op = op->name() == "func.call";
      if (call_op && !keep_calls_) {
        const Attribute* c = op->attr("callee");
        const auto* sym = c ? c->get_if<SymbolRefAttr>() : nullptr;
        if (!sym) throw Error("inline_call: a func.call without a callee symbol");
        std::vector<Value> res = call(sym->name, operands);
        if (res.size() != op->results().size())
          throw Error(fmt::format("inline_call: @{} returns {} values, its call site expects {}",
                                  sym->name, res.size(), op->results().size()));
        for (size_t i = 0; i < res.size(); ++i) map[op->result(i).id()] = res[i];
        continue;
      }
      bool terminator = op->name() == "stablehlo.return";
      bool consult = !call_op && (body || (scope_ == RewriteScope::regions_too && !terminator));
      if (consult && rewritten(*op, operands, map)) continue;
      OpState st;
      st.name = op->name();
      st.operands = std::move(operands);
      for (Value r : op->results()) st.result_types.push_back(r.type());
      st.attrs = op->attrs();
      st.loc = op->loc();
      explicit_defaults(st);
      if (st.name == "stablehlo.composite" && !keep_calls_) copy_decomposition(st);
      for (const auto& region : op->regions()) {
        std::vector<TensorType> types;
        for (Value a : region->args()) types.push_back(a.type());
        const Block* src = region.get();
        st.regions.push_back(dest_.build_block(types, [&](const std::vector<Value>& a) {
          for (size_t i = 0; i < a.size(); ++i) map[src->arg(i).id()] = a[i];
          block(*src, map, End::region_return);
        }));
      }
      std::vector<Value> operands_copy = terminator ? st.operands : std::vector<Value>{};
      std::vector<Value> res = dest_.append(std::move(st));
      for (size_t i = 0; i < res.size(); ++i) map[op->result(i).id()] = res[i];
      if (terminator && !body) return operands_copy;
    }
    if (body)
      throw Error(fmt::format("inline_call: @{} has no func.return", stack_.back()->name()));
    if (end == End::region_values) throw Error("inline_region: the block has no stablehlo.return");
    return {};
  }

  // For a region inlined in place: a `stablehlo.constant` of the enclosing function that `v` is,
  // copied to the insertion point and mapped; map.end() when `v` is not one.
  std::unordered_map<uint32_t, Value>::iterator copied_constant(
      Value v, std::unordered_map<uint32_t, Value>& map) {
    const Op* def = v.defining_op();
    if (!def || def->name() != "stablehlo.constant" || !def->operands().empty()) return map.end();
    OpState st;
    st.name = def->name();
    st.result_types = {v.type()};
    st.attrs = def->attrs();
    st.loc = def->loc();
    return map.emplace(v.id(), dest_.append(std::move(st))[0]).first;
  }

  // Whether the rewrite replaced `op` (its results then mapped to the rewrite's values).
  bool rewritten(const Op& op, const std::vector<Value>& operands,
                 std::unordered_map<uint32_t, Value>& map) {
    if (!rewrite_ || !*rewrite_) return false;
    std::optional<std::vector<Value>> res = (*rewrite_)(op, operands);
    if (!res) return false;
    if (res->size() != op.results().size())
      throw Error(fmt::format("inline_call: the rewrite of '{}' gave {} values for {} results",
                              op.name(), res->size(), op.results().size()));
    for (size_t i = 0; i < res->size(); ++i) {
      if ((*res)[i].type() != op.result(i).type())
        throw Error(fmt::format("inline_call: the rewrite of '{}' gave result {} type {}, not {}",
                                op.name(), i, (*res)[i].type().to_string(),
                                op.result(i).type().to_string()));
      map[op.result(i).id()] = (*res)[i];
    }
    return true;
  }

  // A composite copied into another module takes its decomposition along: a private copy (its
  // calls inlined, its composites copied likewise) under the same name, or a fresh one
  // (`name_1`, ...) when the destination has a function of that name.
  void copy_decomposition(OpState& st) {
    Module& dm = dest_.module();
    if (&dm == &source_) return;
    for (NamedAttr& a : st.attrs) {
      auto* sym = a.name == "decomposition" ? a.value.get_if<SymbolRefAttr>() : nullptr;
      if (!sym) continue;
      const Func* d = source_.find(sym->name);
      if (!d)
        throw Error(fmt::format("inline_call: a composite names @{}, which is not in the module",
                                sym->name));
      std::string name = sym->name;
      for (int i = 1; dm.find(name); ++i) name = fmt::format("{}_{}", sym->name, i);
      Func& g = dm.add_func(name, d->arg_types(), Visibility::private_);
      g.ret(Inliner(g, source_).call(sym->name, g.args()));
      a.value = SymbolRefAttr{name};
    }
  }

  Func& dest_;
  const Module& source_;
  const InlineRewrite* rewrite_;
  RewriteScope scope_;
  // True when func.calls and composites are copied as they are (copy_function_body).
  bool keep_calls_ = false;
  std::vector<const Func*> stack_;
  // True while a region is inlined in place: constants from outside it are copied (region()).
  bool outer_constants_ = false;
};

}  // namespace

std::vector<Value> inline_call(Func& dest, const Module& source, std::string_view callee,
                               const std::vector<Value>& args) {
  dest.check_operands("inline_call", args);
  return Inliner(dest, source).call(callee, args);
}

std::vector<Value> inline_call(Func& dest, const Module& source, std::string_view callee,
                               const std::vector<Value>& args, const InlineRewrite& rewrite,
                               RewriteScope scope) {
  dest.check_operands("inline_call", args);
  return Inliner(dest, source, &rewrite, scope).call(callee, args);
}

std::vector<Value> copy_function_body(Func& dest, const Module& source, std::string_view callee,
                                      const std::vector<Value>& args,
                                      const InlineRewrite& rewrite) {
  dest.check_operands("copy_function_body", args);
  return Inliner(dest, source, &rewrite, RewriteScope::regions_too, true).call(callee, args);
}

std::vector<Value> inline_region(Func& dest, const Module& source, const Block& block,
                                 const std::vector<Value>& args) {
  dest.check_operands("inline_region", args);
  return Inliner(dest, source).region(block, args);
}

}  // namespace hhlo
