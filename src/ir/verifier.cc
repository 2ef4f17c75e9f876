// The module verifier: re-runs each op's shape rule on its recorded operands and attributes.
#include "hhlo/ir/verifier.h"

#include <fmt/format.h>

#include <algorithm>

#include "hhlo/ir/infer.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/spmd.h"
#include "infer_op.h"
#include "infer_util.h"
#include "op_descriptor.h"
#include "stablehlo_names.h"

namespace hhlo {
namespace {

class Verifier {
 public:
  Verifier(const Module& m, const Func& f, const VerifyOptions& o) : m_(m), f_(f), o_(o) {}

  void run() {
    if (!f_.returned()) fail_struct(nullptr, "has no func.return");
    for (const Value& a : f_.args()) mark(a);
    block(f_.body(), true);
  }

 private:
  [[noreturn]] void fail_struct(const Op* op, const std::string& what) const {
    throw Error(fmt::format("verify: function @{}{}: {}", f_.name(),
                            op ? " op '" + op->name() + "'" : std::string(), what));
  }

  // Values defined so far, by id (ids are dense within a function); `added_` lists them in
  // definition order so that leaving a region forgets the values defined inside it.
  void mark(const Value& v) {
    uint32_t id = v.id();
    if (id >= defined_.size()) defined_.resize(std::max<size_t>(id + 1, 2 * defined_.size()), 0);
    if (!defined_[id]) {
      defined_[id] = 1;
      added_.push_back(id);
    }
  }
  bool is_defined(const Value& v) const { return v.id() < defined_.size() && defined_[v.id()]; }

  void block(const Block& b, bool is_body) {
    const auto& ops = b.ops();
    if (ops.empty()) fail_struct(nullptr, "empty block");
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = *ops[i];
      std::string_view n = op.name();
      bool last = i + 1 == ops.size();
      if (o_.failed_op) *o_.failed_op = &op;
      bool term = n == "func.return" || n == "stablehlo.return" ||
                  (!is_body && n == "sdy.return") ||
                  (o_.allow_unknown_ops && !is_body && foreign_terminator(n));
      if (term != last)
        fail_struct(&op,
                    last ? "block does not end in a return" : "return before the end of a block");
      if (term && (n == "func.return") != is_body && !foreign_terminator(n))
        fail_struct(&op, is_body ? "function body must end in func.return"
                                 : "region must end in stablehlo.return");
      for (const Value& v : op.operands()) {
        if (!v.valid() || &v.func() != &f_ || !is_defined(v))
          fail_struct(&op, "uses a value not defined before it in this function");
      }
      for (const auto& r : op.regions()) {
        // Values of a region are visible only inside it.
        size_t mark_at = added_.size();
        for (const Value& a : r->args()) mark(a);
        block(*r, false);
        for (size_t k = mark_at; k < added_.size(); ++k) defined_[added_[k]] = 0;
        added_.resize(mark_at);
      }
      if (o_.failed_op) *o_.failed_op = &op;
      check(op);
      for (const Value& v : op.results()) mark(v);
    }
  }

  static bool foreign_terminator(std::string_view n) {
    return !n.starts_with("stablehlo.") && !n.starts_with("func.") &&
           (n.ends_with(".return") || n.ends_with(".yield"));
  }
  static bool is_dynamic(const std::vector<Value>& vs) {
    for (const Value& v : vs)
      if (!v.type().is_static()) return true;
    return false;
  }
  static bool known(std::string_view n) { return detail::find_op_descriptor(n) != nullptr; }

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
  static bool same_types(const std::vector<Value>& vs, const std::vector<TensorType>& ts) {
    if (vs.size() != ts.size()) return false;
    for (size_t i = 0; i < vs.size(); ++i)
      if (vs[i].type() != ts[i]) return false;
    return true;
  }

