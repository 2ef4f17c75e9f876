// VJP and JVP of stablehlo.reduce_window with one input. An add body (sum pooling, cumsum: JAX
// _reduce_window_sum_transpose_rule, a padded reduce_window of the cotangent) has its rule for
// every window. A multiply, logaddexp, maximum or minimum body over a prefix window (one axis of
// size n reduced by a window of size n with padding (n - 1, 0), or a suffix window, padding (0,
// n - 1); strides and dilations 1: what jnp.cumprod / cumlogsumexp / cummax / cummin and
// lax.cum* lower to on CPU, cumred_reduce_window_impl) is differentiated as JAX differentiates the
// cumulative primitives (_cumulative_jvp_rule): the derivative of the parallel prefix scan
// `associative_scan(combine, x)` (lax/control_flow/loops.py), replayed here out of slices, pads
// and the combine's elementwise ops, so zeros in a cumprod and ties in a cummax get JAX's values
// and every higher order follows from the ordinary rules. Other maximum / minimum windows (max
// pooling) route each window's cotangent to the element it chose with
// stablehlo.select_and_scatter, as XLA's MaxPoolGrad; multiply and logaddexp over any other
// window, and other bodies, have no rule (an error naming the op).
#include <cmath>
#include <complex>
#include <limits>

#include "rules.h"

