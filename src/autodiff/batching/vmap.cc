// vmap (JAX's batching interpreter over our IR): the batching-rule registry, the walk over a
// per-example function, and the entry points.
#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "../rule_table.h"
#include "batching.h"
#include "hhlo/autodiff/vjp_registry.h"

namespace hhlo::ad {
namespace {

detail::RuleTable<BatchRule>& batch_registry() {
  static detail::RuleTable<BatchRule> table([](detail::BatchRegistry& r) {
    detail::register_elementwise_batching(r);
    detail::register_shape_batching(r);
    detail::register_dot_general_batching(r);
    detail::register_reduce_batching(r);
    detail::register_convolution_batching(r);
    detail::register_reduce_window_batching(r);
    detail::register_indexing_batching(r);
    detail::register_control_flow_batching(r);
    detail::register_batch_norm_batching(r);
    detail::register_linalg_batching(r);
    detail::register_collectives_batching(r);
  });
  return table;
}

// One vmap walk: per-example value -> batched value, the axis size and the target function.
struct Walk {
  std::unordered_map<Value, Batched> env;
  int64_t axis_size = 0;
  Func* target = nullptr;
  const Module* callees = nullptr;
};
thread_local Walk* current = nullptr;

Walk& walk() {
  if (!current) throw Error("vmap: a batching helper was called outside a vmap walk");
  return *current;
}

std::string where(const Op& op) {
  if (op.loc().file.empty()) return "unknown location";
  return fmt::format("{}:{}", op.loc().file, op.loc().line);
}

bool is_terminator(const Op& op) {
  return op.name() == "stablehlo.return" || op.name() == "func.return";
}

/// The batched form of per-example value `v`. A value of the target function that the walk did
/// not build is one the traced per-example function closed over (it reads it from the enclosing
/// blocks): unbatched, the same for every example (JAX's closed-over constant, in_axes None).
Batched lookup(Value v) {
  auto it = walk().env.find(v);
  if (it != walk().env.end()) return it->second;
  if (&v.func() == walk().target) return {v, false};
  throw Error(
      "vmap: the per-example function reads a value it did not build (it must build only from "
      "its arguments, constants and values of the function of the batched arguments)");
}

const Func& callee_of(const Op& op) {
  const Module* m = walk().callees;
  const Attribute* a = op.attr("callee");
  const auto* s = a ? a->get_if<SymbolRefAttr>() : nullptr;
  if (!s) throw Error(fmt::format("vmap: func.call at {} has no callee", where(op)));
  const Func* f = m ? m->find(s->name) : nullptr;
  if (!f)
    throw Error(fmt::format(
        "vmap: func.call @{} at {}: the callee is unknown (pass the module holding it to vmap)",
        s->name, where(op)));
  return *f;
}

/// A composite: the batching rule registered under "composite:<name>" (called whether or not an
/// input is batched, so it can re-emit the composite in the target's module), else its
/// decomposition batched op by op when an input is batched or the op lives in another module
/// than the target (the decomposition symbol would not resolve there). False: re-emit it as
/// any op with unbatched inputs.
bool composite_batched(const Op& op, const std::vector<Batched>& xs, std::vector<Batched>& out) {
  const Attribute* na = op.attr("name");
  const auto* name = na ? na->get_if<StringAttr>() : nullptr;
  if (const BatchRule* rule = name ? find_batching("composite:" + name->value) : nullptr) {
    out = (*rule)(op, xs, walk().axis_size);
    return true;
  }
  bool any = false;
  for (const Batched& b : xs) any = any || b.batched;
  Module& home = op.result(0).func().module();
  if (!any && &home == &walk().target->module()) return false;
  const Attribute* da = op.attr("decomposition");
  const auto* sym = da ? da->get_if<SymbolRefAttr>() : nullptr;
  const Func* d = sym ? home.find(sym->name) : nullptr;
  if (!d)
    throw Error(
        fmt::format("vmap: composite at {} names no decomposition of its module", where(op)));
  out = detail::batch_block(d->body(), xs);
  return true;
}

}  // namespace

void register_batching(std::string op_name, BatchRule rule) {
  batch_registry().add(std::move(op_name), std::move(rule));
}

const BatchRule* find_batching(std::string_view op_name) { return batch_registry().find(op_name); }

std::vector<std::string> registered_batchings() { return batch_registry().names(); }

void register_custom_batching(std::string target, BatchRule rule) {
  register_batching("custom_call:" + target, std::move(rule));
}

Value materialize(const Batched& b, int64_t n) {
  if (b.batched) return b.value;
  Value v = b.value;
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < v.rank(); ++i) dims.push_back(i + 1);
  return broadcast_in_dim(v, detail::batched_type(v.type(), n).dims, dims);
}

