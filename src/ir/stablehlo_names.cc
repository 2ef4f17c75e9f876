#include "stablehlo_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <unordered_set>

#include "hhlo/core/error.h"
#include "text/parser_lexer.h"

namespace hhlo::detail {

bool is_stablehlo_op(std::string_view name) {
  // stablehlo/dialect/StablehloOps.td (openxla/stablehlo, 2026-08), every op's mnemonic, and
  // exp2, fma and log2 (StableHLO 1.23 and 1.24, in jaxlib 0.12.1's dialect).
  static const std::unordered_set<std::string_view> kOps = {"abs",
                                                            "add",
                                                            "after_all",
                                                            "all_gather",
                                                            "all_reduce",
                                                            "all_to_all",
                                                            "and",
                                                            "async_done",
                                                            "async_start",
                                                            "atan2",
                                                            "batch_norm_grad",
                                                            "batch_norm_inference",
                                                            "batch_norm_training",
                                                            "bitcast_convert",
                                                            "broadcast",
                                                            "broadcast_in_dim",
                                                            "case",
                                                            "cbrt",
                                                            "ceil",
                                                            "cholesky",
                                                            "clamp",
                                                            "collective_broadcast",
                                                            "collective_permute",
                                                            "collective_reduce",
                                                            "compare",
                                                            "complex",
                                                            "composite",
                                                            "concatenate",
                                                            "constant",
                                                            "convert",
                                                            "convolution",
                                                            "cosine",
                                                            "count_leading_zeros",
                                                            "create_token",
                                                            "custom_call",
                                                            "divide",
                                                            "dot",
                                                            "dot_general",
                                                            "dynamic_broadcast_in_dim",
                                                            "dynamic_conv",
                                                            "dynamic_gather",
                                                            "dynamic_iota",
                                                            "dynamic_pad",
                                                            "dynamic_reshape",
                                                            "dynamic_slice",
                                                            "dynamic_update_slice",
                                                            "einsum",
                                                            "exp2",
                                                            "exponential",
                                                            "exponential_minus_one",
                                                            "fft",
                                                            "floor",
                                                            "fma",
                                                            "gather",
                                                            "get_dimension_size",
                                                            "get_tuple_element",
                                                            "if",
                                                            "imag",
                                                            "infeed",
                                                            "iota",
                                                            "is_finite",
                                                            "log",
                                                            "log2",
                                                            "log_plus_one",
                                                            "logistic",
                                                            "map",
                                                            "maximum",
                                                            "minimum",
                                                            "multiply",
                                                            "negate",
                                                            "not",
                                                            "optimization_barrier",
                                                            "or",
                                                            "outfeed",
                                                            "pad",
                                                            "partition_id",
                                                            "popcnt",
                                                            "power",
                                                            "real",
                                                            "real_dynamic_slice",
                                                            "recv",
                                                            "reduce",
                                                            "reduce_precision",
                                                            "reduce_scatter",
                                                            "reduce_window",
                                                            "remainder",
                                                            "replica_id",
                                                            "reshape",
                                                            "return",
                                                            "reverse",
                                                            "rng",
                                                            "rng_bit_generator",
                                                            "round_nearest_afz",
                                                            "round_nearest_even",
                                                            "rsqrt",
                                                            "scatter",
                                                            "select",
                                                            "select_and_scatter",
                                                            "send",
                                                            "set_dimension_size",
                                                            "shift_left",
                                                            "shift_right_arithmetic",
                                                            "shift_right_logical",
                                                            "sign",
                                                            "sine",
                                                            "slice",
                                                            "sort",
                                                            "sqrt",
                                                            "subtract",
                                                            "tan",
                                                            "tanh",
                                                            "torch_index_select",
                                                            "transpose",
                                                            "triangular_solve",
                                                            "tuple",
                                                            "unary_einsum",
                                                            "uniform_dequantize",
                                                            "uniform_quantize",
                                                            "while",
                                                            "xor"};
  constexpr std::string_view kPrefix = "stablehlo.";
  return name.starts_with(kPrefix) && kOps.count(name.substr(kPrefix.size())) != 0;
}

namespace {

/// One edge of the call graph: the function referred to, the op and the attribute naming it.
struct Call {
  std::string_view callee;
  const Op* op;
  std::string_view attr;
};

/// Adds every symbol of the module `text` (an attribute kept as MLIR text) names to `out`: `@f`,
/// `@"f"`, the root `@a` of a nested `@a::@b`; string literals are skipped by the lexer.
void symbols_in_text(const std::string& text, const Op& op, std::string_view attr,
                     std::vector<Call>& out, std::deque<std::string>& names) {
  if (text.find('@') == std::string::npos) return;
  parse::Lexer lex(text);
  int colons = 0;  // colons right before the token: `::` makes it a nested reference
  for (parse::Token t = lex.next(); t.kind != parse::Tok::eof && t.kind != parse::Tok::error;
       t = lex.next()) {
    bool nested = colons >= 2;
    colons = t.kind == parse::Tok::colon ? colons + 1 : 0;
    if (t.kind != parse::Tok::symbol || nested) continue;
    std::string_view n = t.text.substr(1);
    if (n.starts_with('"')) {
      bool ok = false;
      std::string u = parse::unescape(n, ok);
      if (!ok) continue;
      out.push_back({names.emplace_back(std::move(u)), &op, attr});
    } else {
      out.push_back({names.emplace_back(n), &op, attr});
    }
  }
}

/// Adds every function `a` refers to (a symbol, in arrays and dictionaries too, or in an attribute
/// kept as text) to `out`: func.call's callee, a composite's decomposition, a custom call's
/// called_computations and any other reference, each an edge of the call graph.
void symbols_in(const Attribute& a, const Op& op, std::string_view attr, std::vector<Call>& out,
                std::deque<std::string>& names) {
  const Attribute::Variant& v = a.variant();
  if (const auto* ref = std::get_if<SymbolRefAttr>(&v)) {
    out.push_back({ref->name, &op, attr});
  } else if (const auto* array = std::get_if<ArrayAttr>(&v)) {
    for (const Attribute& e : array->values) symbols_in(e, op, attr, out, names);
  } else if (const auto* dict = std::get_if<DictAttr>(&v)) {
    for (const auto& [key, e] : dict->entries) symbols_in(e, op, attr, out, names);
  } else if (const auto* opaque = std::get_if<OpaqueAttr>(&v)) {
    symbols_in_text(opaque->text, op, attr, out, names);
  }
}

void collect_calls(const Block& b, std::vector<Call>& out, std::deque<std::string>& names) {
  for (const auto& op : b.ops()) {
    for (const NamedAttr& a : op->attrs()) symbols_in(a.value, *op, a.name, out, names);
    for (const auto& r : op->regions()) collect_calls(*r, out, names);
  }
}

/// Depth-first search over the call graph (iterative: a deep chain of calls must not overflow
/// our own stack either).
class CycleSearch {
 public:
  explicit CycleSearch(const Module& m) {
    for (const auto& f : m.funcs()) collect_calls(f->body(), calls_[f->name()], names_);
  }

