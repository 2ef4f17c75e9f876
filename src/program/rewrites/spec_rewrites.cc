// The rewrites that keep the plugin to the StableHLO spec (hhlo/program/spec_rewrites.h): a scan
// for the ops XLA:CPU computes otherwise than the spec (or aborts on), then, only when one is
// found, a copy of the module with each such op replaced by ops it computes right.
#include "hhlo/program/spec_rewrites.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <numbers>
#include <optional>
#include <type_traits>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/inline.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

bool is(const Op& op, std::string_view name) { return op.name() == name; }

/// The integer value of attribute `name` of `op`, or nullopt.
std::optional<int64_t> int_attr(const Op& op, std::string_view name) {
  const Attribute* a = op.attr(name);
  const IntAttr* i = a ? a->get_if<IntAttr>() : nullptr;
  return i ? std::optional<int64_t>(i->value) : std::nullopt;
}

/// The number of explicit mantissa bits of float type `t` (bf16 7, f16 10, f32 23, f64 52).
int mantissa_bits(DType t) {
  switch (t) {
    case DType::bf16:
      return 7;
    case DType::f16:
      return 10;
    case DType::f32:
      return 23;
    default:
      return 52;
  }
}

/// The integer type of `bits` bits (8 to 64), signed or unsigned.
DType integer_of_width(int bits, bool is_unsigned) {
  switch (bits) {
    case 8:
      return is_unsigned ? DType::ui8 : DType::i8;
    case 16:
      return is_unsigned ? DType::ui16 : DType::i16;
    case 32:
      return is_unsigned ? DType::ui32 : DType::i32;
    default:
      return is_unsigned ? DType::ui64 : DType::i64;
  }
}

/// The signed integer type of float type `t`'s width.
DType bits_type(DType t) { return integer_of_width(bit_width(t), false); }

/// Whether `op` needs a rewrite (those that need constants of its shape: a static one).
bool needs_rewrite(const Op& op) {
  if (op.results().size() != 1) return false;
  DType t = op.result().dtype();
  if (is(op, "stablehlo.maximum") || is(op, "stablehlo.minimum")) return is_complex(t);
  if (is(op, "stablehlo.add")) return is_pred(t);
  if (is(op, "stablehlo.fma")) return true;
  if (!op.result().type().is_static()) return false;
  if (is(op, "stablehlo.bitcast_convert"))
    return op.operands().size() == 1 && is_pred(op.operands()[0].dtype()) != is_pred(t) &&
           op.operands()[0].type().is_static();
  if (is(op, "stablehlo.exp2") || is(op, "stablehlo.log2")) return true;
  if (is(op, "stablehlo.ceil") || is(op, "stablehlo.floor"))
    return t == DType::bf16 || t == DType::f32 || t == DType::f64;
  if (is(op, "stablehlo.reduce_precision"))
    return is_float(t) && int_attr(op, "mantissa_bits") == 0;
  return false;
}

bool is_f6(DType t) { return t == DType::f6E2M3FN || t == DType::f6E3M2FN; }

/// Throws naming `where` for an f6 element type in `types`: XLA aborts on them (docs/facts.md).
void refuse_f6(const std::vector<TensorType>& types, const std::string& where) {
  for (const TensorType& t : types)
    if (is_f6(t.dtype))
      throw Error(fmt::format(
          "{}: element type {} aborts the XLA CPU plugin's process (f6 types are not run; "
          "convert to f8E4M3FN or f32 instead)",
          where, mlir_name(t.dtype)));
}

/// Throws for an op that aborts the plugin's process.
void refuse_aborts(const Op& op, const std::string& source_name) {
  uint32_t at = op.loc().source_line;
  std::string where = fmt::format("{}{}: {}", source_name, at ? fmt::format(":{}", at) : "",
                                  std::string_view(op.name()));
  std::vector<TensorType> types;
  for (Value v : op.operands()) types.push_back(v.type());
  for (Value v : op.results()) types.push_back(v.type());
  refuse_f6(types, where);
  if (!is(op, "stablehlo.bitcast_convert") || op.operands().size() != 1) return;
  const TensorType& from = op.operands()[0].type();
  const TensorType& to = op.result().type();
  if (!is_complex(from.dtype) || !is_complex(to.dtype) || from.dtype == to.dtype) return;
  uint32_t line = op.loc().source_line;
  throw Error(fmt::format(
      "{}{}: stablehlo.bitcast_convert of {} to {}: a bitcast between complex types of "
      "different widths aborts the XLA CPU plugin's process (a CHECK failure in its shape code); "
      "bitcast the real and imaginary parts (stablehlo.real/imag, then bitcast_convert)",
      source_name, line ? fmt::format(":{}", line) : "", from.to_string(), to.to_string()));
}

