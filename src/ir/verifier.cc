// The module verifier: re-runs each op's shape rule on its recorded operands and attributes.
#include "hhlo/ir/verifier.h"

#include <fmt/format.h>

#include <unordered_set>

#include "hhlo/ir/infer.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/spmd.h"
#include "infer_op.h"
#include "infer_util.h"

namespace hhlo {
namespace {

class Verifier {
 public:
  Verifier(const Module& m, const Func& f, const VerifyOptions& o) : m_(m), f_(f), o_(o) {}

  void run() {
    if (!f_.returned()) fail_struct(nullptr, "has no func.return");
    for (const Value& a : f_.args()) defined_.insert(a.id());
    block(f_.body(), true);
  }

 private:
  [[noreturn]] void fail_struct(const Op* op, const std::string& what) const {
    throw Error(fmt::format("verify: function @{}{}: {}", f_.name(),
                            op ? " op '" + op->name() + "'" : std::string(), what));
  }

  void block(const Block& b, bool is_body) {
    const auto& ops = b.ops();
    if (ops.empty()) fail_struct(nullptr, "empty block");
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = *ops[i];
      bool last = i + 1 == ops.size();
      if (o_.failed_op) *o_.failed_op = &op;
      bool term = op.name() == "func.return" || op.name() == "stablehlo.return" ||
                  (!is_body && op.name() == "sdy.return") ||
                  (o_.allow_unknown_ops && !is_body && foreign_terminator(op.name()));
      if (term != last)
        fail_struct(&op,
                    last ? "block does not end in a return" : "return before the end of a block");
      if (term && (op.name() == "func.return") != is_body && !foreign_terminator(op.name()))
        fail_struct(&op, is_body ? "function body must end in func.return"
                                 : "region must end in stablehlo.return");
      for (const Value& v : op.operands()) {
        if (!v.valid() || &v.func() != &f_ || !defined_.count(v.id()))
          fail_struct(&op, "uses a value not defined before it in this function");
      }
      for (const auto& r : op.regions()) {
        // Values of a region are visible only inside it.
        auto outer = defined_;
        for (const Value& a : r->args()) defined_.insert(a.id());
        block(*r, false);
        defined_ = std::move(outer);
      }
      if (o_.failed_op) *o_.failed_op = &op;
      check(op);
      for (const Value& v : op.results()) defined_.insert(v.id());
    }
  }

  static bool foreign_terminator(const std::string& n) {
    return !n.starts_with("stablehlo.") && !n.starts_with("func.") &&
           (n.ends_with(".return") || n.ends_with(".yield"));
  }
  static bool is_dynamic(const std::vector<Value>& vs) {
    for (const Value& v : vs)
      if (!v.type().is_static()) return true;
    return false;
  }
  static bool known(const std::string& n) {
    static const std::unordered_set<std::string_view> ops = [] {
      auto v = supported_ops();
      return std::unordered_set<std::string_view>(v.begin(), v.end());
    }();
    return ops.count(n) != 0;
  }