namespace detail {

int64_t axis_size() { return walk().axis_size; }

bool is_batched(Value v) { return lookup(v).batched; }

TensorType batched_type(const TensorType& t, int64_t b) {
  Dims d = t.dims;
  d.insert(d.begin(), b);
  return TensorType(t.dtype, d);
}

std::vector<int64_t> shifted(const std::vector<int64_t>& dims, std::vector<int64_t> front) {
  for (int64_t d : dims) front.push_back(d + 1);
  return front;
}

std::vector<int64_t> i64s(const Op& op, std::string_view name, std::vector<int64_t> dflt) {
  const Attribute* a = op.attr(name);
  if (!a) return dflt;
  if (const auto* v = a->get_if<I64ArrayAttr>()) return v->values;
  unsupported_batching(op, fmt::format("attribute '{}' is not an i64 array", name));
}

void set(std::vector<NamedAttr>& attrs, const std::string& name, Attribute value) {
  for (auto& a : attrs)
    if (a.name == name) {
      a.value = std::move(value);
      return;
    }
  attrs.push_back({name, std::move(value)});
}

Value move_axis(Value x, int64_t from, int64_t to) {
  if (from == to) return x;
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (i != from) perm.push_back(i);
  perm.insert(perm.begin() + to, from);
  return transpose(x, perm);
}

Value axis_into(int64_t src, int64_t dst, Value x) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (i != src) perm.push_back(i);
  perm.insert(perm.begin() + dst, src);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  Value t = identity ? x : transpose(x, perm);
  Dims dims = t.dims();
  dims[dst] *= dims[dst + 1];
  dims.erase(dims.begin() + dst + 1);
  return reshape(t, dims);
}

Value axis_out_of(int64_t src, int64_t size1, Value x) {
  Dims dims = x.dims();
  int64_t rest = dims[src] / size1;
  dims[src] = size1;
  dims.insert(dims.begin() + src + 1, rest);
  return reshape(x, dims);
}

void unsupported_batching(const Op& op, const std::string& why) {
  throw Error(fmt::format("vmap of '{}' at {}: {}", op.name(), where(op), why));
}

RegionBody unbatched_region(const Block& region, const Op& op) {
  return [&region, &op](const std::vector<Value>& args) {
    std::vector<Batched> in;
    for (Value a : args) in.push_back({a, false});
    std::vector<Value> out;
    for (const Batched& b : batch_block(region, in)) {
      if (b.batched)
        unsupported_batching(op,
                             "a region of this op reads a batched value of an enclosing block; "
                             "only while / if / case regions may");
      out.push_back(b.value);
    }
    return out;
  };
}

std::vector<Value> emit(const Op& op, const std::vector<Value>& operands,
                        const std::vector<TensorType>& result_types, std::vector<NamedAttr> attrs) {
  Func& f = *walk().target;
  OpState st;
  st.name = op.name();
  st.operands = operands;
  st.result_types = result_types;
  st.attrs = std::move(attrs);
  st.loc = op.loc();
  for (const auto& r : op.regions()) {
    std::vector<TensorType> types;
    for (Value a : r->args()) types.push_back(a.type());
    st.regions.push_back(f.build_region(op.name(), types, unbatched_region(*r, op), op.loc()));
  }
  return f.append(std::move(st));
}

