// custom_jvp / custom_vjp (hhlo/autodiff/custom.h): a call is a `stablehlo.composite`
// "hhlo.custom_jvp" / "hhlo.custom_vjp" with composite_attributes {name, id}; the JVP, VJP and
// batching rules registered here under "composite:hhlo.custom_jvp" / "composite:hhlo.custom_vjp"
// find the user's rules by id in a table of the live rule sets (one entry per CustomJvp /
// CustomVjp, removed when its last copy goes). Under vmap a call becomes a call of a derived rule
// set, the function and its rules vmapped (JAX's custom_jvp / custom_vjp batching), held by the
// original one.
#include "hhlo/autodiff/custom.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "hhlo/autodiff/vmap.h"
#include "rules/rules.h"

namespace hhlo::ad {
namespace detail {

struct CustomRules {
  std::string name;
  bool is_vjp = false;  // custom_vjp (fwd / bwd), else custom_jvp (jvp)
  int64_t id = 0;
  TraceFn fn;
  std::vector<size_t> nondiff;  // custom_jvp's nondiff_argnums
  JvpRuleFn jvp;
  FwdFn fwd;
  BwdFn bwd;
  std::mutex derived_mutex;
  // Batched variants (vmap) by operand batching and per-example types, kept alive here.
  std::unordered_map<std::string, std::shared_ptr<CustomRules>> derived;
};

}  // namespace detail

namespace {

using detail::CustomRules;

const char* kind(const CustomRules& r) { return r.is_vjp ? "custom_vjp" : "custom_jvp"; }

struct Table {
  std::mutex mutex;
  int64_t next_id = 1;
  std::unordered_map<int64_t, CustomRules*> live;
};
Table& table() {
  static Table t;
  return t;
}

void register_rules();

/// A new rule set in the table; it leaves the table when its last owner goes.
std::shared_ptr<CustomRules> new_rules(std::string name, bool is_vjp, TraceFn fn) {
  static std::once_flag once;
  std::call_once(once, register_rules);
  auto* r = new CustomRules;
  r->name = std::move(name);
  r->is_vjp = is_vjp;
  r->fn = std::move(fn);
  Table& t = table();
  std::lock_guard lock(t.mutex);
  r->id = t.next_id++;
  t.live.emplace(r->id, r);
  return std::shared_ptr<CustomRules>(r, [](CustomRules* p) {
    {
      std::lock_guard l(table().mutex);
      table().live.erase(p->id);
    }
    delete p;
  });
}

std::string where(const Op& op) {
  if (op.loc().file.empty()) return "unknown location";
  return fmt::format("{}:{}", op.loc().file, op.loc().line);
}

/// The rule set a composite of ours names (its composite_attributes' id).
CustomRules& rules_of(const Op& op) {
  const Attribute* a = op.attr("composite_attributes");
  const auto* d = a ? a->get_if<DictAttr>() : nullptr;
  int64_t id = 0;
  std::string name = "?";
  if (d)
    for (const auto& [k, v] : d->entries) {
      if (const auto* i = k == "id" ? v.get_if<IntAttr>() : nullptr) id = i->value;
      if (const auto* s = k == "name" ? v.get_if<StringAttr>() : nullptr) name = s->value;
    }
  Table& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.live.find(id);
  if (it == t.live.end())
    throw Error(
        fmt::format("'{}' at {}: the custom rule object of '{}' (id {}) no longer exists; keep the "
                    "ad::CustomJvp / ad::CustomVjp alive until its calls are transformed",
                    op.name(), where(op), name, id));
  return *it->second;
}

/// Checks that `got` (what a user rule returned as `what`) has `want`'s count and types.
void check_types(const CustomRules& r, const char* what, const std::vector<Value>& got,
                 const std::vector<TensorType>& want) {
  if (got.size() != want.size())
    throw Error(fmt::format("{} '{}': {} returned {} values, expected {}", kind(r), r.name, what,
                            got.size(), want.size()));
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i].type() != want[i])
      throw Error(fmt::format("{} '{}': {} value {} has type {}, expected {}", kind(r), r.name,
                              what, i, got[i].type().to_string(), want[i].to_string()));
}

