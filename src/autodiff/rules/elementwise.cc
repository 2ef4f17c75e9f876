// VJP and JVP rules of the elementwise ops, compare/select/clamp and convert (JAX lax.py jvp
// rules), for real and complex operands (complex, real, imag, abs of complex: JAX's transposes).
// One derivative table per arity serves both modes.
#include <numbers>

#include "rules.h"

namespace hhlo::ad::detail {
namespace {

using Cts = std::vector<Cotangent>;
Value x0(const Op& op) { return op.operands()[0]; }
Value x1(const Op& op) { return op.operands()[1]; }
Value z(const Op& op) { return op.result(0); }
Value c(Value like, double v) { return full_like(like, v); }

// Which operand element types a rule's formulas hold for. `holomorphic`: real floats and complex
// values alike (the formula is g * f'(x), which for complex x is JAX's convention: the transpose
// of the complex-linear JVP, without conjugation); `real_only`: real floats, and a complex operand
// is an error naming the op.
enum class Domain : bool { real_only, holomorphic };
bool tangent(const Op& op, Value x, Domain d, const char* mode = "VJP") {
  return d == Domain::holomorphic ? is_inexact(x.dtype()) : real_tangent(op, x, mode);
}

// 1 where `x` wins against `y` for max/min, 0.5 on ties (JAX's balanced rule), as x's dtype.
Value win_mask(Value x, Value y, ComparisonDirection dir) {
  Value one = c(x, 1.0), zero = c(x, 0.0), half = c(x, 0.5);
  return select(compare(x, y, dir), one,
                select(compare(x, y, ComparisonDirection::EQ), half, zero));
}

// g * f'(x) per unary op (g: a cotangent in reverse mode, a tangent in forward mode; elementwise
// products commute, so one formula serves both), with the element types it holds for.
struct Derivative {
  std::function<Value(const Op&, Value g)> f;
  Domain domain;
};
const std::map<std::string, Derivative>& unary_derivatives() {
  static const std::map<std::string, Derivative> table = {
      {"stablehlo.exponential",
       {[](const Op& op, Value g) { return multiply(g, z(op)); }, Domain::holomorphic}},
      {"stablehlo.exponential_minus_one",
       {[](const Op& op, Value g) { return multiply(g, add(z(op), c(g, 1.0))); },
        Domain::holomorphic}},
      {"stablehlo.log",
       {[](const Op& op, Value g) { return divide(g, x0(op)); }, Domain::holomorphic}},
      // JAX's exp2 and log2 rules: g * ln 2 * 2^x, g / (x ln 2).
      {"stablehlo.exp2",
       {[](const Op& op, Value g) { return multiply(g, multiply(z(op), c(g, std::numbers::ln2))); },
        Domain::holomorphic}},
      {"stablehlo.log2",
       {[](const Op& op, Value g) { return divide(g, multiply(x0(op), c(g, std::numbers::ln2))); },
        Domain::holomorphic}},
      {"stablehlo.log_plus_one",
       {[](const Op& op, Value g) { return divide(g, add(x0(op), c(g, 1.0))); },
        Domain::holomorphic}},
      {"stablehlo.logistic",
       {[](const Op& op, Value g) {
          return multiply(g, multiply(z(op), subtract(c(g, 1.0), z(op))));
        },
        Domain::holomorphic}},
      {"stablehlo.tanh",
       {[](const Op& op, Value g) {
          return multiply(g, subtract(c(g, 1.0), multiply(z(op), z(op))));
        },
        Domain::holomorphic}},
      {"stablehlo.sqrt",
       {[](const Op& op, Value g) { return divide(multiply(g, c(g, 0.5)), z(op)); },
        Domain::holomorphic}},
      {"stablehlo.rsqrt",
       {[](const Op& op, Value g) {
          return multiply(g, divide(multiply(z(op), c(g, -0.5)), x0(op)));
        },
        Domain::holomorphic}},
      {"stablehlo.cbrt",
       {[](const Op& op, Value g) {
          // JAX's cbrt rule g * (1/3) * z^-2 (inf at 0, where z / 3x would be 0/0).
          return multiply(g, multiply(c(g, 1.0 / 3.0), divide(c(g, 1.0), multiply(z(op), z(op)))));
        },
        Domain::real_only}},
      {"stablehlo.sine",
       {[](const Op& op, Value g) { return multiply(g, cosine(x0(op))); }, Domain::holomorphic}},
      {"stablehlo.cosine",
       {[](const Op& op, Value g) { return negate(multiply(g, sine(x0(op)))); },
        Domain::holomorphic}},
      {"stablehlo.tan",
       {[](const Op& op, Value g) { return multiply(g, add(c(g, 1.0), multiply(z(op), z(op)))); },
        Domain::holomorphic}},
  };
  return table;
}

// (g * df/dx, g * df/dy) per binary op, from (op, g); as unary_derivatives, for both modes.
struct Derivative2 {
  std::function<std::pair<Cotangent, Cotangent>(const Op&, Value g)> f;
  Domain domain;
};
const std::map<std::string, Derivative2>& binary_derivatives() {
  static const std::map<std::string, Derivative2> table = {
      {"stablehlo.add",
       {[](const Op&, Value g) {
          return std::pair<Cotangent, Cotangent>{g, g};
        },
        Domain::holomorphic}},
      {"stablehlo.subtract",
       {[](const Op&, Value g) {
          return std::pair<Cotangent, Cotangent>{g, negate(g)};
        },
        Domain::holomorphic}},
      {"stablehlo.multiply",
       {[](const Op& op, Value g) {
          return std::pair<Cotangent, Cotangent>{multiply(g, x1(op)), multiply(g, x0(op))};
        },
        Domain::holomorphic}},
      {"stablehlo.divide",
       {[](const Op& op, Value g) {
          Value gx = divide(g, x1(op));
          return std::pair<Cotangent, Cotangent>{gx, negate(multiply(gx, z(op)))};
        },
        Domain::holomorphic}},
      {"stablehlo.maximum",
       {[](const Op& op, Value g) {
          return std::pair<Cotangent, Cotangent>{
              multiply(g, win_mask(x0(op), x1(op), ComparisonDirection::GT)),
              multiply(g, win_mask(x1(op), x0(op), ComparisonDirection::GT))};
        },
        Domain::real_only}},
      {"stablehlo.minimum",
       {[](const Op& op, Value g) {
          return std::pair<Cotangent, Cotangent>{
              multiply(g, win_mask(x0(op), x1(op), ComparisonDirection::LT)),
              multiply(g, win_mask(x1(op), x0(op), ComparisonDirection::LT))};
        },
        Domain::real_only}},
      {"stablehlo.power",
       {[](const Op& op, Value g) {
          Value x = x0(op), y = x1(op);
          // d/dx = y * x^(y-1); d/dy = z * log(x) (0 where x == 0, as in JAX).
          Value dx = multiply(y, power(x, subtract(y, c(y, 1.0))));
          Value zero = c(x, 0.0);
          Value safe_log = log(select(compare(x, zero, ComparisonDirection::EQ), c(x, 1.0), x));
          Value dy = multiply(z(op), safe_log);
          return std::pair<Cotangent, Cotangent>{multiply(g, dx), multiply(g, dy)};
        },
        Domain::holomorphic}},
      {"stablehlo.atan2",
       {[](const Op& op, Value g) {
          Value x = x0(op), y = x1(op);
          Value denom = add(multiply(x, x), multiply(y, y));
          return std::pair<Cotangent, Cotangent>{divide(multiply(g, y), denom),
                                                 negate(divide(multiply(g, x), denom))};
        },
        Domain::real_only}},
      {"stablehlo.remainder",
       {[](const Op& op, Value g) {
          // x - y * trunc(x / y): d/dx = 1, d/dy = -trunc(x / y).
          Value q = divide(x0(op), x1(op));
          Value t = select(compare(q, c(q, 0.0), ComparisonDirection::LT), ceil(q), floor(q));
          return std::pair<Cotangent, Cotangent>{g, negate(multiply(g, t))};
        },
        Domain::real_only}},
  };
  return table;
}

// A unary rule: cotangent = g * d(x).
VjpRule unary(std::function<Value(const Op&, Value g)> f, Domain d = Domain::holomorphic) {
  return [f = std::move(f), d](const Op& op, const Cts& cts) {
    Cts out(op.operands().size());
    if (cts[0] && tangent(op, x0(op), d)) out[0] = f(op, *cts[0]);
    return out;
  };
}
// A binary rule: both cotangents from (op, g); an operand that is not float/complex gets none.
VjpRule binary(std::function<std::pair<Cotangent, Cotangent>(const Op&, Value g)> f,
               Domain d = Domain::holomorphic) {
  return [f = std::move(f), d](const Op& op, const Cts& cts) {
    Cts out(2);
    if (!cts[0]) return out;
    bool t0 = tangent(op, x0(op), d), t1 = tangent(op, x1(op), d);
    auto [a, b] = f(op, *cts[0]);
    if (t0 && needs_cotangent(0)) out[0] = a;
    if (t1 && needs_cotangent(1)) out[1] = b;
    return out;
  };
}
// g * d|x|/dx for a real `x`, as JAX's _abs_jvp_rule: select(x >= 0, g, -g), so 1 at 0.0 and at
// -0.0 (-0.0 >= 0 holds) and -g where x is NaN. Linear in g: the VJP and the JVP alike.
Value abs_slope(Value x, Value g) {
  return select(compare(x, c(x, 0.0), ComparisonDirection::GE), g, negate(g));
}
// Where each operand of clamp(lo, x, hi) passes its derivative on, as JAX's clamp_p JVPs: lo where
// lo > x and lo < hi, x where lo < x < hi, hi where hi < x; so on a tie with a bound no operand
// does (lax.clamp's convention; jnp.clip, a maximum and a minimum, splits ties instead). The
// masks have x's shape (scalar bounds broadcast).
struct ClampMasks {
  Value lo, x, hi;
};
// Full-shape `v` for an operand that may be a scalar bound of a clamp over `like`.
Value full_as(Value v, Value like) {
  return v.rank() == 0 && like.rank() != 0 ? broadcast_in_dim(v, like.dims(), {}) : v;
}
ClampMasks clamp_masks(const Op& op) {
  Value x = op.operands()[1];
  Value lo = full_as(op.operands()[0], x), hi = full_as(op.operands()[2], x);
  using D = ComparisonDirection;
  return {and_(compare(lo, x, D::GT), compare(lo, hi, D::LT)),
          and_(compare(x, lo, D::GT), compare(x, hi, D::LT)), compare(hi, x, D::LT)};
}
// `x` with its imaginary part negated: complex(real(x), -imag(x)) (StableHLO has no conj op).
Value conj(Value x) { return complex(real(x), negate(imag(x))); }
// complex(x, 0) for a real `x`.
Value as_complex(Value x) { return complex(x, c(x, 0.0)); }

}  // namespace

void register_elementwise_rules(Registry& r) {
  // ---- unary
  r["stablehlo.negate"] = unary([](const Op&, Value g) { return negate(g); });
  r["stablehlo.abs"] = [](const Op& op, const Cts& cts) {
    Cts out(1);
    if (!cts[0] || !is_inexact(x0(op).dtype())) return out;
    Value g = *cts[0], x = x0(op);
    if (is_float(x.dtype())) {
      out[0] = abs_slope(x, g);
    } else {
      // |x| is real: g * conj(x) / |x| (JAX _abs_jvp_rule transposed), 0 where x == 0.
      Value mag = z(op);
      Value safe = select(compare(mag, c(mag, 0.0), ComparisonDirection::EQ), c(mag, 1.0), mag);
      out[0] = multiply(as_complex(divide(g, safe)), conj(x));
    }
    return out;
  };
  // real / imag of a complex value: the transposes of taking a part (JAX deflinear2 rules:
  // real -> complex(g, 0), imag -> complex(0, -g)); of a real value: g and 0.
  r["stablehlo.real"] = [](const Op& op, const Cts& cts) {
    Cts out(1);
    if (!cts[0] || !is_inexact(x0(op).dtype())) return out;
    out[0] = is_complex(x0(op).dtype()) ? as_complex(*cts[0]) : *cts[0];
    return out;
  };
  r["stablehlo.imag"] = [](const Op& op, const Cts& cts) {
    Cts out(1);
    if (!cts[0] || !is_complex(x0(op).dtype())) return out;  // imag of a real value is 0
    out[0] = complex(c(*cts[0], 0.0), negate(*cts[0]));
    return out;
  };
  // complex(x, y) = x + i y: x gets real(g), y gets -imag(g) (JAX complex_p transpose).
  r["stablehlo.complex"] = [](const Op& op, const Cts& cts) {
    Cts out(2);
    if (!cts[0]) return out;
    if (needs_cotangent(0)) out[0] = real(*cts[0]);
    if (needs_cotangent(1)) out[1] = negate(imag(*cts[0]));
    (void)op;
    return out;
  };
  for (const auto& [name, d] : unary_derivatives()) r[name] = unary(d.f, d.domain);
  // Piecewise constant: zero gradient almost everywhere (JAX defjvp_zero).
  for (const char* n :
       {"stablehlo.floor", "stablehlo.ceil", "stablehlo.sign", "stablehlo.round_nearest_afz",
        "stablehlo.round_nearest_even", "stablehlo.compare", "stablehlo.is_finite",
        "stablehlo.iota", "stablehlo.constant"})
    r[n] = zero_vjp();

  // ---- binary
  for (const auto& [name, d] : binary_derivatives()) r[name] = binary(d.f, d.domain);

  // fma(a, b, c) = a * b + c: g * b, g * a, g.
  r["stablehlo.fma"] = [](const Op& op, const Cts& cts) {
    Cts out(3);
    if (!cts[0]) return out;
    Value g = *cts[0];
    if (needs_cotangent(0)) out[0] = multiply(g, x1(op));
    if (needs_cotangent(1)) out[1] = multiply(g, x0(op));
    if (needs_cotangent(2)) out[2] = g;
    return out;
  };

  // ---- select / clamp / convert
  r["stablehlo.select"] = [](const Op& op, const Cts& cts) {
    Cts out(3);
    if (!cts[0]) return out;
    Value g = *cts[0], p = op.operands()[0];
    Value zero = c(g, 0.0);
    if (p.rank() == 0 && g.rank() != 0) p = broadcast_in_dim(p, g.dims(), {});
    out[1] = select(p, g, zero);
    out[2] = select(p, zero, g);
    return out;
  };
  r["stablehlo.clamp"] = [](const Op& op, const Cts& cts) {
    Cts out(3);
    if (!cts[0]) return out;
    Value g = *cts[0], lo = op.operands()[0], x = op.operands()[1], hi = op.operands()[2];
    if (!real_tangent(op, x)) return out;
    ClampMasks m = clamp_masks(op);
    Value zero = c(g, 0.0);
    std::vector<int64_t> all;
    for (int64_t i = 0; i < x.rank(); ++i) all.push_back(i);
    auto bound = [&](Value b, Value mask) {
      Value gb = select(mask, g, zero);
      return b.rank() == x.rank() ? gb : reduce_sum(gb, all);
    };
    out[0] = bound(lo, m.lo);
    out[1] = select(m.x, g, zero);
    out[2] = bound(hi, m.hi);
    return out;
  };
  // convert: the cotangent converted back; real -> complex keeps the real part of the cotangent
  // (x + 0i), complex -> real (the real part) gives complex(g, 0). Integer ends: no gradient.
  r["stablehlo.convert"] = [](const Op& op, const Cts& cts) {
    Cts out(1);
    DType from = x0(op).dtype(), to = z(op).dtype();
    if (!cts[0] || !is_inexact(from) || !is_inexact(to)) return out;
    Value g = *cts[0];
    if (is_complex(to) && !is_complex(from))
      g = real(g);
    else if (is_complex(from) && !is_complex(to))
      g = as_complex(cast_to(g, complex_part(from)));
    out[0] = cast_to(g, from);
    return out;
  };
}

namespace {
using Ts = std::vector<Tangent>;
}  // namespace

void register_elementwise_jvps(JvpRegistry& r) {
  for (const auto& [name, d] : unary_derivatives()) {
    r[name] = [f = d.f, dom = d.domain](const Op& op, const Ts& ts) {
      Ts out(1);
      if (ts[0] && tangent(op, x0(op), dom, "JVP")) out[0] = f(op, *ts[0]);
      return out;
    };
  }
  for (const auto& [name, d] : binary_derivatives()) {
    r[name] = [f = d.f, dom = d.domain](const Op& op, const Ts& ts) {
      bool t0 = tangent(op, x0(op), dom, "JVP"), t1 = tangent(op, x1(op), dom, "JVP");
      Tangent acc;
      if (ts[0] && t0) acc = f(op, *ts[0]).first;
      if (ts[1] && t1) {
        Value b = *f(op, *ts[1]).second;
        acc = acc ? add(*acc, b) : b;
      }
      return Ts{acc};
    };
  }
  // fma(a, b, c): ta * b + a * tb + tc.
  r["stablehlo.fma"] = [](const Op& op, const Ts& ts) {
    Tangent acc;
    auto plus = [&](Value v) { acc = acc ? add(*acc, v) : v; };
    if (ts[0]) plus(multiply(*ts[0], x1(op)));
    if (ts[1]) plus(multiply(x0(op), *ts[1]));
    if (ts[2]) plus(*ts[2]);
    return Ts{acc};
  };
  // Linear (R-linear for the complex parts): the op applied to the tangents.
  for (const char* n : {"stablehlo.negate", "stablehlo.real", "stablehlo.imag", "stablehlo.complex",
                        "stablehlo.select", "stablehlo.convert"})
    r[n] = linear_jvp();
  r["stablehlo.abs"] = [](const Op& op, const Ts& ts) {
    Ts out(1);
    if (!ts[0]) return out;
    Value t = *ts[0], x = x0(op);
    if (is_float(x.dtype())) {
      out[0] = abs_slope(x, t);
    } else {
      // d|x| = real(conj(x) t) / |x| (JAX _abs_jvp_rule), 0 where x == 0.
      Value mag = z(op);
      Value safe = select(compare(mag, c(mag, 0.0), ComparisonDirection::EQ), c(mag, 1.0), mag);
      Value dot = add(multiply(real(x), real(t)), multiply(imag(x), imag(t)));
      out[0] = select(compare(mag, c(mag, 0.0), ComparisonDirection::EQ), c(mag, 0.0),
                      divide(dot, safe));
    }
    return out;
  };
  for (const char* n :
       {"stablehlo.floor", "stablehlo.ceil", "stablehlo.sign", "stablehlo.round_nearest_afz",
        "stablehlo.round_nearest_even", "stablehlo.compare", "stablehlo.is_finite",
        "stablehlo.iota", "stablehlo.constant"})
    r[n] = zero_jvp();
  // clamp(lo, x, hi): JAX's three clamp_p JVPs summed (clamp_masks: 0 on ties with a bound).
  r["stablehlo.clamp"] = [](const Op& op, const Ts& ts) {
    Ts out(1);
    Value x = op.operands()[1];
    if (!real_tangent(op, x, "JVP")) return out;
    ClampMasks m = clamp_masks(op);
    Value zero = c(x, 0.0);
    Tangent acc;
    auto term = [&](const Tangent& t, Value mask) {
      if (!t) return;
      Value v = select(mask, full_as(*t, x), zero);
      acc = acc ? add(*acc, v) : v;
    };
    term(ts[0], m.lo);
    term(ts[1], m.x);
    term(ts[2], m.hi);
    out[0] = acc ? *acc : zero;
    return out;
  };
}

}  // namespace hhlo::ad::detail