  CallCycle run(const Module& m) {
    for (const auto& f : m.funcs())
      if (state_[f->name()] == 0)
        if (CallCycle c = from(f->name()); !c.names.empty()) return c;
    return {};
  }

 private:
  struct Frame {
    std::string_view func;
    std::size_t next = 0;
  };

  CallCycle from(std::string_view root) {
    std::vector<Frame> stack{{root}};
    state_[root] = 1;
    while (!stack.empty()) {
      Frame& top = stack.back();
      const auto& calls = calls_[top.func];
      if (top.next == calls.size()) {
        state_[top.func] = 2;
        stack.pop_back();
        continue;
      }
      const Call& call = calls[top.next++];
      auto known = calls_.find(call.callee);
      if (known == calls_.end()) continue;     // an unknown callee (or a mesh): not a function here
      std::string_view callee = known->first;  // the module's own name, which outlives the search
      int& s = state_[callee];
      if (s == 1) return cycle(stack, callee, call);
      if (s == 0) {
        s = 1;
        stack.push_back({callee});
      }
    }
    return {};
  }

  static CallCycle cycle(const std::vector<Frame>& stack, std::string_view callee,
                         const Call& call) {
    CallCycle c{{}, call.op, call.attr};
    auto start =
        std::find_if(stack.begin(), stack.end(), [&](const Frame& f) { return f.func == callee; });
    for (auto it = start; it != stack.end(); ++it) c.names.push_back(it->func);
    c.names.push_back(callee);
    return c;
  }

  std::deque<std::string> names_;  // names read from attributes kept as text (stable addresses)
  std::map<std::string_view, std::vector<Call>> calls_;
  std::map<std::string_view, int> state_;  // 0 unvisited, 1 on the stack, 2 done
};

}  // namespace

CallCycle find_call_cycle(const Module& module) { return CycleSearch(module).run(module); }

void check_no_call_cycle(const Module& module, const Op** failed_op) {
  detail::CallCycle c = detail::find_call_cycle(module);
  if (c.names.empty()) return;
  if (failed_op) *failed_op = c.op;
  std::string path;
  for (std::string_view n : c.names) path += fmt::format("{}@{}", path.empty() ? "" : " -> ", n);
  // func.call's callee and a composite's decomposition are calls by name; any other reference
  // (a custom call's called_computations, ...) is named by its attribute.
  std::string through = c.attr == "callee" || c.attr == "decomposition"
                            ? std::string()
                            : fmt::format(" through '{}'", c.attr);
  throw Error(fmt::format(
      "{}{}: StableHLO has no recursion (a function may not call itself, directly or through "
      "others)",
      c.names.size() == 2 ? fmt::format("function @{} calls itself", c.names[0])
                          : "call cycle " + path,
      through));
}

}  // namespace hhlo::detail