std::vector<TensorType> types_of(const std::vector<Value>& vs) {
  std::vector<TensorType> out;
  for (Value v : vs) out.push_back(v.type());
  return out;
}
std::vector<TensorType> types_of(ValueRange vs) {
  return types_of(std::vector<Value>(vs.begin(), vs.end()));
}

/// Emits a call of `r` on `args`: the composite over a private decomposition traced from r.fn
/// (one per rule set and argument types, shared by the module).
std::vector<Value> call(const CustomRules& r, const std::vector<Value>& args, Loc loc) {
  if (args.empty()) throw Error(fmt::format("{} '{}': called with no arguments", kind(r), r.name));
  for (size_t i : r.nondiff)
    if (i >= args.size())
      throw Error(fmt::format("{} '{}': nondiff_argnums entry {} out of range ({} arguments)",
                              kind(r), r.name, i, args.size()));
  std::vector<TensorType> types = types_of(args);
  std::string fname = fmt::format("hhlo_{}_{}", kind(r), r.id);
  for (const TensorType& t : types) {
    fname += fmt::format("_{}", dtype_name(t.dtype));
    for (int64_t d : t.dims) fname += d < 0 ? "_dyn" : fmt::format("x{}", d);
  }
  Module& module = args[0].func().module();
  const Func* decomposition = module.find(fname);
  if (!decomposition) {
    {  // A trial trace first, so that a failing fn leaves the module unchanged.
      Module scratch;
      Func& s = scratch.add_func("trial", types);
      try {
        s.ret(r.fn(s.args()));
      } catch (const Error& e) {
        throw Error(fmt::format(
            "{} '{}': tracing the function failed (it must build only from its arguments; pass "
            "closed-over values as arguments): {}",
            kind(r), r.name, e.what()));
      }
    }
    Func& g = module.add_func(fname, types, Visibility::private_);
    g.ret(r.fn(g.args()), loc);
    decomposition = &g;
  }
  DictAttr attrs;
  attrs.entries.emplace_back("name", StringAttr{r.name});
  attrs.entries.emplace_back("id", IntAttr{r.id, DType::i64});
  return composite(r.is_vjp ? "hhlo.custom_vjp" : "hhlo.custom_jvp", args, *decomposition,
                   std::move(attrs), 0, loc);
}

/// One zero per value (its type; integers too): the tangents or cotangents a rule gets for
/// symbolic zeros.
Value zero_if_none(const std::optional<Value>& v, Value like) {
  return v ? *v : full_like(like, 0.0);
}

/// custom_jvp's JVP: the user's rule on the operands and their tangents.
std::vector<Tangent> custom_jvp_jvp(const Op& op, const std::vector<Tangent>& ts) {
  CustomRules& r = rules_of(op);
  if (!r.jvp)
    throw Error(
        fmt::format("custom_jvp '{}' (at {}): no JVP rule; call defjvp before "
                    "differentiating it",
                    r.name, where(op)));
  std::vector<Value> primals(op.operands().begin(), op.operands().end()), tangents;
  for (size_t i = 0; i < primals.size(); ++i)
    tangents.push_back(zero_if_none(i < ts.size() ? ts[i] : std::nullopt, primals[i]));
  auto [outs, touts] = r.jvp(primals, tangents);
  check_types(r, "the JVP rule's primal outputs", outs, types_of(op.results()));
  check_types(r, "the JVP rule's tangents", touts, types_of(op.results()));
  return std::vector<Tangent>(touts.begin(), touts.end());
}