std::vector<Value> inputs_and_shared_inits(const Op& op, const std::vector<Batched>& xs,
                                           int64_t n) {
  size_t k = xs.size() / 2;
  std::vector<Value> in;
  for (size_t i = 0; i < k; ++i) in.push_back(materialize(xs[i], n));
  for (size_t i = k; i < xs.size(); ++i) {
    if (xs[i].batched)
      unsupported_batching(op, "per-example init values are not supported (JAX neither)");
    in.push_back(xs[i].value);
  }
  return in;
}

std::vector<Batched> emit_batched(const Op& op, const std::vector<Value>& operands, int64_t n,
                                  std::vector<NamedAttr> attrs) {
  std::vector<TensorType> types;
  for (Value r : op.results()) types.push_back(batched_type(r.type(), n));
  std::vector<Batched> out;
  for (Value v : emit(op, operands, types, std::move(attrs))) out.push_back({v, true});
  return out;
}

std::vector<bool> batched_results(const Block& block, const std::vector<bool>& args) {
  std::unordered_map<Value, bool> local;
  for (size_t i = 0; i < args.size(); ++i) local[block.arg(i)] = args[i];
  auto flag = [&](Value v) {
    auto it = local.find(v);
    if (it != local.end()) return it->second;
    auto jt = walk().env.find(v);
    return jt != walk().env.end() && jt->second.batched;
  };
  for (const auto& op : block.ops()) {
    if (is_terminator(*op)) {
      std::vector<bool> out;
      for (Value v : op->operands()) out.push_back(flag(v));
      return out;
    }
    bool any = false;
    for (Value v : op->operands()) any = any || flag(v);
    if (!op->regions().empty())
      for (Value v : captured_values(*op)) any = any || flag(v);
    if (op->name() == "stablehlo.get_dimension_size") any = false;
    for (Value r : op->results()) local[r] = any;
  }
  throw Error("vmap: a block without terminator");
}

std::vector<Batched> batch_block(const Block& block, const std::vector<Batched>& args) {
  Walk& w = walk();
  if (args.size() != block.args().size())
    throw Error(
        fmt::format("vmap: {} arguments for a block of {}", args.size(), block.args().size()));
  for (size_t i = 0; i < args.size(); ++i) w.env.insert_or_assign(block.arg(i), args[i]);
  for (const auto& opp : block.ops()) {
    const Op& op = *opp;
    std::vector<Batched> xs;
    for (Value v : op.operands()) xs.push_back(lookup(v));
    if (is_terminator(op)) return xs;
    std::vector<Batched> out;
    if (op.name() == "func.call") {
      out = batch_block(callee_of(op).body(), xs);
    } else if (op.name() == "stablehlo.composite" && composite_batched(op, xs, out)) {
      // `out` holds the composite's results (its rule's, or its decomposition's batched).
    } else {
      bool any = false;
      for (const Batched& b : xs) any = any || b.batched;
      if (!op.regions().empty())
        for (Value v : captured_values(op)) any = any || lookup(v).batched;
      if (!any) {
        std::vector<Value> vals;
        for (const Batched& b : xs) vals.push_back(b.value);
        std::vector<TensorType> types;
        for (Value r : op.results()) types.push_back(r.type());
        for (Value v : emit(op, vals, types, op.attrs())) out.push_back({v, false});
      } else {
        std::string key = op.name();
        if (key == "stablehlo.custom_call") {
          const Attribute* t = op.attr("call_target_name");
          const auto* s = t ? t->get_if<StringAttr>() : nullptr;
          key = "custom_call:" + (s ? s->value : std::string());
          if (!find_batching(key))
            throw Error(fmt::format(
                "vmap: no batching rule for custom call target '{}' (at {}); register one with "
                "hhlo::ad::register_custom_batching(\"{}\", rule)",
                s ? s->value : "", where(op), s ? s->value : ""));
        }
        const BatchRule* rule = find_batching(key);
        if (!rule)
          throw Error(
              fmt::format("vmap: no batching rule for op '{}' (at {}); register one with "
                          "hhlo::ad::register_batching(\"{}\", rule)",
                          op.name(), where(op), op.name()));
        out = (*rule)(op, xs, w.axis_size);
      }
    }
    if (out.size() != op.results().size())
      throw Error(
          fmt::format("vmap: the batching rule of '{}' (at {}) returned {} values for {} "
                      "results",
                      op.name(), where(op), out.size(), op.results().size()));
    for (size_t i = 0; i < out.size(); ++i) {
      TensorType want =
          out[i].batched ? batched_type(op.result(i).type(), w.axis_size) : op.result(i).type();
      if (out[i].value.type() != want)
        throw Error(fmt::format(
            "vmap: the batching rule of '{}' (at {}) returned {} for result {}, expected {}",
            op.name(), where(op), out[i].value.type().to_string(), i, want.to_string()));
      w.env.insert_or_assign(op.result(i), out[i]);
    }
  }
  throw Error("vmap: a block without terminator");
}

}  // namespace detail