/// Whether an op of `block` (or of its regions) needs a rewrite; throws for one that aborts the
/// plugin.
bool scan(const Block& block, const std::string& source_name) {
  bool found = false;
  for (const auto& op : block.ops()) {
    refuse_aborts(*op, source_name);
    found = needs_rewrite(*op) || found;
    for (const auto& region : op->regions()) found = scan(*region, source_name) || found;
  }
  return found;
}

/// Appends the ops of one rewrite at the location of the op it replaces.
class Emitter {
 public:
  Emitter(const Op& at, Func& f) : at_(at), f_(f) {}

  Value op(std::string name, std::vector<Value> operands, TensorType type,
           std::vector<NamedAttr> attrs = {}) {
    return f_.append({std::move(name),
                      std::move(operands),
                      {std::move(type)},
                      std::move(attrs),
                      {},
                      at_.loc()})[0];
  }
  Value unary(std::string_view name, Value x) {
    return op(fmt::format("stablehlo.{}", name), {x}, infer_unary(name, x.type()));
  }
  Value binary(std::string_view name, Value x, Value y) {
    return op(fmt::format("stablehlo.{}", name), {x, y}, infer_binary(name, x.type(), y.type()));
  }
  Value compare(Value x, Value y, ComparisonDirection d) {
    return op("stablehlo.compare", {x, y}, infer_compare(x.type(), y.type(), std::nullopt),
              {{"comparison_direction", d}, {"compare_type", default_comparison_type(x.dtype())}});
  }
  Value select(Value p, Value on_true, Value on_false) {
    return op("stablehlo.select", {p, on_true, on_false}, on_true.type());
  }
  /// A tensor of `dims` whose every element of type `t` has the bits `bits` (little-endian).
  Value splat(DType t, uint64_t bits, const Dims& dims) {
    Array a(t, Dims{});
    std::memcpy(a.data(), &bits, a.byte_size());
    Value c = op("stablehlo.constant", {}, a.type(), {{"value", dense_attr(std::move(a))}});
    if (dims.empty()) return c;
    return op("stablehlo.broadcast_in_dim", {c}, TensorType{t, dims},
              {{"broadcast_dimensions", i64_array({})}});
  }
  /// A tensor of `dims` of float or complex type `t` whose every element is `v` rounded to `t`
  /// (a complex one has imaginary part 0).
  Value filled(DType t, double v, const Dims& dims) {
    Array a(t, Dims{});
    visit_dtype(t, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_constructible_v<T, double>) *static_cast<T*>(a.data()) = T(v);
    });
    Value c = op("stablehlo.constant", {}, a.type(), {{"value", dense_attr(std::move(a))}});
    if (dims.empty()) return c;
    return op("stablehlo.broadcast_in_dim", {c}, TensorType{t, dims},
              {{"broadcast_dimensions", i64_array({})}});
  }

 private:
  const Op& at_;
  Func& f_;
};

/// The spec's complex maximum (`gt` GT) or minimum (LT): lexicographic on (real, imaginary).
Value complex_extremum(Emitter& e, Value x, Value y, ComparisonDirection d) {
  Value xr = e.unary("real", x), yr = e.unary("real", y);
  Value xi = e.unary("imag", x), yi = e.unary("imag", y);
  Value by_imag = e.compare(xi, yi, d);
  Value by_real = e.compare(xr, yr, d);
  Value take_x = e.select(e.compare(xr, yr, ComparisonDirection::EQ), by_imag, by_real);
  return e.select(take_x, x, y);
}

/// ceil or floor of `x` whose subnormal arguments are found from their bits.
Value rounded(Emitter& e, const Op& op, Value x) {
  DType t = x.dtype(), it = bits_type(t);
  const Dims& dims = x.dims();
  int width = bit_width(t);
  uint64_t sign = uint64_t{1} << (width - 1);
  uint64_t one = t == DType::bf16 ? 0x3F80 : t == DType::f32 ? 0x3F800000 : 0x3FF0000000000000;
  Value bits = e.op("stablehlo.bitcast_convert", {x}, TensorType{it, dims});
  Value magnitude = e.binary("and", bits, e.splat(it, sign - 1, dims));
  Value zero = e.splat(it, 0, dims);
  Value nonzero = e.compare(magnitude, zero, ComparisonDirection::GT);
  Value below_normal = e.compare(magnitude, e.splat(it, uint64_t{1} << mantissa_bits(t), dims),
                                 ComparisonDirection::LT);
  Value subnormal = e.binary("and", nonzero, below_normal);
  Value negative = e.compare(bits, zero, ComparisonDirection::LT);
  bool ceil = is(op, "stablehlo.ceil");
  // ceil: a positive one gives 1, a negative one -0; floor: 0 and -1.
  Value on_positive = e.splat(t, ceil ? one : 0, dims);
  Value on_negative = e.splat(t, ceil ? sign : (sign | one), dims);
  Value exact = e.op(op.name(), {x}, x.type());
  return e.select(subnormal, e.select(negative, on_negative, on_positive), exact);
}