/// Why `op`, one of whose operands `active` marks as a tangent, is not linear in the tangents
/// ("" when it is or cannot be told: control flow and custom calls pass).
std::string nonlinear_use(const Op& op, const std::vector<bool>& active) {
  static const std::unordered_set<std::string_view> any_use = {"stablehlo.abs",
                                                               "stablehlo.cbrt",
                                                               "stablehlo.ceil",
                                                               "stablehlo.cosine",
                                                               "stablehlo.exponential",
                                                               "stablehlo.exponential_minus_one",
                                                               "stablehlo.floor",
                                                               "stablehlo.log",
                                                               "stablehlo.log_plus_one",
                                                               "stablehlo.logistic",
                                                               "stablehlo.round_nearest_afz",
                                                               "stablehlo.round_nearest_even",
                                                               "stablehlo.rsqrt",
                                                               "stablehlo.sign",
                                                               "stablehlo.sine",
                                                               "stablehlo.sqrt",
                                                               "stablehlo.tan",
                                                               "stablehlo.tanh",
                                                               "stablehlo.is_finite",
                                                               "stablehlo.power",
                                                               "stablehlo.atan2",
                                                               "stablehlo.maximum",
                                                               "stablehlo.minimum",
                                                               "stablehlo.remainder",
                                                               "stablehlo.compare",
                                                               "stablehlo.clamp",
                                                               "stablehlo.select_and_scatter"};
  std::string_view n = op.name();
  if (any_use.count(n)) return "takes a tangent";
  if (n == "stablehlo.multiply" && active[0] && active[1]) return "multiplies two tangents";
  if (n == "stablehlo.divide" && active[1]) return "divides by a tangent";
  if (n == "stablehlo.sort" && active[0]) return "sorts by a tangent";
  if ((n == "stablehlo.reduce" || n == "stablehlo.reduce_window") && !op.regions().empty()) {
    const auto& body = op.regions()[0]->ops();
    if (body.empty() || body[0]->name() != "stablehlo.add") return "reduces tangents by a non-sum";
  }
  return "";
}

/// Throws when the ops the JVP rule of `r` appended to `block` (from index `start`) use the
/// placeholder tangents `wrt` non-linearly: reverse mode transposes the rule (JAX raises too).
void check_linear(const CustomRules& r, const Block& block, size_t start,
                  const std::vector<Value>& wrt) {
  std::unordered_set<uint32_t> active;
  for (Value w : wrt) active.insert(w.id());
  for (size_t k = start; k < block.ops().size(); ++k) {
    const Op& op = *block.ops()[k];
    std::vector<bool> uses;
    bool any = false;
    for (Value v : op.operands()) {
      uses.push_back(active.count(v.id()) > 0);
      any = any || uses.back();
    }
    if (!any) continue;
    std::string why = nonlinear_use(op, uses);
    if (!why.empty())
      throw Error(fmt::format(
          "custom_jvp '{}': the JVP rule is not linear in the tangents: '{}' (at {}) {}; reverse "
          "mode (grad, vjp, jacrev) transposes the rule, as JAX does, and needs it linear",
          r.name, op.name(), where(op), why));
    for (Value res : op.results()) active.insert(res.id());
  }
}

/// custom_jvp's VJP: the transpose of the user's JVP rule (linear in the tangents), by the
/// reverse walk over the rule built on placeholder (zero) tangents of the float operands.
std::vector<Cotangent> custom_jvp_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  CustomRules& r = rules_of(op);
  if (!r.jvp)
    throw Error(
        fmt::format("custom_jvp '{}' (at {}): no JVP rule; call defjvp before "
                    "differentiating it",
                    r.name, where(op)));
  std::vector<Value> primals(op.operands().begin(), op.operands().end()), dxs, wrt;
  std::vector<size_t> slots;
  for (size_t i = 0; i < primals.size(); ++i) {
    dxs.push_back(full_like(primals[i], 0.0));
    bool nondiff = std::find(r.nondiff.begin(), r.nondiff.end(), i) != r.nondiff.end();
    if (detail::is_inexact(primals[i].dtype()) && !nondiff) {
      wrt.push_back(dxs.back());
      slots.push_back(i);
    }
  }
  const Block& block = primals[0].func().insertion_block();
  size_t start = block.ops().size();
  auto [outs, touts] = r.jvp(primals, dxs);
  check_linear(r, block, start, wrt);
  check_types(r, "the JVP rule's primal outputs", outs, types_of(op.results()));
  check_types(r, "the JVP rule's tangents", touts, types_of(op.results()));
  std::vector<Value> ys;
  std::vector<Cotangent> gs;
  for (size_t i = 0; i < touts.size() && i < cts.size(); ++i)
    if (cts[i] && detail::is_inexact(touts[i].dtype())) {
      ys.push_back(touts[i]);
      gs.push_back(cts[i]);
    }
  std::vector<Cotangent> out(primals.size());
  if (ys.empty() || wrt.empty()) return out;
  std::vector<Value> g = vjp(ys, Wrt{wrt}, Cotangents{gs});
  for (size_t k = 0; k < slots.size(); ++k) out[slots[k]] = g[k];
  return out;
}