  void check(const Op& op) {
    std::string_view n = op.name();
    if (n == "func.return") {
      if (!same_types(op.operands(), f_.result_types()))
        fail_struct(&op, "returns types differing from the function's results");
      return;
    }
    if (n == "stablehlo.return" || n == "sdy.return") return;  // checked by the owning op
    if (n == "sdy.sharding_constraint" || n == "sdy.manual_computation") {
      if (sdy(op)) return;
      if (!o_.allow_unknown_ops) fail_struct(&op, "attributes of a form hhlo does not read");
      return;
    }
    if (n.starts_with("stablehlo.") && !detail::is_stablehlo_op(n))
      fail_struct(&op, "is not an op of the StableHLO dialect (StablehloOps.td): check its name");
    if (o_.allow_unknown_ops && (!known(n) || foreign_terminator(n))) return;
    if (o_.skip_dynamic && n != "func.call" &&
        (is_dynamic(op.operands()) || is_dynamic(op.results())))
      return;
    std::vector<TensorType> want;
    if (n == "func.call") {
      const Attribute* ca = op.attr("callee");
      const SymbolRefAttr* sym = ca ? ca->get_if<SymbolRefAttr>() : nullptr;
      if (!sym) fail_struct(&op, "missing or mistyped attribute 'callee'");
      const Func* callee = m_.find(sym->name);
      if (!callee) fail_struct(&op, "calls an unknown function");
      if (!same_types(op.operands(), callee->arg_types()))
        fail_struct(&op, "argument types differ from the callee's");
      want = callee->result_types();
      if (!same_types(op.results(), want)) mismatch(n, op, types(op.results()), want);
      return;
    }
    if (n == "stablehlo.composite") {
      // The spec's (C2)-(C4): the decomposition is a function of the module, the inputs and
      // results have its parameter and result types.
      const Attribute* da = op.attr("decomposition");
      const SymbolRefAttr* sym = da ? da->get_if<SymbolRefAttr>() : nullptr;
      const Attribute* na = op.attr("name");
      if (!sym || !na || !na->get_if<StringAttr>())
        fail_struct(&op, "missing or mistyped attribute 'name' or 'decomposition'");
      const Func* d = m_.find(sym->name);
      if (!d) fail_struct(&op, "names an unknown decomposition function");
      if (!same_types(op.operands(), d->arg_types()))
        detail::fail("composite", "C3", "inputs {} differ from @{} parameters {}",
                     types_to_string(types(op.operands())), d->name(),
                     types_to_string(d->arg_types()));
      want = d->result_types();
      if (!same_types(op.results(), want)) mismatch(n, op, types(op.results()), want);
      return;
    }
    if (!n.starts_with("stablehlo.")) fail_struct(&op, "unknown dialect");
    // One copy of the operand and result types, shared by the shape rule and the comparison, in
    // buffers reused from op to op (copy-assigning a type reuses its dims storage).
    fill(in_buf_, op.operands());
    fill(res_buf_, op.results());
    detail::OpInfo info{n, &op.attrs(), &op.regions(), std::move(in_buf_), std::move(res_buf_)};
    try {
      want = detail::infer_op_results(info);
    } catch (const detail::OpStructureError& e) {
      fail_struct(&op, e.what());
    }
    bool differ = info.results != want;
    in_buf_ = std::move(info.operands);
    res_buf_ = std::move(info.results);
    if (differ) mismatch(n, op, res_buf_, want);
  }

  static void fill(std::vector<TensorType>& out, const std::vector<Value>& vs) {
    out.resize(vs.size());
    for (size_t i = 0; i < vs.size(); ++i) out[i] = vs[i].type();
  }

  [[noreturn]] static void mismatch(std::string_view n, const Op& op,
                                    const std::vector<TensorType>& got,
                                    const std::vector<TensorType>& want) {
    std::string_view s = n.substr(n.find('.') + 1);
    std::string_view constraint;
    int arity = static_cast<int>(op.operands().size());
    if (got.size() == 1 && want.size() == 1 && is_elementwise(s, arity))
      constraint = detail::elementwise_result_constraint(s, got[0].dims != want[0].dims);
    detail::fail(s, constraint, "recorded result types {} differ from inferred {}",
                 types_to_string(got), types_to_string(want));
  }

  const Module& m_;
  const Func& f_;
  const VerifyOptions& o_;
  std::vector<TensorType> in_buf_, res_buf_;
  std::vector<uint8_t> defined_;
  std::vector<uint32_t> added_;
};

}  // namespace

void verify(const Module& module) { verify(module, VerifyOptions{}); }

void verify(const Module& module, const VerifyOptions& options) {
  if (options.failed_op) *options.failed_op = nullptr;
  detail::check_no_call_cycle(module, options.failed_op);
  for (const auto& f : module.funcs()) {
    Verifier(module, *f, options).run();
    if (options.failed_op) *options.failed_op = nullptr;
  }
}

}  // namespace hhlo