/// reduce_precision without mantissa bits whose NaN gives +inf.
Value reduced(Emitter& e, const Op& op, Value x) {
  DType t = x.dtype();
  int width = bit_width(t), m = mantissa_bits(t);
  uint64_t inf = ((uint64_t{1} << (width - 1 - m)) - 1) << m;
  Value r = e.op(op.name(), {x}, x.type(), op.attrs());
  Value nan = e.compare(x, x, ComparisonDirection::NE);
  return e.select(nan, e.splat(t, inf, x.dims()), r);
}

/// Each part of complex `z` times real `k` (a complex multiply by (k, 0) would make 0 * inf NaN).
Value parts_times(Emitter& e, Value z, double k) {
  Value re = e.unary("real", z), im = e.unary("imag", z);
  Value kk = e.filled(re.dtype(), k, re.dims());
  return e.binary("complex", e.binary("multiply", re, kk), e.binary("multiply", im, kk));
}

/// 2^k for integer tensor `k` (of f32 or f64 `t`'s width) within its normal exponents: the bits
/// (k + bias) << mantissa bits.
Value power_of_two(Emitter& e, Value k, DType t) {
  DType it = k.dtype();
  int m = mantissa_bits(t);
  Value biased = e.binary("add", k, e.splat(it, t == DType::f32 ? 127 : 1023, k.dims()));
  Value bits = e.binary("shift_left", biased, e.splat(it, static_cast<uint64_t>(m), k.dims()));
  return e.op("stablehlo.bitcast_convert", {bits}, TensorType{t, k.dims()});
}

/// exp2 of a real float `x` within an ulp or two of 2^x: with n = round(x) and f = x - n (exact,
/// |f| <= 1/2), 2^x = exp(f * ln 2) * 2^n, 2^n applied as two halves so that each is a normal
/// number (n clamped where the result is 0 or inf anyway). exponential(x * ln 2) is off by up to
/// 67 ulp (f32) near x = 120: the product's rounding is scaled by the argument. f16 and bf16 are
/// computed in f32.
Value exp2_of_real(Emitter& e, const Op& op, Value x) {
  DType t = x.dtype();
  const Dims& d = x.dims();
  if (t != DType::f32 && t != DType::f64) {
    Value wide = e.op("stablehlo.convert", {x}, TensorType{DType::f32, d});
    return e.op("stablehlo.convert", {exp2_of_real(e, op, wide)}, x.type());
  }
  double limit = t == DType::f32 ? 160 : 1100;  // 2^(limit/2) is normal, 2^limit out of range
  Value clamped =
      e.op("stablehlo.clamp", {e.filled(t, -limit, d), x, e.filled(t, limit, d)}, x.type());
  Value n = e.unary("round_nearest_even", clamped);
  Value f = e.binary("subtract", x, n);
  Value r =
      e.op("stablehlo.exponential", {e.binary("multiply", f, e.filled(t, std::numbers::ln2, d))},
           x.type(), op.attrs());
  Value k = e.op("stablehlo.convert", {n}, TensorType{bits_type(t), d});
  Value a = e.binary("shift_right_arithmetic", k, e.splat(k.dtype(), 1, d));
  Value b = e.binary("subtract", k, a);
  return e.binary("multiply", e.binary("multiply", r, power_of_two(e, a, t)),
                  power_of_two(e, b, t));
}