  // The Shardy ops with typed attributes (hhlo/ir/spmd.h); false when an attribute is of a form
  // kept opaque.
  bool sdy(const Op& op) {
    const std::string& n = op.name();
    auto in = types(op.operands()), got = types(op.results());
    if (n == "sdy.sharding_constraint") {
      const Attribute* a = op.attr("sharding");
      const ShardingAttr* s = a ? a->get_if<ShardingAttr>() : nullptr;
      if (!s) return false;
      if (in.size() != 1) fail_struct(&op, "expects one operand");
      const Mesh* mesh = m_.find_mesh(s->mesh);
      if (!mesh) fail_struct(&op, "names an unknown mesh @" + s->mesh);
      detail::manual_type(*mesh, s->sharding, {}, in[0], false, "sharding_constraint");
      if (got != in)
        detail::fail("sharding_constraint", "", "recorded result types {} differ from {}",
                     types_to_string(got), types_to_string(in));
      return true;
    }
    const Attribute *ia = op.attr("in_shardings"), *oa = op.attr("out_shardings"),
                    *ma = op.attr("manual_axes");
    const auto* ins = ia ? ia->get_if<ShardingPerValueAttr>() : nullptr;
    const auto* outs = oa ? oa->get_if<ShardingPerValueAttr>() : nullptr;
    const auto* axes = ma ? ma->get_if<ManualAxesAttr>() : nullptr;
    if (!ins || !outs || !axes) return false;
    if (op.regions().size() != 1) fail_struct(&op, "needs one region");
    if (ins->shardings.size() != in.size() || outs->shardings.size() != got.size())
      fail_struct(&op, "shardings and values differ in number");
    std::vector<TensorType> local, global;
    for (size_t i = 0; i < in.size(); ++i) {
      const Mesh* mesh = m_.find_mesh(ins->shardings[i].mesh);
      if (!mesh) fail_struct(&op, "names an unknown mesh @" + ins->shardings[i].mesh);
      local.push_back(detail::manual_type(*mesh, ins->shardings[i].sharding, axes->axes, in[i],
                                          false, "manual_computation operand"));
    }
    const Block& body = *op.regions()[0];
    auto args = types(body.args()), ret = body.returned_types();
    if (args != local)
      detail::fail("manual_computation", "", "body takes {}, the per-shard operand types are {}",
                   types_to_string(args), types_to_string(local));
    if (ret.size() != got.size()) fail_struct(&op, "body returns a different number of values");
    for (size_t i = 0; i < ret.size(); ++i) {
      const Mesh* mesh = m_.find_mesh(outs->shardings[i].mesh);
      if (!mesh) fail_struct(&op, "names an unknown mesh @" + outs->shardings[i].mesh);
      global.push_back(detail::manual_type(*mesh, outs->shardings[i].sharding, axes->axes, ret[i],
                                           true, "manual_computation result"));
    }
    if (got != global)
      detail::fail("manual_computation", "", "recorded result types {} differ from {}",
                   types_to_string(got), types_to_string(global));
    return true;
  }

  static std::vector<TensorType> types(const std::vector<Value>& vs) {
    return detail::types_of(vs);
  }

  void check(const Op& op) {
    const std::string& n = op.name();
    auto in = types(op.operands());
    std::vector<TensorType> want;
    if (n == "func.return") {
      if (in != f_.result_types())
        fail_struct(&op, "returns types differing from the function's results");
      return;
    }
    if (n == "stablehlo.return" || n == "sdy.return") return;  // checked by the owning op
    if (n == "sdy.sharding_constraint" || n == "sdy.manual_computation") {
      if (sdy(op)) return;
      if (!o_.allow_unknown_ops) fail_struct(&op, "attributes of a form hhlo does not read");
      return;
    }
    if (o_.allow_unknown_ops && (!known(n) || foreign_terminator(n))) return;
    if (o_.skip_dynamic && n != "func.call" &&
        (is_dynamic(op.operands()) || is_dynamic(op.results())))
      return;
    if (n == "func.call") {
      const Attribute* ca = op.attr("callee");
      const SymbolRefAttr* sym = ca ? ca->get_if<SymbolRefAttr>() : nullptr;
      if (!sym) fail_struct(&op, "missing or mistyped attribute 'callee'");
      const Func* callee = m_.find(sym->name);
      if (!callee) fail_struct(&op, "calls an unknown function");
      if (in != callee->arg_types()) fail_struct(&op, "argument types differ from the callee's");
      want = callee->result_types();
    } else if (!n.starts_with("stablehlo.")) {
      fail_struct(&op, "unknown dialect");
    } else {
      try {
        want = detail::infer_op_results({n, &op.attrs(), &op.regions(), in, types(op.results())});
      } catch (const detail::OpStructureError& e) {
        fail_struct(&op, e.what());
      }
    }
    auto got = types(op.results());
    std::string s = n.substr(n.find('.') + 1);
    std::string_view constraint;
    if (got.size() == 1 && want.size() == 1 && is_elementwise(s, static_cast<int>(in.size())))
      constraint = detail::elementwise_result_constraint(s, got[0].dims != want[0].dims);
    if (got != want)
      detail::fail(s, constraint, "recorded result types {} differ from inferred {}",
                   types_to_string(got), types_to_string(want));
  }

  const Module& m_;
  const Func& f_;
  const VerifyOptions& o_;
  std::unordered_set<uint32_t> defined_;
};

}  // namespace

void verify(const Module& module) { verify(module, VerifyOptions{}); }

void verify(const Module& module, const VerifyOptions& options) {
  if (options.failed_op) *options.failed_op = nullptr;
  for (const auto& f : module.funcs()) {
    Verifier(module, *f, options).run();
    if (options.failed_op) *options.failed_op = nullptr;
  }
}

}  // namespace hhlo