/// custom_vjp's VJP: fwd replayed here for the residuals, then the user's bwd.
std::vector<Cotangent> custom_vjp_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  CustomRules& r = rules_of(op);
  if (!r.fwd || !r.bwd)
    throw Error(
        fmt::format("custom_vjp '{}' (at {}): no VJP rule; call defvjp before "
                    "differentiating it",
                    r.name, where(op)));
  std::vector<Value> primals(op.operands().begin(), op.operands().end());
  auto [outs, residuals] = r.fwd(primals);
  check_types(r, "fwd's outputs", outs, types_of(op.results()));
  std::vector<Value> g;
  for (size_t i = 0; i < outs.size(); ++i)
    g.push_back(zero_if_none(i < cts.size() ? cts[i] : std::nullopt, outs[i]));
  std::vector<Cotangent> got = r.bwd(residuals, g);
  if (got.size() != primals.size())
    throw Error(fmt::format("custom_vjp '{}': bwd returned {} cotangents for {} primals", r.name,
                            got.size(), primals.size()));
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i]) continue;
    if (got[i]->type() != primals[i].type())
      throw Error(fmt::format("custom_vjp '{}': bwd's cotangent {} has type {}, expected {}",
                              r.name, i, got[i]->type().to_string(),
                              primals[i].type().to_string()));
    if (!detail::is_inexact(primals[i].dtype())) got[i].reset();
  }
  return got;
}

std::vector<Tangent> custom_vjp_jvp(const Op& op, const std::vector<Tangent>&) {
  throw Error(fmt::format(
      "jvp: can't apply forward-mode autodiff (jvp) to custom_vjp function '{}' (at {}), as in "
      "JAX; use ad::CustomJvp for a rule that forward mode (jvp, jacfwd, hvp, hessian) can use",
      rules_of(op).name, where(op)));
}

// ---- vmap: the call of a derived rule set, the function and its rules vmapped ----

/// in_axes of a vmapped rule: 0 for a batched operand, none for an unbatched one.
std::vector<Axis> axes_of(const std::vector<bool>& batched) {
  std::vector<Axis> out;
  for (bool b : batched) out.push_back(b ? Axis{0} : std::nullopt);
  return out;
}

/// `fn` vmapped over the operands (in_axes from `batched`), every result batched.
TraceFn vmapped(TraceFn fn, std::vector<bool> batched) {
  return [fn = std::move(fn), batched](const std::vector<Value>& args) {
    return vmap(fn, args, axes_of(batched));
  };
}