/// bitcast_convert to or from i1 as the spec has it (i1 is one bit; element k of the last
/// dimension is bit k, the least significant first), which the plugin computes as if i1 were a
/// byte: packing shifts each bit to its place and ors them (a reduce over the last dimension),
/// unpacking shifts each place down and tests it.
Value bits_of_pred(Emitter& e, const Op& op, Value x) {
  const TensorType& to = op.result().type();
  bool pack = is_pred(x.dtype());
  DType wide = pack ? to.dtype : x.dtype();
  DType u = integer_of_width(bit_width(wide), true);
  Dims bits_dims = pack ? x.dims() : to.dims;
  int64_t last = static_cast<int64_t>(bits_dims.size()) - 1;
  Value place = iota(x.func(), TensorType{u, bits_dims}, last);
  if (pack) {
    Value shifted = shift_left(convert(x, u), place);
    Value packed = reduce(shifted, e.splat(u, 0, {}), {last},
                          [](Value acc, Value bit) { return or_(acc, bit); });
    return u == wide ? packed : bitcast_convert(packed, wide);
  }
  Value word = u == wide ? x : bitcast_convert(x, u);
  std::vector<int64_t> keep(x.dims().size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = static_cast<int64_t>(i);
  Value spread = broadcast_in_dim(word, bits_dims, keep);
  Value bit = e.binary("and", shift_right_logical(spread, place), e.splat(u, 1, bits_dims));
  return e.compare(bit, e.splat(u, 0, bits_dims), ComparisonDirection::NE);
}

/// The ops StableHLO added after 1.22 (exp2, log2: 1.23; fma: 1.24) the plugin (StableHLO up
/// to 1.20) cannot parse, in older ops: fma(a, b, c) as a * b + c (as JAX 0.12.1's jax.export
/// writes it for its older target); log2(x) as log(x) * log2(e) (likewise); exp2(x) of a real x
/// by exp2_of_real, of a complex one as exp(ln 2 * x). exp2/log2's result_accuracy goes to the
/// exponential/log.
Value older_equivalent(Emitter& e, const Op& op, const std::vector<Value>& operands) {
  Value x = operands[0];
  if (is(op, "stablehlo.fma"))
    return e.binary("add", e.binary("multiply", x, operands[1]), operands[2]);
  bool cplx = is_complex(x.dtype());
  if (is(op, "stablehlo.exp2")) {
    if (!cplx) return exp2_of_real(e, op, x);
    return e.op("stablehlo.exponential", {parts_times(e, x, std::numbers::ln2)}, x.type(),
                op.attrs());
  }
  Value log = e.op("stablehlo.log", {x}, x.type(), op.attrs());
  if (cplx) return parts_times(e, log, std::numbers::log2e);
  return e.binary("multiply", log, e.filled(x.dtype(), std::numbers::log2e, x.dims()));
}

/// The replacement of `op` (needs_rewrite) on `operands`.
Value rewritten(const Op& op, const std::vector<Value>& operands) {
  Emitter e(op, operands.at(0).func());
  if (is(op, "stablehlo.fma") || is(op, "stablehlo.exp2") || is(op, "stablehlo.log2"))
    return older_equivalent(e, op, operands);
  if (is(op, "stablehlo.maximum"))
    return complex_extremum(e, operands[0], operands[1], ComparisonDirection::GT);
  if (is(op, "stablehlo.minimum"))
    return complex_extremum(e, operands[0], operands[1], ComparisonDirection::LT);
  if (is(op, "stablehlo.add")) return e.binary("or", operands[0], operands[1]);
  if (is(op, "stablehlo.reduce_precision")) return reduced(e, op, operands[0]);
  if (is(op, "stablehlo.bitcast_convert")) return bits_of_pred(e, op, operands[0]);
  return rounded(e, op, operands[0]);
}

}  // namespace

void refuse_plugin_aborts(const Module& module, const std::string& source_name) {
  for (const auto& f : module.funcs()) {
    refuse_f6(f->arg_types(), fmt::format("{}: @{}'s arguments", source_name, f->name()));
    scan(f->body(), source_name);
  }
}

int rewrite_to_the_spec(Module& module, const std::string& source_name) {
  bool any = false;
  for (const auto& f : module.funcs()) any = scan(f->body(), source_name) || any;
  if (!any) return 0;
  int count = 0;
  InlineRewrite rewrite =
      [&](const Op& op, const std::vector<Value>& operands) -> std::optional<std::vector<Value>> {
    if (!needs_rewrite(op)) return std::nullopt;
    ++count;
    return std::vector<Value>{rewritten(op, operands)};
  };
  Module out;
  out.set_name(module.name());
  for (const NamedAttr& a : module.attrs()) out.set_attr(a);
  for (const auto& [name, mesh] : module.meshes()) out.add_mesh(name, mesh);
  for (const auto& f : module.funcs()) {
    Func& g = out.add_func(f->name(), f->arg_types(), f->visibility());
    for (const NamedAttr& a : f->attrs()) g.set_attr(a);
    for (size_t i = 0; i < f->args().size(); ++i)
      for (const NamedAttr& a : f->arg_attrs(i)) g.set_arg_attr(i, a);
    g.ret_at(copy_function_body(g, module, f->name(), g.args(), rewrite),
             f->body().ops().back()->loc());
    for (size_t i = 0; i < f->result_types().size(); ++i)
      for (const NamedAttr& a : f->result_attrs(i)) g.set_result_attr(i, a);
  }
  module = std::move(out);
  return count;
}

}  // namespace hhlo