namespace {

int64_t norm_axis(const char* what, size_t i, int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw Error(fmt::format("vmap: {}[{}] = {} is out of range for rank {}", what, i, axis, rank));
  return a;
}

// Restores the enclosing walk (nested vmap) on scope exit.
class WalkScope {
 public:
  explicit WalkScope(Walk* w) : saved_(current) { current = w; }
  ~WalkScope() { current = saved_; }
  WalkScope(const WalkScope&) = delete;
  WalkScope& operator=(const WalkScope&) = delete;

 private:
  Walk* saved_;
};

/// A per-example computation to batch: a function's body, or the region a traced function was
/// built into (whose values may read the enclosing blocks of the target function).
struct PerExample {
  const Block& body;
  std::string_view name;
  const std::vector<TensorType>& arg_types;
};

/// vmap of `fn` over `args` (the checks and the walk shared by both entry points).
std::vector<Value> vmap_block(const PerExample& fn, const std::vector<Value>& args,
                              const std::vector<Axis>& in_axes_, const std::vector<Axis>& out_axes_,
                              const Module* callees) {
  if (args.size() != fn.arg_types.size())
    throw Error(fmt::format("vmap: {} arguments given, the function '{}' takes {}", args.size(),
                            fn.name, fn.arg_types.size()));
  std::vector<Axis> in_axes = in_axes_.empty() ? std::vector<Axis>(args.size(), 0) : in_axes_;
  if (in_axes.size() != args.size())
    throw Error(fmt::format("vmap: {} in_axes for {} arguments", in_axes.size(), args.size()));
  size_t n_out = fn.body.ops().back()->operands().size();
  std::vector<Axis> out_axes = out_axes_.empty() ? std::vector<Axis>(n_out, 0) : out_axes_;
  if (out_axes.size() != n_out)
    throw Error(fmt::format("vmap: {} out_axes for {} results", out_axes.size(), n_out));
  if (args.empty()) throw Error("vmap needs at least one batched argument (no arguments given)");
  Func& target = args[0].func();
  Walk w;
  w.target = &target;
  w.callees = callees;
  int64_t size = -1;
  size_t first = 0;
  std::vector<Batched> in;
  for (size_t i = 0; i < args.size(); ++i) {
    if (&args[i].func() != &target) throw Error("vmap: arguments belong to different functions");
    Value a = args[i];
    if (in_axes[i]) {
      int64_t ax = norm_axis("in_axes", i, *in_axes[i], a.rank());
      if (size >= 0 && a.dim(ax) != size)
        throw Error(fmt::format(
            "vmap got inconsistent sizes for the mapped axes: argument {} has size {} on axis {}, "
            "argument {} has size {}",
            first, size, *in_axes[first], i, a.dim(ax)));
      if (size < 0) {
        size = a.dim(ax);
        first = i;
      }
      a = detail::move_axis(a, ax, 0);
      TensorType per = a.type();
      per.dims.erase(per.dims.begin());
      if (per != fn.arg_types[i])
        throw Error(fmt::format(
            "vmap: argument {} of type {} with in_axes {} gives per-example type {}, the function "
            "'{}' takes {}",
            i, args[i].type().to_string(), *in_axes[i], per.to_string(), fn.name,
            fn.arg_types[i].to_string()));
      in.push_back({a, true});
    } else {
      if (a.type() != fn.arg_types[i])
        throw Error(
            fmt::format("vmap: unbatched argument {} has type {}, the function '{}' takes {}", i,
                        a.type().to_string(), fn.name, fn.arg_types[i].to_string()));
      in.push_back({a, false});
    }
  }
  if (size < 0)
    throw Error("vmap needs at least one batched argument (every in_axes entry is none)");
  w.axis_size = size;
  std::vector<Batched> res;
  {
    WalkScope scope(&w);
    res = detail::batch_block(fn.body, in);
  }
  std::vector<Value> out;
  for (size_t j = 0; j < res.size(); ++j) {
    if (!out_axes[j]) {
      if (res[j].batched)
        throw Error(fmt::format(
            "vmap: out_axes[{}] is none but result {} depends on a batched argument", j, j));
      out.push_back(res[j].value);
      continue;
    }
    Value v = materialize(res[j], size);
    out.push_back(detail::move_axis(v, 0, norm_axis("out_axes", j, *out_axes[j], v.rank())));
  }
  return out;
}

}  // namespace