/// custom_jvp's rule vmapped: primals and tangents share in_axes.
JvpRuleFn vmapped_jvp(JvpRuleFn jvp, std::vector<bool> batched) {
  return [jvp = std::move(jvp), batched](const std::vector<Value>& p, const std::vector<Value>& t) {
    size_t n = 0;
    std::vector<Value> both = p;
    both.insert(both.end(), t.begin(), t.end());
    std::vector<Axis> axes = axes_of(batched), ta = axes;
    axes.insert(axes.end(), ta.begin(), ta.end());
    std::vector<Value> res = vmap(
        [&](const std::vector<Value>& a) {
          std::vector<Value> pa(a.begin(), a.begin() + static_cast<long>(p.size()));
          std::vector<Value> tb(a.begin() + static_cast<long>(p.size()), a.end());
          auto [o, to] = jvp(pa, tb);
          n = o.size();
          o.insert(o.end(), to.begin(), to.end());
          return o;
        },
        both, axes);
    return std::pair{std::vector<Value>(res.begin(), res.begin() + static_cast<long>(n)),
                     std::vector<Value>(res.begin() + static_cast<long>(n), res.end())};
  };
}

/// custom_vjp's fwd vmapped: outputs and residuals batched.
FwdFn vmapped_fwd(FwdFn fwd, std::vector<bool> batched) {
  return [fwd = std::move(fwd), batched](const std::vector<Value>& p) {
    size_t n = 0;
    std::vector<Value> res = vmap(
        [&](const std::vector<Value>& a) {
          auto [o, r] = fwd(a);
          n = o.size();
          o.insert(o.end(), r.begin(), r.end());
          return o;
        },
        p, axes_of(batched));
    return std::pair{std::vector<Value>(res.begin(), res.begin() + static_cast<long>(n)),
                     std::vector<Value>(res.begin() + static_cast<long>(n), res.end())};
  };
}

/// custom_vjp's bwd vmapped over batched residuals and cotangents; the cotangent of an unbatched
/// primal is summed over the batch (JAX's custom_vjp batching). `primals`: the per-example types.
BwdFn vmapped_bwd(BwdFn bwd, std::vector<bool> batched, std::vector<TensorType> primals) {
  return [bwd = std::move(bwd), batched, primals](const std::vector<Value>& res,
                                                  const std::vector<Value>& cts) {
    std::vector<Value> both = res;
    both.insert(both.end(), cts.begin(), cts.end());
    std::vector<bool> given(primals.size());
    std::vector<Value> g = vmap(
        [&](const std::vector<Value>& a) {
          std::vector<Value> ra(a.begin(), a.begin() + static_cast<long>(res.size()));
          std::vector<Value> ca(a.begin() + static_cast<long>(res.size()), a.end());
          std::vector<Cotangent> c = bwd(ra, ca);
          if (c.size() != primals.size())
            throw Error(fmt::format("custom_vjp: bwd returned {} cotangents for {} primals",
                                    c.size(), primals.size()));
          std::vector<Value> out;
          for (size_t i = 0; i < c.size(); ++i) {
            given[i] = c[i].has_value();
            out.push_back(c[i] ? *c[i]
                               : constant(a[0].func(), 0.0, primals[i].dtype, primals[i].dims));
          }
          return out;
        },
        both);
    std::vector<Cotangent> out;
    for (size_t i = 0; i < g.size(); ++i) {
      if (!given[i])
        out.emplace_back();
      else
        out.emplace_back(batched[i] ? g[i] : reduce_sum(g[i], {0}));
    }
    return out;
  };
}

/// The rule set `r` batched for operands batched as `batched` (per-example types `per_example`),
/// made once per both and held by `r`. The rules are those of `r` at the first vmap.
std::shared_ptr<CustomRules> derived(CustomRules& r, const std::vector<bool>& batched,
                                     const std::vector<TensorType>& per_example) {
  std::string key;
  for (size_t i = 0; i < batched.size(); ++i)
    key += fmt::format("{}{};", batched[i] ? "b" : "u", per_example[i].to_string());
  std::lock_guard lock(r.derived_mutex);
  auto& d = r.derived[key];
  if (!d) {
    d = new_rules(r.name + "/vmap", r.is_vjp, vmapped(r.fn, batched));
    d->nondiff = r.nondiff;
    if (r.jvp) d->jvp = vmapped_jvp(r.jvp, batched);
    if (r.fwd) d->fwd = vmapped_fwd(r.fwd, batched);
    if (r.bwd) d->bwd = vmapped_bwd(r.bwd, batched, per_example);
  }
  return d;
}

