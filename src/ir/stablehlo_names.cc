#include "stablehlo_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_set>

#include "hhlo/core/error.h"

namespace hhlo::detail {

bool is_stablehlo_op(std::string_view name) {
  // stablehlo/dialect/StablehloOps.td (openxla/stablehlo, 2026-08), every op's mnemonic.
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
                                                            "exponential",
                                                            "exponential_minus_one",
                                                            "fft",
                                                            "floor",
                                                            "gather",
                                                            "get_dimension_size",
                                                            "get_tuple_element",
                                                            "if",
                                                            "imag",
                                                            "infeed",
                                                            "iota",
                                                            "is_finite",
                                                            "log",
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

/// The function an op calls (func.call's callee, composite's decomposition), or "".
std::string_view callee_of(const Op& op) {
  const char* key = op.name() == "func.call"             ? "callee"
                    : op.name() == "stablehlo.composite" ? "decomposition"
                                                         : nullptr;
  if (!key) return {};
  const Attribute* a = op.attr(key);
  const SymbolRefAttr* sym = a ? a->get_if<SymbolRefAttr>() : nullptr;
  return sym ? std::string_view(sym->name) : std::string_view();
}

void collect_calls(const Block& b, std::vector<std::pair<std::string_view, const Op*>>& out) {
  for (const auto& op : b.ops()) {
    if (std::string_view c = callee_of(*op); !c.empty()) out.emplace_back(c, op.get());
    for (const auto& r : op->regions()) collect_calls(*r, out);
  }
}

/// Depth-first search over the call graph (iterative: a deep chain of calls must not overflow
/// our own stack either).
class CycleSearch {
 public:
  explicit CycleSearch(const Module& m) {
    for (const auto& f : m.funcs()) collect_calls(f->body(), calls_[f->name()]);
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
      auto [callee, op] = calls[top.next++];
      if (!calls_.count(callee)) continue;  // an unknown callee: the verifier's error
      int& s = state_[callee];
      if (s == 1) return cycle(stack, callee, op);
      if (s == 0) {
        s = 1;
        stack.push_back({callee});
      }
    }
    return {};
  }

  static CallCycle cycle(const std::vector<Frame>& stack, std::string_view callee, const Op* op) {
    CallCycle c{{}, op};
    auto start =
        std::find_if(stack.begin(), stack.end(), [&](const Frame& f) { return f.func == callee; });
    for (auto it = start; it != stack.end(); ++it) c.names.push_back(it->func);
    c.names.push_back(callee);
    return c;
  }

  std::map<std::string_view, std::vector<std::pair<std::string_view, const Op*>>> calls_;
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
  throw Error(fmt::format(
      "{}: StableHLO has no recursion (a function may not call itself, directly or through others)",
      c.names.size() == 2 ? fmt::format("function @{} calls itself", c.names[0])
                          : "call cycle " + path));
}

}  // namespace hhlo::detail