namespace hhlo::ad::detail {
namespace {

std::string single_body_op(const Op& op) {
  const Block& b = *op.regions().at(0);
  std::vector<const Op*> real;
  for (const auto& o : b.ops())
    if (o->name() != "stablehlo.return") real.push_back(o.get());
  if (real.size() != 1) return "";
  return real[0]->name();
}

// The body's kind: "add", "multiply", "maximum", "minimum" (one op of that name), "logaddexp"
// (the op sequence of jax.lax.logaddexp for real floats, the body of jnp.cumlogsumexp and of
// np::cumlogsumexp), else "".
std::string body_kind(const Op& op) {
  std::string one = single_body_op(op);
  for (const char* k : {"add", "multiply", "maximum", "minimum"})
    if (one == std::string("stablehlo.") + k) return k;
  static const std::vector<std::string> logaddexp = {
      "stablehlo.maximum", "stablehlo.subtract", "stablehlo.compare",     "stablehlo.add",
      "stablehlo.abs",     "stablehlo.negate",   "stablehlo.exponential", "stablehlo.log_plus_one",
      "stablehlo.add",     "stablehlo.select",   "stablehlo.return"};
  const Block& b = *op.regions().at(0);
  if (b.ops().size() != logaddexp.size()) return "";
  for (size_t i = 0; i < logaddexp.size(); ++i)
    if (b.ops()[i]->name() != logaddexp[i]) return "";
  return "logaddexp";
}

int64_t dilate(int64_t s, int64_t d) { return s == 0 ? 0 : 1 + d * (s - 1); }

// The window attributes of a reduce_window, with the spec's defaults for absent ones.
struct Window {
  std::vector<int64_t> dims, strides, base_dil, win_dil;
  std::vector<std::pair<int64_t, int64_t>> padding;
};
Window window_of(const Op& op) {
  Window w;
  w.dims = op.attr("window_dimensions")->get_if<I64ArrayAttr>()->values;
  size_t r = w.dims.size();
  auto attr = [&](const char* n, int64_t dflt) {
    const Attribute* a = op.attr(n);
    const auto* v = a ? a->get_if<I64ArrayAttr>() : nullptr;
    return v ? v->values : std::vector<int64_t>(r, dflt);
  };
  w.strides = attr("window_strides", 1);
  w.base_dil = attr("base_dilations", 1);
  w.win_dil = attr("window_dilations", 1);
  w.padding.assign(r, {0, 0});
  if (const Attribute* a = op.attr("padding"))
    if (const auto* d = a->get_if<DenseAttr>()) {
      auto pv = d->array->to_vector<int64_t>();
      for (size_t i = 0; i + 1 < pv.size() && i / 2 < r; i += 2)
        w.padding[i / 2] = {pv[i], pv[i + 1]};
    }
  return w;
}

// A cumulative window: output i of `axis` reduces the inputs 0..i (or i..n-1 when `reverse`).
// axis -1: every window holds one element (the op is the identity for an identity init).
struct Cumulative {
  int64_t axis = -1;
  bool reverse = false;
};
std::optional<Cumulative> cumulative_window(const Window& w, Value x) {
  Cumulative c;
  for (size_t i = 0; i < w.dims.size(); ++i) {
    if (w.strides[i] != 1 || w.base_dil[i] != 1 || w.win_dil[i] != 1) return std::nullopt;
    int64_t n = x.dim(static_cast<int64_t>(i));
    if (w.dims[i] == 1 && w.padding[i] == std::pair<int64_t, int64_t>{0, 0}) continue;
    if (c.axis >= 0 || w.dims[i] != n || n < 2) return std::nullopt;
    if (w.padding[i] == std::pair<int64_t, int64_t>{n - 1, 0})
      c.reverse = false;
    else if (w.padding[i] == std::pair<int64_t, int64_t>{0, n - 1})
      c.reverse = true;
    else
      return std::nullopt;
    c.axis = static_cast<int64_t>(i);
  }
  return c;
}

// The value of `v` when it is a splat constant (looking through broadcast_in_dim, reshape and
// convert, as JAX's init values are written), else nullopt.
std::optional<double> splat_value(Value v) {
  for (const Op* d = v.defining_op(); d;
       d = d->operands().empty() ? nullptr : d->operands()[0].defining_op()) {
    if (d->name() == "stablehlo.constant") {
      const auto* dense = d->attr("value")->get_if<DenseAttr>();
      if (!dense || dense->array->num_elements() == 0) return std::nullopt;
      if (is_complex(dense->array->dtype())) {  // a real splat only: imaginary parts all 0
        const Array& arr = *dense->array;
        for (int64_t i = 0; i < arr.num_elements(); ++i) {
          double im = arr.dtype() == DType::c64
                          ? static_cast<const std::complex<float>*>(arr.data())[i].imag()
                          : static_cast<const std::complex<double>*>(arr.data())[i].imag();
          if (im != 0) return std::nullopt;
        }
      }
      double first = dense->array->element_as_double(0);
      for (int64_t i = 1; i < dense->array->num_elements(); ++i) {
        double e = dense->array->element_as_double(i);
        if (!(e == first || (std::isnan(e) && std::isnan(first)))) return std::nullopt;
      }
      return first;
    }
    if (d->name() != "stablehlo.broadcast_in_dim" && d->name() != "stablehlo.reshape" &&
        d->name() != "stablehlo.convert")
      return std::nullopt;
  }
  return std::nullopt;
}

double identity_of(const std::string& kind) {
  double inf = std::numeric_limits<double>::infinity();
  if (kind == "multiply") return 1.0;
  if (kind == "minimum") return inf;
  return -inf;  // maximum, logaddexp
}

using Combine = std::function<Value(Value, Value)>;

// The combine function of JAX's cumulative op for `kind`. logaddexp is written as
// hi + log1p(exp(lo - hi)) with hi = max(a, b), lo = min(a, b) (NaN-guarded as jax.lax.logaddexp),
// so that the ordinary rules give its custom_jvp's derivative exp(a - out), also at ties, where the
// max / min tie splits cancel.
Combine combine_of(const std::string& kind) {
  if (kind == "multiply") return [](Value a, Value b) { return multiply(a, b); };
  if (kind == "maximum") return [](Value a, Value b) { return maximum(a, b); };
  if (kind == "minimum") return [](Value a, Value b) { return minimum(a, b); };
  return [](Value a, Value b) {
    Value hi = maximum(a, b), lo = minimum(a, b);
    Value d = subtract(lo, hi);
    Value nan = compare(d, d, ComparisonDirection::NE);
    return select(nan, add(a, b), add(hi, log_plus_one(exponential(d))));
  };
}

Value slice_axis(Value v, int64_t axis, int64_t start, int64_t limit, int64_t stride) {
  std::vector<int64_t> s(static_cast<size_t>(v.rank()), 0), l = v.dims(),
                                                            st(static_cast<size_t>(v.rank()), 1);
  s[static_cast<size_t>(axis)] = start;
  l[static_cast<size_t>(axis)] = limit;
  st[static_cast<size_t>(axis)] = stride;
  return slice(v, s, l, st);
}

// JAX's _interleave: a[0], b[0], a[1], b[1], ... along `axis` (a one longer than b, or equal).
Value interleave(Value a, Value b, int64_t axis) {
  size_t r = static_cast<size_t>(a.rank()), ax = static_cast<size_t>(axis);
  bool same = a.dim(axis) == b.dim(axis);
  std::vector<int64_t> alo(r, 0), ahi(r, 0), blo(r, 0), bhi(r, 0), in(r, 0);
  in[ax] = 1;
  ahi[ax] = same ? 1 : 0;
  blo[ax] = 1;
  bhi[ax] = same ? 0 : 1;
  Value z = constant(a.func(), 0.0, a.dtype());
  return add(pad(a, z, alo, ahi, in), pad(b, z, blo, bhi, in));
}

// JAX's associative_scan(fn, elems, axis) for one array (the same recursion, so the same tree of
// combines): element k is fn over elements 0..k.
Value associative_scan(const Combine& fn, Value e, int64_t axis) {
  int64_t n = e.dim(axis);
  if (n < 2) return e;
  Value reduced = fn(slice_axis(e, axis, 0, n - 1, 2), slice_axis(e, axis, 1, n, 2));
  Value odd = associative_scan(fn, reduced, axis);
  int64_t m = odd.dim(axis);
  std::vector<Value> even = {slice_axis(e, axis, 0, 1, 1)};
  if (n % 2 == 0) {
    if (m > 1) even.push_back(fn(slice_axis(odd, axis, 0, m - 1, 1), slice_axis(e, axis, 2, n, 2)));
  } else {
    even.push_back(fn(odd, slice_axis(e, axis, 2, n, 2)));
  }
  Value ev = even.size() == 1 ? even[0] : concatenate(even, axis);
  return interleave(ev, odd, axis);
}

// The cumulative reduction of a reduce_window `op` with a cumulative window `c` and body `kind`,
// rebuilt from `x` as JAX's associative_scan (reversed for a suffix window).
Value replay_cumulative(const std::string& kind, const Cumulative& c, Value x) {
  if (c.axis < 0) return x;
  Combine fn = combine_of(kind);
  if (!c.reverse) return associative_scan(fn, x, c.axis);
  return reverse(associative_scan(fn, reverse(x, {c.axis}), c.axis), {c.axis});
}

// Whether `op` (kind multiply / logaddexp / maximum / minimum) is a cumulative reduction JAX's
// rule covers: a cumulative window and the body's identity as init. Throws for multiply and
// logaddexp otherwise; returns nullopt for max / min over another window (pooling).
std::optional<Cumulative> cumulative_op(const Op& op, const std::string& kind, const char* mode) {
  Value x = op.operands()[0], init = op.operands()[1];
  std::optional<Cumulative> c = cumulative_window(window_of(op), x);
  bool pooling_ok = kind == "maximum" || kind == "minimum";
  if (!c) {
    if (pooling_ok) return std::nullopt;
    unsupported(
        op,
        fmt::format("a reduce_window with a {} body is differentiable over a cumulative "
                    "window only (jnp.cum{}: one axis of size n, window n, padding (n-1, 0) "
                    "or (0, n-1), strides and dilations 1)",
                    kind, kind == "multiply" ? "prod" : "logsumexp"),
        mode);
  }
  std::optional<double> v = splat_value(init);
  double id = identity_of(kind);
  if (!v || *v != id) {
    if (pooling_ok) return std::nullopt;  // pooling with another init: select_and_scatter
    unsupported(op,
                fmt::format("the init value of a cumulative reduce_window with a {} body must be "
                            "the constant {} (its identity), as JAX emits",
                            kind, id),
                mode);
  }
  return c;
}

}  // namespace

void register_reduce_window_rules(Registry& r) {
  r["stablehlo.reduce_window"] = [](const Op& op, const std::vector<Cotangent>& cts) {
    if (op.operands().size() != 2)
      unsupported(op, "only single-input reduce_window is differentiable");
    std::vector<Cotangent> out(2);
    if (!cts[0]) return out;
    Value x = op.operands()[0], g = *cts[0];
    std::string kind = body_kind(op);
    if (kind.empty())
      unsupported(op,
                  "the reduce_window body is not a single add / multiply / maximum / minimum or "
                  "jax.lax.logaddexp");
    if (kind == "add") {
      Window w = window_of(op);
      std::vector<int64_t> lo, hi, interior;
      for (size_t i = 0; i < w.dims.size(); ++i) {
        int64_t ld = dilate(x.dim(static_cast<int64_t>(i)), w.base_dil[i]),
                rd = dilate(w.dims[i], w.win_dil[i]);
        int64_t od = dilate(g.dim(static_cast<int64_t>(i)), w.strides[i]);
        int64_t before = rd - w.padding[i].first - 1;
        lo.push_back(before);
        hi.push_back(ld + rd - 1 - od - before);
        interior.push_back(w.strides[i] - 1);
      }
      Value padded = pad(g, constant(g.func(), 0.0, g.dtype()), lo, hi, interior);
      WindowOptions o;
      o.window_strides = w.base_dil;
      o.window_dilations = w.win_dil;
      out[0] = reduce_window(
          {padded}, {constant(g.func(), 0.0, g.dtype())}, w.dims, o,
          [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; })[0];
      if (out[0]->dims() != x.dims())
        unsupported(op, "internal: sum-pool transpose produced the wrong shape");
      return out;
    }
    // A cumulative product is holomorphic (the scan's multiplies carry complex cotangents);
    // the other bodies have real rules only.
    if (kind == "multiply" ? !is_inexact(x.dtype()) : !real_tangent(op, x)) return out;
    if (std::optional<Cumulative> c = cumulative_op(op, kind, "VJP")) {
      // JAX's cumulative rule: the VJP of the replayed associative scan.
      out[0] = vjp({replay_cumulative(kind, *c, x)}, Wrt{x}, Cotangents{g})[0];
      return out;
    }
    Window w = window_of(op);
    for (size_t i = 0; i < w.dims.size(); ++i)
      if (w.base_dil[i] != 1 || w.win_dil[i] != 1)
        unsupported(op, "max/min pooling with dilations is not differentiable here");
    auto dir = kind == "maximum" ? ComparisonDirection::GE : ComparisonDirection::LE;
    out[0] = select_and_scatter(
        x, g, constant(g.func(), 0.0, g.dtype()), w.dims, w.strides, w.padding,
        [dir](Value a, Value b) { return compare(a, b, dir); },
        [](Value a, Value b) { return add(a, b); });
    return out;
  };
}

// JVP of reduce_window: sum is linear (applied to the tangents); a cumulative multiply /
// logaddexp / maximum / minimum is the JVP of the replayed associative scan (JAX's
// _cumulative_jvp_rule); other max / min windows carry the tangent along in a two-input
// reduce_window that keeps the (value, tangent) pair of the chosen element (JAX's
// select_and_gather_add, written as a pair reduction; padding holds (init, 0)). The
// select_and_scatter that the max-pool VJP emits is linear in (source, init) for fixed selections.
void register_reduce_window_jvps(JvpRegistry& r) {
  r["stablehlo.reduce_window"] = [](const Op& op, const std::vector<Tangent>& ts) {
    if (op.operands().size() != 2)
      unsupported(op, "only single-input reduce_window is differentiable", "JVP");
    std::string kind = body_kind(op);
    if (kind == "add") return linear_jvp()(op, ts);
    if (kind.empty())
      unsupported(op,
                  "the reduce_window body is not a single add / multiply / maximum / minimum or "
                  "jax.lax.logaddexp",
                  "JVP");
    std::vector<Tangent> out(1);
    Value x = op.operands()[0], init = op.operands()[1];
    if (kind == "multiply" ? !is_inexact(x.dtype()) : !real_tangent(op, x, "JVP")) return out;
    if (std::optional<Cumulative> c = cumulative_op(op, kind, "JVP")) {
      if (ts[1])
        unsupported(op, "the tangent of a cumulative reduce_window's init value is not supported",
                    "JVP");
      return jvp_of_decomposition(op, ts, [kind, c](const std::vector<Value>& v) {
        return std::vector<Value>{replay_cumulative(kind, *c, v[0])};
      });
    }
    if (ts[1])
      unsupported(op, "the tangent of a max/min reduce_window's init value is not supported",
                  "JVP");
    if (!ts[0]) return out;
    Window w = window_of(op);
    WindowOptions o;
    o.window_strides = w.strides;
    o.base_dilations = w.base_dil;
    o.window_dilations = w.win_dil;
    o.padding = w.padding;
    auto dir = kind == "maximum" ? ComparisonDirection::GE : ComparisonDirection::LE;
    Value tzero = constant(x.func(), 0.0, x.dtype());
    auto res =
        reduce_window({x, *ts[0]}, {init, tzero}, w.dims, o, [dir](const std::vector<Value>& a) {
          Value keep = compare(a[0], a[2], dir);
          return std::vector<Value>{select(keep, a[0], a[2]), select(keep, a[1], a[3])};
        });
    out[0] = res[1];
    return out;
  };
  r["stablehlo.select_and_scatter"] = [](const Op& op, const std::vector<Tangent>& ts) {
    std::string scatter_op;
    {
      const Block& b = *op.regions().at(1);
      std::vector<const Op*> real;
      for (const auto& o : b.ops())
        if (o->name() != "stablehlo.return") real.push_back(o.get());
      if (real.size() == 1) scatter_op = real[0]->name();
    }
    if (scatter_op != "stablehlo.add")
      unsupported(op, "only select_and_scatter with an add scatter body is differentiable", "JVP");
    Value operand = op.operands()[0], source = op.operands()[1], init = op.operands()[2];
    std::vector<Tangent> out(1);
    if (!ts[1] && !ts[2]) return out;  // the operand only chooses positions: piecewise constant
    out[0] = reapply(op, {operand, ts[1] ? *ts[1] : full_like(source, 0.0),
                          ts[2] ? *ts[2] : full_like(init, 0.0)})[0];
    return out;
  };
}

}  // namespace hhlo::ad::detail
