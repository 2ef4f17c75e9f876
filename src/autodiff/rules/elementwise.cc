// VJP rules of the elementwise ops, compare/select/clamp and convert (JAX lax.py jvp rules), for
// real and complex operands (complex, real, imag, abs of complex: JAX's transposes).
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
bool tangent(const Op& op, Value x, Domain d) {
  return d == Domain::holomorphic ? is_inexact(x.dtype()) : real_tangent(op, x);
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
// `x` with its imaginary part negated: complex(real(x), -imag(x)) (StableHLO has no conj op).
Value conj(Value x) { return complex(real(x), negate(imag(x))); }
// complex(x, 0) for a real `x`.
Value as_complex(Value x) { return complex(x, c(x, 0.0)); }

// 1 where `x` wins against `y` for max/min, 0.5 on ties (JAX's balanced rule), as x's dtype.
Value win_mask(Value x, Value y, ComparisonDirection dir) {
  Value one = c(x, 1.0), zero = c(x, 0.0), half = c(x, 0.5);
  return select(compare(x, y, dir), one,
                select(compare(x, y, ComparisonDirection::EQ), half, zero));
}

}  // namespace

void register_elementwise_rules(Registry& r) {
  // ---- unary
  r["stablehlo.negate"] = unary([](const Op&, Value g) { return negate(g); });
  r["stablehlo.abs"] = [](const Op& op, const Cts& cts) {
    Cts out(1);
    if (!cts[0] || !is_inexact(x0(op).dtype())) return out;
    Value g = *cts[0], x = x0(op);
    if (is_float(x.dtype())) {
      out[0] = multiply(g, sign(x));
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
  r["stablehlo.exponential"] = unary([](const Op& op, Value g) { return multiply(g, z(op)); });
  r["stablehlo.exponential_minus_one"] =
      unary([](const Op& op, Value g) { return multiply(g, add(z(op), c(g, 1.0))); });
  r["stablehlo.log"] = unary([](const Op& op, Value g) { return divide(g, x0(op)); });
  r["stablehlo.log_plus_one"] =
      unary([](const Op& op, Value g) { return divide(g, add(x0(op), c(g, 1.0))); });
  r["stablehlo.logistic"] = unary([](const Op& op, Value g) {
    return multiply(g, multiply(z(op), subtract(c(g, 1.0), z(op))));
  });
  r["stablehlo.tanh"] = unary([](const Op& op, Value g) {
    return multiply(g, subtract(c(g, 1.0), multiply(z(op), z(op))));
  });
  r["stablehlo.sqrt"] =
      unary([](const Op& op, Value g) { return divide(multiply(g, c(g, 0.5)), z(op)); });
  r["stablehlo.rsqrt"] = unary([](const Op& op, Value g) {
    return multiply(g, divide(multiply(z(op), c(g, -0.5)), x0(op)));
  });
  r["stablehlo.cbrt"] = unary(
      [](const Op& op, Value g) { return multiply(g, divide(z(op), multiply(x0(op), c(g, 3.0)))); },
      Domain::real_only);
  r["stablehlo.sine"] = unary([](const Op& op, Value g) { return multiply(g, cosine(x0(op))); });
  r["stablehlo.cosine"] =
      unary([](const Op& op, Value g) { return negate(multiply(g, sine(x0(op)))); });
  r["stablehlo.tan"] = unary(
      [](const Op& op, Value g) { return multiply(g, add(c(g, 1.0), multiply(z(op), z(op)))); });
  // Piecewise constant: zero gradient almost everywhere (JAX defjvp_zero).
  for (const char* n :
       {"stablehlo.floor", "stablehlo.ceil", "stablehlo.sign", "stablehlo.round_nearest_afz",
        "stablehlo.round_nearest_even", "stablehlo.compare", "stablehlo.is_finite",
        "stablehlo.iota", "stablehlo.constant"})
    r[n] = zero_vjp();

  // ---- binary
  r["stablehlo.add"] = binary([](const Op&, Value g) {
    return std::pair<Cotangent, Cotangent>{g, g};
  });
  r["stablehlo.subtract"] = binary([](const Op&, Value g) {
    return std::pair<Cotangent, Cotangent>{g, negate(g)};
  });
  r["stablehlo.multiply"] = binary([](const Op& op, Value g) {
    return std::pair<Cotangent, Cotangent>{multiply(g, x1(op)), multiply(g, x0(op))};
  });
  r["stablehlo.divide"] = binary([](const Op& op, Value g) {
    Value gx = divide(g, x1(op));
    return std::pair<Cotangent, Cotangent>{gx, negate(multiply(gx, z(op)))};
  });
  r["stablehlo.maximum"] = binary(
      [](const Op& op, Value g) {
        return std::pair<Cotangent, Cotangent>{
            multiply(g, win_mask(x0(op), x1(op), ComparisonDirection::GT)),
            multiply(g, win_mask(x1(op), x0(op), ComparisonDirection::GT))};
      },
      Domain::real_only);
  r["stablehlo.minimum"] = binary(
      [](const Op& op, Value g) {
        return std::pair<Cotangent, Cotangent>{
            multiply(g, win_mask(x0(op), x1(op), ComparisonDirection::LT)),
            multiply(g, win_mask(x1(op), x0(op), ComparisonDirection::LT))};
      },
      Domain::real_only);
  r["stablehlo.power"] = binary([](const Op& op, Value g) {
    Value x = x0(op), y = x1(op);
    // d/dx = y * x^(y-1); d/dy = z * log(x) (0 where x == 0, as in JAX).
    Value dx = multiply(y, power(x, subtract(y, c(y, 1.0))));
    Value zero = c(x, 0.0);
    Value safe_log = log(select(compare(x, zero, ComparisonDirection::EQ), c(x, 1.0), x));
    Value dy = multiply(z(op), safe_log);
    return std::pair<Cotangent, Cotangent>{multiply(g, dx), multiply(g, dy)};
  });
  r["stablehlo.atan2"] = binary(
      [](const Op& op, Value g) {
        Value x = x0(op), y = x1(op);
        Value denom = add(multiply(x, x), multiply(y, y));
        return std::pair<Cotangent, Cotangent>{divide(multiply(g, y), denom),
                                               negate(divide(multiply(g, x), denom))};
      },
      Domain::real_only);
  r["stablehlo.remainder"] = binary(
      [](const Op& op, Value g) {
        // x - y * trunc(x / y): d/dx = 1, d/dy = -trunc(x / y).
        Value q = divide(x0(op), x1(op));
        Value t = select(compare(q, c(q, 0.0), ComparisonDirection::LT), ceil(q), floor(q));
        return std::pair<Cotangent, Cotangent>{g, negate(multiply(g, t))};
      },
      Domain::real_only);

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
    auto full = [&](Value v) {
      return v.rank() == 0 && x.rank() != 0 ? broadcast_in_dim(v, x.dims(), {}) : v;
    };
    Value lob = full(lo), hib = full(hi), zero = c(g, 0.0);
    Value below = compare(x, lob, ComparisonDirection::LT),
          above = compare(x, hib, ComparisonDirection::GT);
    out[1] = select(or_(below, above), zero, g);
    Value glo = select(below, g, zero), ghi = select(above, g, zero);
    out[0] = lo.rank() == x.rank() ? glo : reduce_sum(glo, [&] {
      std::vector<int64_t> d;
      for (int64_t i = 0; i < x.rank(); ++i) d.push_back(i);
      return d;
    }());
    out[2] = hi.rank() == x.rank() ? ghi : reduce_sum(ghi, [&] {
      std::vector<int64_t> d;
      for (int64_t i = 0; i < x.rank(); ++i) d.push_back(i);
      return d;
    }());
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

}  // namespace hhlo::ad::detail