std::vector<Batched> custom_batch(const Op& op, const std::vector<Batched>& xs, int64_t) {
  CustomRules& r = rules_of(op);
  std::vector<Value> vals;
  std::vector<bool> batched;
  bool any = false;
  for (const Batched& b : xs) {
    vals.push_back(b.value);
    batched.push_back(b.batched);
    any = any || b.batched;
  }
  std::vector<Batched> out;
  if (!any) {  // re-emitted in the target's module
    for (Value v : call(r, vals, Loc::current())) out.push_back({v, false});
    return out;
  }
  auto d = derived(r, batched, types_of(op.operands()));
  for (Value v : call(*d, vals, Loc::current())) out.push_back({v, true});
  return out;
}

void register_rules() {
  register_jvp("composite:hhlo.custom_jvp", custom_jvp_jvp);
  register_vjp("composite:hhlo.custom_jvp", custom_jvp_vjp);
  register_jvp("composite:hhlo.custom_vjp", custom_vjp_jvp);
  register_vjp("composite:hhlo.custom_vjp", custom_vjp_vjp);
  register_batching("composite:hhlo.custom_jvp", custom_batch);
  register_batching("composite:hhlo.custom_vjp", custom_batch);
}

}  // namespace

CustomJvp::CustomJvp(std::string name, TraceFn fn, std::vector<size_t> nondiff_argnums)
    : rules_(new_rules(std::move(name), false, std::move(fn))) {
  std::sort(nondiff_argnums.begin(), nondiff_argnums.end());
  if (std::adjacent_find(nondiff_argnums.begin(), nondiff_argnums.end()) != nondiff_argnums.end())
    throw Error(fmt::format("custom_jvp '{}': repeated index in nondiff_argnums", rules_->name));
  rules_->nondiff = std::move(nondiff_argnums);
}

CustomJvp& CustomJvp::defjvp(JvpRuleFn rule) {
  if (!rules_->nondiff.empty())
    throw Error(
        fmt::format("custom_jvp '{}': it has nondiff_argnums, so its rule takes (nondiff, primals, "
                    "tangents), as JAX's",
                    rules_->name));
  rules_->jvp = std::move(rule);
  return *this;
}

CustomJvp& CustomJvp::defjvp(JvpRuleNondiffFn rule) {
  if (rules_->nondiff.empty())
    throw Error(fmt::format(
        "custom_jvp '{}': a rule taking (nondiff, primals, tangents) needs nondiff_argnums",
        rules_->name));
  // The rule over all arguments: the nondiff ones apart, the others with their tangents.
  rules_->jvp = [rule = std::move(rule), nd = rules_->nondiff](const std::vector<Value>& p,
                                                               const std::vector<Value>& t) {
    std::vector<Value> nondiff, primals, tangents;
    for (size_t i = 0; i < p.size(); ++i) {
      if (std::binary_search(nd.begin(), nd.end(), i)) {
        nondiff.push_back(p[i]);
      } else {
        primals.push_back(p[i]);
        tangents.push_back(t[i]);
      }
    }
    return rule(nondiff, primals, tangents);
  };
  return *this;
}

std::vector<Value> CustomJvp::operator()(const std::vector<Value>& args, Loc loc) const {
  return call(*rules_, args, loc);
}

CustomVjp::CustomVjp(std::string name, TraceFn fn)
    : rules_(new_rules(std::move(name), true, std::move(fn))) {}

CustomVjp& CustomVjp::defvjp(FwdFn fwd, BwdFn bwd) {
  rules_->fwd = std::move(fwd);
  rules_->bwd = std::move(bwd);
  return *this;
}

std::vector<Value> CustomVjp::operator()(const std::vector<Value>& args, Loc loc) const {
  return call(*rules_, args, loc);
}

}  // namespace hhlo::ad