std::vector<Value> vmap(const Func& fn, const std::vector<Value>& args,
                        const std::vector<Axis>& in_axes, const std::vector<Axis>& out_axes,
                        const Module* callees) {
  if (!fn.returned())
    throw Error(fmt::format("vmap: the function '{}' has not returned yet", fn.name()));
  return vmap_block({fn.body(), fn.name(), fn.arg_types()}, args, in_axes, out_axes, callees);
}

std::vector<Value> vmap(const TraceFn& f, const std::vector<Value>& args,
                        const std::vector<Axis>& in_axes, const std::vector<Axis>& out_axes) {
  if (!in_axes.empty() && in_axes.size() != args.size())
    throw Error(fmt::format("vmap: {} in_axes for {} arguments", in_axes.size(), args.size()));
  if (args.empty()) throw Error("vmap needs at least one batched argument (no arguments given)");
  std::vector<TensorType> per;
  for (size_t i = 0; i < args.size(); ++i) {
    TensorType t = args[i].type();
    Axis ax = in_axes.empty() ? Axis{0} : in_axes[i];
    if (ax) t.dims.erase(t.dims.begin() + norm_axis("in_axes", i, *ax, t.rank()));
    per.push_back(t);
  }
  // Traced into a detached region of the batched arguments' function, so that `f` may read the
  // values of its enclosing blocks (closures; unbatched in the walk); the region is dropped
  // once batched.
  Module& module = args[0].func().module();
  std::size_t funcs_before = module.funcs().size();
  std::unique_ptr<Block> body =
      args[0].func().build_region("vmap", per, f, Location::from(Loc::current()));
  std::vector<Value> out = vmap_block({*body, "vmap body", per}, args, in_axes, out_axes, nullptr);
  body.reset();  // and the functions only its ops called (e.g. unbatched decompositions)
  module.erase_unreferenced_funcs(funcs_before);
  return out;
}

Func& vmap_func(Module& module, std::string name, const std::vector<TensorType>& arg_types,
                const TraceFn& body, const std::vector<Axis>& in_axes,
                const std::vector<Axis>& out_axes) {
  Func& f = module.add_func(std::move(name), arg_types);
  f.ret(vmap(body, f.args(), in_axes, out_axes));
  return f;
}

}  // namespace hhlo::ad
