// Shape refinement (hhlo/ir/refine.h): the entry function is rebuilt op by op into a new module
// with static argument types; calls are inlined, result types recomputed by the shape rules,
// integer shape computations folded, dynamic_* ops made static and shape assertions evaluated.
#include "hhlo/ir/refine.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "../infer_op.h"
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/verifier.h"

namespace hhlo {
namespace {

constexpr int64_t kMaxFold = 4096;
constexpr size_t kMaxInlineDepth = 64;

// ------------------------------------------------------------------ folded integer tensors

/// A small integer or i1 tensor known at refinement time, elements widened to int64 (unsigned
/// values keep their bits).
struct Const {
  DType dtype;
  Dims dims;
  std::vector<int64_t> v;
};

bool foldable(const TensorType& t) {
  if (!(is_pred(t.dtype) || is_integer(t.dtype)) || !t.is_static()) return false;
  return t.num_elements() <= kMaxFold;
}

/// `x` converted to `t` as StableHLO integer conversion does (wrap-around, i1 is x != 0).
int64_t wrap(DType t, int64_t x) {
  switch (t) {
    case DType::pred:
      return x != 0;
    case DType::i8:
      return static_cast<int8_t>(x);
    case DType::i16:
      return static_cast<int16_t>(x);
    case DType::i32:
      return static_cast<int32_t>(x);
    case DType::ui8:
      return static_cast<uint8_t>(x);
    case DType::ui16:
      return static_cast<uint16_t>(x);
    case DType::ui32:
      return static_cast<uint32_t>(x);
    default:
      return x;
  }
}

template <typename T>
void read_into(const Array& a, std::vector<int64_t>& out) {
  for (T x : a.values<T>()) out.push_back(static_cast<int64_t>(x));
}

std::optional<Const> const_of(const Array& a) {
  if (!foldable(a.type())) return std::nullopt;
  Const c{a.dtype(), a.dims(), {}};
  c.v.reserve(static_cast<size_t>(a.num_elements()));
  switch (a.dtype()) {
    case DType::pred:
      read_into<bool>(a, c.v);
      break;
    case DType::i8:
      read_into<int8_t>(a, c.v);
      break;
    case DType::i16:
      read_into<int16_t>(a, c.v);
      break;
    case DType::i32:
      read_into<int32_t>(a, c.v);
      break;
    case DType::i64:
      read_into<int64_t>(a, c.v);
      break;
    case DType::ui8:
      read_into<uint8_t>(a, c.v);
      break;
    case DType::ui16:
      read_into<uint16_t>(a, c.v);
      break;
    case DType::ui32:
      read_into<uint32_t>(a, c.v);
      break;
    case DType::ui64:
      read_into<uint64_t>(a, c.v);
      break;
    default:
      return std::nullopt;
  }
  return c;
}

template <typename T>
void write_from(Array& a, const std::vector<int64_t>& v) {
  auto out = a.values<T>();
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<T>(v[i]);
}

Array array_of(const Const& c) {
  Array a(c.dtype, c.dims);
  switch (c.dtype) {
    case DType::pred:
      write_from<bool>(a, c.v);
      break;
    case DType::i8:
      write_from<int8_t>(a, c.v);
      break;
    case DType::i16:
      write_from<int16_t>(a, c.v);
      break;
    case DType::i32:
      write_from<int32_t>(a, c.v);
      break;
    case DType::i64:
      write_from<int64_t>(a, c.v);
      break;
    case DType::ui8:
      write_from<uint8_t>(a, c.v);
      break;
    case DType::ui16:
      write_from<uint16_t>(a, c.v);
      break;
    case DType::ui32:
      write_from<uint32_t>(a, c.v);
      break;
    case DType::ui64:
      write_from<uint64_t>(a, c.v);
      break;
    default:
      throw Error("refine_shapes: internal: folded a non-integer tensor");
  }
  return a;
}

std::vector<int64_t> strides_of(const Dims& d) {
  std::vector<int64_t> s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

/// Multi-index of linear index `k` in `d`.
std::vector<int64_t> unravel(int64_t k, const Dims& d) {
  std::vector<int64_t> idx(d.size());
  for (size_t i = d.size(); i-- > 0;) {
    idx[i] = d[i] ? k % d[i] : 0;
    k = d[i] ? k / d[i] : 0;
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& strides) {
  int64_t k = 0;
  for (size_t i = 0; i < idx.size(); ++i) k += idx[i] * strides[i];
  return k;
}

const Attribute* find_attr(const std::vector<NamedAttr>& attrs, std::string_view n) {
  for (const auto& a : attrs)
    if (a.name == n) return &a.value;
  return nullptr;
}
std::optional<std::vector<int64_t>> i64s_of(const std::vector<NamedAttr>& attrs,
                                            std::string_view n) {
  const Attribute* a = find_attr(attrs, n);
  if (const auto* v = a ? a->get_if<I64ArrayAttr>() : nullptr) return v->values;
  return std::nullopt;
}

/// Folds elementwise binary op `s` on one pair of elements of type `t`; nullopt when the
/// result is not well defined (division by zero, overflowing division) or `s` is not foldable.
std::optional<int64_t> fold_binary(std::string_view s, DType t, int64_t a, int64_t b) {
  bool u = is_unsigned_int(t) || is_pred(t);
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  if (s == "add") return static_cast<int64_t>(ua + ub);
  if (s == "subtract") return static_cast<int64_t>(ua - ub);
  if (s == "multiply") return static_cast<int64_t>(ua * ub);
  if (s == "divide" || s == "remainder") {
    if (b == 0 || (!u && b == -1 && a == std::numeric_limits<int64_t>::min())) return std::nullopt;
    if (u) return static_cast<int64_t>(s == "divide" ? ua / ub : ua % ub);
    return s == "divide" ? a / b : a % b;
  }
  if (s == "maximum") return u ? static_cast<int64_t>(std::max(ua, ub)) : std::max(a, b);
  if (s == "minimum") return u ? static_cast<int64_t>(std::min(ua, ub)) : std::min(a, b);
  if (s == "and") return a & b;
  if (s == "or") return a | b;
  if (s == "xor") return a ^ b;
  return std::nullopt;
}

std::optional<int64_t> fold_unary(std::string_view s, DType t, int64_t a) {
  if (s == "negate") return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  if (s == "abs")  // two's complement: abs(INT_MIN) is INT_MIN, as XLA computes it
    return a < 0 && !is_unsigned_int(t) ? static_cast<int64_t>(0 - static_cast<uint64_t>(a)) : a;
  if (s == "sign") return is_unsigned_int(t) ? (a != 0) : (a > 0) - (a < 0);
  if (s == "not") return is_pred(t) ? !a : ~a;
  return std::nullopt;
}

bool compare_values(ComparisonDirection d, bool is_unsigned, int64_t a, int64_t b) {
  auto cmp = [&](auto x, auto y) {
    switch (d) {
      case ComparisonDirection::EQ:
        return x == y;
      case ComparisonDirection::NE:
        return x != y;
      case ComparisonDirection::GE:
        return x >= y;
      case ComparisonDirection::GT:
        return x > y;
      case ComparisonDirection::LE:
        return x <= y;
      case ComparisonDirection::LT:
        return x < y;
    }
    return false;
  };
  return is_unsigned ? cmp(static_cast<uint64_t>(a), static_cast<uint64_t>(b)) : cmp(a, b);
}

/// The folded value of op `s` (no dialect prefix) with constant operands `in` and inferred
/// result type `result`, or nullopt when the op is not folded.
std::optional<Const> fold(std::string_view s, const std::vector<NamedAttr>& attrs,
                          const std::vector<const Const*>& in, const TensorType& result) {
  if (!foldable(result)) return std::nullopt;
  Const out{result.dtype, result.dims, {}};
  const int64_t n = result.num_elements();
  out.v.resize(static_cast<size_t>(n));
  if (in.size() == 1 && (s == "negate" || s == "abs" || s == "sign" || s == "not")) {
    for (int64_t k = 0; k < n; ++k) {
      auto r = fold_unary(s, in[0]->dtype, in[0]->v[static_cast<size_t>(k)]);
      if (!r) return std::nullopt;
      out.v[static_cast<size_t>(k)] = wrap(result.dtype, *r);
    }
    return out;
  }
  if (s == "convert" && in.size() == 1) {
    for (int64_t k = 0; k < n; ++k)
      out.v[static_cast<size_t>(k)] = wrap(result.dtype, in[0]->v[static_cast<size_t>(k)]);
    return out;
  }
  if (in.size() == 2 && in[0]->dims == in[1]->dims && is_elementwise(s, 2)) {
    for (int64_t k = 0; k < n; ++k) {
      auto r = fold_binary(s, in[0]->dtype, in[0]->v[static_cast<size_t>(k)],
                           in[1]->v[static_cast<size_t>(k)]);
      if (!r) return std::nullopt;
      out.v[static_cast<size_t>(k)] = wrap(result.dtype, *r);
    }
    return out;
  }
  if (s == "compare" && in.size() == 2) {
    const Attribute* d = find_attr(attrs, "comparison_direction");
    const auto* dir = d ? d->get_if<ComparisonDirection>() : nullptr;
    if (!dir) return std::nullopt;
    bool uns = is_unsigned_int(in[0]->dtype) || is_pred(in[0]->dtype);
    if (const Attribute* t = find_attr(attrs, "compare_type"))
      if (const auto* ct = t->get_if<ComparisonType>())
        uns = *ct == ComparisonType::UNSIGNED || (*ct == ComparisonType::NOTYPE && uns);
    for (int64_t k = 0; k < n; ++k)
      out.v[static_cast<size_t>(k)] = compare_values(*dir, uns, in[0]->v[static_cast<size_t>(k)],
                                                     in[1]->v[static_cast<size_t>(k)]);
    return out;
  }
  if (s == "select" && in.size() == 3) {
    bool scalar = in[0]->dims.empty();
    for (int64_t k = 0; k < n; ++k) {
      auto i = static_cast<size_t>(k);
      out.v[i] = (scalar ? in[0]->v[0] : in[0]->v[i]) ? in[1]->v[i] : in[2]->v[i];
    }
    return out;
  }
  if (s == "clamp" && in.size() == 3) {
    bool uns = is_unsigned_int(result.dtype);
    for (int64_t k = 0; k < n; ++k) {
      auto i = static_cast<size_t>(k);
      int64_t lo = in[0]->dims.empty() ? in[0]->v[0] : in[0]->v[i];
      int64_t hi = in[2]->dims.empty() ? in[2]->v[0] : in[2]->v[i];
      int64_t x = in[1]->v[i];
      if (compare_values(ComparisonDirection::LT, uns, x, lo)) x = lo;
      if (compare_values(ComparisonDirection::GT, uns, x, hi)) x = hi;
      out.v[i] = x;
    }
    return out;
  }
  if (s == "reshape" && in.size() == 1) {
    out.v = in[0]->v;
    return out;
  }
  if (s == "broadcast_in_dim" && in.size() == 1) {
    auto bd = i64s_of(attrs, "broadcast_dimensions");
    if (!bd || bd->size() != in[0]->dims.size()) return std::nullopt;
    auto st = strides_of(in[0]->dims);
    for (int64_t k = 0; k < n; ++k) {
      auto ri = unravel(k, result.dims);
      std::vector<int64_t> oi(in[0]->dims.size());
      for (size_t d = 0; d < oi.size(); ++d)
        oi[d] = in[0]->dims[d] == 1 ? 0 : ri[static_cast<size_t>((*bd)[d])];
      out.v[static_cast<size_t>(k)] = in[0]->v[static_cast<size_t>(ravel(oi, st))];
    }
    return out;
  }
  if (s == "transpose" && in.size() == 1) {
    auto perm = i64s_of(attrs, "permutation");
    if (!perm) return std::nullopt;
    auto st = strides_of(in[0]->dims);
    for (int64_t k = 0; k < n; ++k) {
      auto ri = unravel(k, result.dims);
      std::vector<int64_t> oi(ri.size());
      for (size_t d = 0; d < ri.size(); ++d) oi[static_cast<size_t>((*perm)[d])] = ri[d];
      out.v[static_cast<size_t>(k)] = in[0]->v[static_cast<size_t>(ravel(oi, st))];
    }
    return out;
  }
  if (s == "slice" && in.size() == 1) {
    auto start = i64s_of(attrs, "start_indices"), step = i64s_of(attrs, "strides");
    if (!start || !step) return std::nullopt;
    auto st = strides_of(in[0]->dims);
    for (int64_t k = 0; k < n; ++k) {
      auto ri = unravel(k, result.dims);
      for (size_t d = 0; d < ri.size(); ++d) ri[d] = (*start)[d] + ri[d] * (*step)[d];
      out.v[static_cast<size_t>(k)] = in[0]->v[static_cast<size_t>(ravel(ri, st))];
    }
    return out;
  }
  if (s == "concatenate" && !in.empty()) {
    const Attribute* a = find_attr(attrs, "dimension");
    const auto* dim = a ? a->get_if<IntAttr>() : nullptr;
    if (!dim) return std::nullopt;
    auto d = static_cast<size_t>(dim->value);
    for (int64_t k = 0; k < n; ++k) {
      auto ri = unravel(k, result.dims);
      for (const Const* c : in) {
        if (ri[d] < c->dims[d]) {
          out.v[static_cast<size_t>(k)] = c->v[static_cast<size_t>(ravel(ri, strides_of(c->dims)))];
          break;
        }
        ri[d] -= c->dims[d];
      }
    }
    return out;
  }
  return std::nullopt;
}

// ------------------------------------------------------------------ the rebuilder

std::string where(const Op& op) {
  const Location& l = op.loc();
  if (!l.text.empty()) return fmt::format(" at loc({})", l.text);
  if (!l.file.empty()) return fmt::format(" at {}:{}:{}", l.file, l.line, l.column);
  return "";
}

/// `error_message` of a shape_assertion with `{k}` replaced by `values[k]` (Python's
/// str.format, as JAX applies it; `{{`/`}}` are literal braces).
std::string format_assertion(const std::string& msg, const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < msg.size(); ++i) {
    char c = msg[i];
    if ((c == '{' || c == '}') && i + 1 < msg.size() && msg[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '{') {
      size_t close = msg.find('}', i);
      if (close != std::string::npos) {
        std::string_view idx(msg.data() + i + 1, close - i - 1);
        bool digits =
            !idx.empty() && idx.size() < 6 &&
            std::all_of(idx.begin(), idx.end(), [](char d) { return d >= '0' && d <= '9'; });
        if (digits) {
          size_t k = std::stoul(std::string(idx));
          out += k < values.size() ? std::to_string(values[k])
                                   : std::string("{") + std::string(idx) + "}";
          i = close;
          continue;
        }
      }
    }
    out += c;
  }
  return out;
}

class Refiner {
 public:
  Refiner(const Module& src, Func& dst, size_t max_ops) : src_(src), f_(dst), max_ops_(max_ops) {}

  /// Emits `b`'s ops (not its terminator) with old values mapped through `map`; returns the
  /// mapped operands of the terminator and stores its name in `terminator`.
  std::vector<Value> emit_block(const Block& b, std::unordered_map<Value, Value>& map,
                                std::string* terminator = nullptr) {
    const auto& ops = b.ops();
    for (size_t i = 0; i + 1 < ops.size(); ++i) {
      const Op& op = *ops[i];
      std::vector<Value> res = emit_op(op, map);
      if (res.size() != op.results().size())
        throw Error(fmt::format("refine_shapes: internal: '{}' gave {} results, expected {}",
                                op.name(), res.size(), op.results().size()));
      for (size_t k = 0; k < res.size(); ++k) map[op.result(k)] = res[k];
    }
    if (ops.empty()) throw Error("refine_shapes: empty block");
    const Op& term = *ops.back();
    if (terminator) *terminator = term.name();
    return mapped(term.operands(), map);
  }

 private:
  std::vector<Value> mapped(const std::vector<Value>& vs,
                            const std::unordered_map<Value, Value>& map) const {
    std::vector<Value> out;
    for (const Value& v : vs) {
      auto it = map.find(v);
      if (it == map.end())
        throw Error(
            fmt::format("refine_shapes: @{}: a value of type {} is used before it is "
                        "defined",
                        v.func().name(), v.type().to_string()));
      out.push_back(it->second);
    }
    return out;
  }

  const Const* known(Value v) const {
    auto it = consts_.find(v);
    return it == consts_.end() ? nullptr : &it->second;
  }

  /// A constant shape operand as i64 values, or nullopt.
  std::optional<std::vector<int64_t>> shape_values(Value v) const {
    const Const* c = known(v);
    if (!c) return std::nullopt;
    return c->v;
  }

  /// A constant result shape operand (output_dimensions of dynamic_broadcast_in_dim, ...), or
  /// nullopt; throws ShapeError for a negative size.
  std::optional<Dims> result_dims(const Op& op, Value v) const {
    auto dims = shape_values(v);
    if (!dims) return std::nullopt;
    for (int64_t d : *dims)
      if (d < 0)
        throw ShapeError(op.name().substr(op.name().find('.') + 1), "",
                         fmt::format("the shape operand is {} after refinement: sizes must be "
                                     ">= 0{}",
                                     detail::list(*dims), where(op)));
    return dims;
  }

  Value emit_constant(const Const& c, const Location& loc) {
    Array a = array_of(c);
    TensorType t = a.type();
    Value v = f_.append(
        OpState{"stablehlo.constant", {}, {t}, {{"value", dense_attr(std::move(a))}}, {}, loc})[0];
    consts_.emplace(v, c);
    return v;
  }

  /// The function named by attribute `attr` of `op` (`@f`, or `[@f]` as in
  /// called_computations), or nullptr when the attribute is missing or of another kind.
  const Func* symbol_attr(const Op& op, std::string_view attr) const {
    const Attribute* a = op.attr(attr);
    if (!a) return nullptr;
    if (const auto* arr = a->get_if<ArrayAttr>(); arr && arr->values.size() == 1)
      a = &arr->values[0];
    const auto* sym = a->get_if<SymbolRefAttr>();
    return sym ? src_.find(sym->name) : nullptr;
  }

  /// Checks that `callee` may be inlined with `args` (no recursion, argument count and types).
  void check_callee(const Op& op, const Func& callee, const std::vector<Value>& args) const {
    if (std::find(stack_.begin(), stack_.end(), &callee) != stack_.end())
      throw Error(
          fmt::format("refine_shapes: @{} is called recursively; recursion cannot be "
                      "inlined",
                      callee.name()));
    if (stack_.size() >= kMaxInlineDepth)
      throw Error(fmt::format("refine_shapes: calls nested deeper than {} at @{}", kMaxInlineDepth,
                              callee.name()));
    if (args.size() != callee.arg_types().size())
      throw ShapeError("call", "",
                       fmt::format("@{} takes {} arguments, '{}' passes {}{}", callee.name(),
                                   callee.arg_types().size(), op.name(), args.size(), where(op)));
    for (size_t i = 0; i < args.size(); ++i) {
      const TensorType &want = callee.arg_types()[i], &got = args[i].type();
      if (want.dtype != got.dtype || !detail::dims_compatible(want.dims, got.dims))
        throw ShapeError("call", "",
                         fmt::format("argument {} of @{} has type {}, the refined value is {}{}", i,
                                     callee.name(), want.to_string(), got.to_string(), where(op)));
    }
  }

  /// Emits the body of `callee` (a func.call's callee or a composite's decomposition) in place
  /// with its arguments bound to `args`; returns the values it returns.
  std::vector<Value> inline_call(const Op& op, const std::vector<Value>& args, const char* attr) {
    const Func* callee = symbol_attr(op, attr);
    if (!callee)
      throw Error(fmt::format("refine_shapes: '{}'{} names no function of the module in '{}'",
                              op.name(), where(op), attr));
    check_callee(op, *callee, args);
    std::unordered_map<Value, Value> inner;
    for (size_t i = 0; i < args.size(); ++i) inner[callee->arg(i)] = args[i];
    stack_.push_back(callee);
    auto out = emit_block(callee->body(), inner);
    stack_.pop_back();
    return out;
  }

  /// A region whose body is function `callee` (the reducer of a dynamic_reduce_window), its
  /// arguments becoming the block's.
  std::unique_ptr<Block> region_from(const Op& op, const Func& callee) {
    return f_.build_block(callee.arg_types(), [&](const std::vector<Value>& args) {
      check_callee(op, callee, args);
      std::unordered_map<Value, Value> inner;
      for (size_t i = 0; i < args.size(); ++i) inner[callee.arg(i)] = args[i];
      stack_.push_back(&callee);
      auto rets = emit_block(callee.body(), inner);
      stack_.pop_back();
      f_.append(OpState{"stablehlo.return", rets, {}, {}, {}, callee.body().ops().back()->loc()});
    });
  }

  void check_assertion(const Op& op, const std::vector<Value>& operands) {
    const Attribute* m = op.attr("error_message");
    const auto* msg = m ? m->get_if<StringAttr>() : nullptr;
    std::string text = msg ? msg->value : std::string("shape assertion failed");
    if (operands.empty())
      throw Error("refine_shapes: shape_assertion without a condition operand" + where(op));
    std::vector<int64_t> values;
    for (size_t i = 1; i < operands.size(); ++i) {
      const Const* c = known(operands[i]);
      if (!c || c->v.size() != 1)
        throw Error(
            fmt::format("refine_shapes: shape_assertion argument {} is not a scalar "
                        "constant after refinement{}: {}",
                        i, where(op), text));
      values.push_back(c->v[0]);
    }
    const Const* cond = known(operands[0]);
    if (!cond || cond->v.size() != 1)
      throw Error(
          fmt::format("refine_shapes: the condition of a shape_assertion is not a constant after "
                      "refinement{} (it must depend only on the argument shapes): {}",
                      where(op), text));
    if (!cond->v[0]) throw ShapeAssertionError(format_assertion(text, values));
  }

  /// The static form of a dynamic op whose shape operands are constants: changes `name`,
  /// `operands`, `attrs` and `declared` (result types) in place; false when not applicable.
  bool make_static(const Op& op, std::string& name, std::vector<Value>& operands,
                   std::vector<NamedAttr>& attrs, std::vector<TensorType>& declared,
                   const Func*& region_fn) {
    auto set = [&](std::string n, Attribute a) {
      for (auto& x : attrs)
        if (x.name == n) {
          x.value = std::move(a);
          return;
        }
      attrs.push_back({std::move(n), std::move(a)});
    };
    auto drop = [&](std::string_view n) {
      std::erase_if(attrs, [&](const NamedAttr& x) { return x.name == n; });
    };
    std::string_view s = std::string_view(name).substr(10);
    if (s == "custom_call") {
      // StableHLO's experimental dynamic ops are custom calls: @stablehlo.dynamic_reduce_window
      // (inputs..., init_values..., window_dimensions, window_strides, base_dilations,
      // window_dilations, padding) with its reducer in called_computations.
      const Attribute* t = find_attr(attrs, "call_target_name");
      const auto* target = t ? t->get_if<StringAttr>() : nullptr;
      if (!target) return false;
      if (find_attr(attrs, "indices_of_shape_operands"))
        return static_shape_operands(op, operands, attrs, declared);
      if (target->value == "stablehlo.dynamic_rng_bit_generator") {
        // (initial_state, output_shape) -> (output_state, output), rng_algorithm kept.
        if (operands.size() != 2 || declared.size() != 2) return false;
        auto dims = result_dims(op, operands[1]);
        const Attribute* alg = find_attr(attrs, "rng_algorithm");
        if (!dims || !alg) return false;
        Attribute algorithm = *alg;
        name = "stablehlo.rng_bit_generator";
        operands.resize(1);
        attrs.clear();
        attrs.push_back({"rng_algorithm", std::move(algorithm)});
        declared[1].dims = *dims;
        return true;
      }
      if (target->value == "stablehlo.dynamic_top_k") {
        // (operand, k) -> (values, indices) over the last dimension: JAX's static lowering,
        // chlo.top_k with k an attribute.
        if (operands.size() != 2 || declared.size() != 2) return false;
        auto k = shape_values(operands[1]);
        const TensorType& x = operands[0].type();
        if (!k || k->size() != 1 || x.rank() == 0) return false;
        if ((*k)[0] < 0 || (x.dims.back() >= 0 && (*k)[0] > x.dims.back()))
          throw ShapeError("top_k", "",
                           fmt::format("k is {} after refinement; the last dimension of the "
                                       "operand {} is the most it may be{}",
                                       (*k)[0], x.to_string(), where(op)));
        name = "chlo.top_k";
        operands.resize(1);
        attrs.clear();
        attrs.push_back({"k", i64_attr((*k)[0])});
        for (TensorType& r : declared) {
          r.dims = x.dims;
          r.dims.back() = (*k)[0];
        }
        return true;
      }
      if (target->value != "stablehlo.dynamic_reduce_window") return false;
      size_t n = declared.size();
      const Func* body = symbol_attr(op, "called_computations");
      if (n == 0 || operands.size() != 2 * n + 5 || !body) return false;
      std::vector<std::vector<int64_t>> window;
      for (size_t i = 2 * n; i < 2 * n + 4; ++i) {
        auto v = shape_values(operands[i]);
        if (!v) return false;
        window.push_back(*v);
      }
      const Const* pad = known(operands[2 * n + 4]);
      if (!pad) return false;
      Array p(DType::i64, pad->dims);
      std::copy(pad->v.begin(), pad->v.end(), p.values<int64_t>().begin());
      name = "stablehlo.reduce_window";
      operands.resize(2 * n);
      attrs.clear();
      attrs.push_back({"window_dimensions", i64_array(window[0])});
      attrs.push_back({"window_strides", i64_array(window[1])});
      attrs.push_back({"base_dilations", i64_array(window[2])});
      attrs.push_back({"window_dilations", i64_array(window[3])});
      attrs.push_back({"padding", dense_attr(std::move(p))});
      region_fn = body;
      return true;
    }
    if ((s == "dynamic_broadcast_in_dim" || s == "dynamic_reshape") && operands.size() == 2 &&
        declared.size() == 1) {
      auto dims = result_dims(op, operands[1]);
      if (!dims) return false;
      name = s == "dynamic_reshape" ? "stablehlo.reshape" : "stablehlo.broadcast_in_dim";
      operands.resize(1);
      drop("known_expanding_dimensions");
      drop("known_nonexpanding_dimensions");
      declared[0].dims = *dims;
      return true;
    }
    if (s == "dynamic_iota" && operands.size() == 1 && declared.size() == 1) {
      auto dims = result_dims(op, operands[0]);
      if (!dims) return false;
      name = "stablehlo.iota";
      operands.clear();
      declared[0].dims = *dims;
      return true;
    }
    if (s == "dynamic_pad" && operands.size() == 5) {
      auto lo = shape_values(operands[2]), hi = shape_values(operands[3]),
           in = shape_values(operands[4]);
      if (!lo || !hi || !in) return false;
      name = "stablehlo.pad";
      operands.resize(2);
      set("edge_padding_low", i64_array(*lo));
      set("edge_padding_high", i64_array(*hi));
      set("interior_padding", i64_array(*in));
      return true;
    }
    if (s == "real_dynamic_slice" && operands.size() == 4) {
      auto st = shape_values(operands[1]), li = shape_values(operands[2]),
           sd = shape_values(operands[3]);
      if (!st || !li || !sd) return sized_slice(op, name, operands, attrs, declared);
      name = "stablehlo.slice";
      operands.resize(1);
      set("start_indices", i64_array(*st));
      set("limit_indices", i64_array(*li));
      set("strides", i64_array(*sd));
      return true;
    }
    if (s == "dynamic_gather" && operands.size() == 3) {
      auto sizes = shape_values(operands[2]);
      if (!sizes) return false;
      name = "stablehlo.gather";
      operands.resize(2);
      set("slice_sizes", i64_array(*sizes));
      return true;
    }
    if (s == "dynamic_conv" && operands.size() == 3) {
      const Const* pad = known(operands[2]);
      if (!pad) return false;
      name = "stablehlo.convolution";
      operands.resize(2);
      Array p(DType::i64, pad->dims);
      std::copy(pad->v.begin(), pad->v.end(), p.values<int64_t>().begin());
      set("padding", dense_attr(std::move(p)));
      int64_t sp = static_cast<int64_t>(pad->dims.empty() ? 0 : pad->dims[0]);
      for (const char* n : {"window_strides", "lhs_dilation", "rhs_dilation"})
        if (!find_attr(attrs, n))
          set(n, i64_array(std::vector<int64_t>(static_cast<size_t>(sp), 1)));
      if (!find_attr(attrs, "feature_group_count")) set("feature_group_count", i64_attr(1));
      if (!find_attr(attrs, "batch_group_count")) set("batch_group_count", i64_attr(1));
      return true;
    }
    return false;
  }

  /// The constant C of `limit` = stablehlo.add(start, C) or add(C, start), or nullopt.
  std::optional<std::vector<int64_t>> size_from_start(Value start, Value limit) const {
    auto it = sums_.find(limit);
    if (it == sums_.end()) return std::nullopt;
    auto [a, b] = it->second;
    if (a == start) return shape_values(b);
    if (b == start) return shape_values(a);
    return std::nullopt;
  }

  /// Element `i` of the rank-1 index tensor `v` as a scalar (slice and reshape).
  Value element(Value v, int64_t i, const Location& loc) {
    DType d = v.type().dtype;
    Value one = f_.append(OpState{"stablehlo.slice",
                                  {v},
                                  {TensorType{d, {1}}},
                                  {{"start_indices", i64_array({i})},
                                   {"limit_indices", i64_array({i + 1})},
                                   {"strides", i64_array({1})}},
                                  {},
                                  loc})[0];
    return f_.append(OpState{"stablehlo.reshape", {one}, {TensorType{d, {}}}, {}, {}, loc})[0];
  }

  /// Checks the sizes and strides of a real_dynamic_slice refined by sized_slice against its
  /// operand `x`; throws ShapeError naming the op.
  void check_sized_slice(const Op& op, const TensorType& x, const std::vector<int64_t>& size,
                         const std::vector<int64_t>& strides) const {
    if (static_cast<int64_t>(size.size()) != x.rank() || strides.size() != size.size())
      throw ShapeError("real_dynamic_slice", "",
                       fmt::format("limit - start {} and strides {} must have rank(operand) = {} "
                                   "entries{}",
                                   detail::list(size), detail::list(strides), x.rank(), where(op)));
    for (size_t d = 0; d < size.size(); ++d) {
      if (strides[d] <= 0)
        throw ShapeError(
            "real_dynamic_slice", "",
            fmt::format("stride {} of dim {} must be > 0{}", strides[d], d, where(op)));
      if (size[d] < 0 || size[d] > x.dims[d])
        throw ShapeError("real_dynamic_slice", "",
                         fmt::format("limit - start = {} in dim {} is outside [0, {}] for the "
                                     "operand {}{}",
                                     size[d], d, x.dims[d], x.to_string(), where(op)));
    }
  }

  /// real_dynamic_slice(x, start, add(start, C), strides) with C and strides constants and
  /// start data-dependent (JAX's lax.dynamic_slice whose slice sizes depend on dimension
  /// variables; JAX clamps start into [0, dim - C] first): result dim i is ceil(C[i] /
  /// strides[i]). It becomes dynamic_slice(x, start[0], ..., sizes = C), which XLA compiles and
  /// which agrees with it for every start in range (dynamic_slice clamps, real_dynamic_slice
  /// requires start in range), followed by a static slice with the strides when one is not 1.
  /// Throws hhlo::Error when neither this form nor constant start/limit/strides applies and the
  /// result is dynamic; false when the result is static and the op is left as written.
  bool sized_slice(const Op& op, std::string& name, std::vector<Value>& operands,
                   std::vector<NamedAttr>& attrs, std::vector<TensorType>& declared) {
    auto size = size_from_start(operands[1], operands[2]);
    auto strides = shape_values(operands[3]);
    const TensorType& x = operands[0].type();
    // A dynamic operand is an op upstream left dynamic: the error names that one.
    if (!x.is_static() || declared.size() != 1) return false;
    if (!size || !strides) {
      if (declared[0].is_static()) return false;
      throw Error(fmt::format(
          "refine_shapes: op '{}'{}: its result type {} stays dynamic: neither are its start, "
          "limit and strides constants after refinement, nor is its limit stablehlo.add(start, "
          "C) with C and the strides constants (the forms refined)",
          op.name(), where(op), types_to_string(declared)));
    }
    check_sized_slice(op, x, *size, *strides);
    std::vector<Value> ds = {operands[0]};
    for (int64_t d = 0; d < x.rank(); ++d) ds.push_back(element(operands[1], d, op.loc()));
    name = "stablehlo.dynamic_slice";
    operands = std::move(ds);
    attrs = {{"slice_sizes", i64_array(*size)}};
    declared[0].dims = *size;
    if (std::any_of(strides->begin(), strides->end(), [](int64_t s) { return s != 1; }))
      stride_window(op, name, operands, attrs, declared, *strides);
    return true;
  }

  /// Emits the op described by `name`, `operands`, `attrs` and `declared` (a window of
  /// declared[0]'s dims) and turns them into a static slice of it with `strides`: result dim i
  /// is ceil(dims[i] / strides[i]).
  void stride_window(const Op& op, std::string& name, std::vector<Value>& operands,
                     std::vector<NamedAttr>& attrs, std::vector<TensorType>& declared,
                     const std::vector<int64_t>& strides) {
    Value window = f_.append(OpState{name, operands, declared, attrs, {}, op.loc()})[0];
    Dims size = declared[0].dims;
    name = "stablehlo.slice";
    operands = {window};
    attrs = {{"start_indices", i64_array(std::vector<int64_t>(size.size(), 0))},
             {"limit_indices", i64_array(size)},
             {"strides", i64_array(strides)}};
    for (size_t d = 0; d < size.size(); ++d)
      declared[0].dims[d] = (size[d] + strides[d] - 1) / strides[d];
  }

  static bool has_rule(const std::string& n) {
    return detail::find_op_descriptor(n) != nullptr && n != "stablehlo.custom_call" &&
           n != "func.call";
  }

  [[noreturn]] void rethrow(const Op& op, const std::exception& e) const {
    if (const auto* se = dynamic_cast<const ShapeError*>(&e)) {
      std::string msg = se->what();
      size_t colon = msg.find("): ");
      std::string detail = msg.substr(msg.find(": ") + 2);
      if (colon != std::string::npos && !se->constraint().empty()) detail = msg.substr(colon + 3);
      throw ShapeError(se->op(), se->constraint(),
                       fmt::format("{} (refining '{}'{})", detail, op.name(), where(op)));
    }
    throw Error(fmt::format("refine_shapes: op '{}'{}: {}", op.name(), where(op), e.what()));
  }

  /// A custom call with dynamic results as JAX lowers one (jax's mlir.custom_call with
  /// result_shapes): attribute `indices_of_shape_operands` names, for each result in order, the
  /// operand holding its shape. Once those shapes are constants, the results get them and the
  /// shape operands go (with their operand_layouts entries and the attribute): the call JAX emits
  /// for static shapes, which is what the kernel binds (lapack_sgetrf_ffi takes the matrix only).
  /// False when a shape is not known yet.
  bool static_shape_operands(const Op& op, std::vector<Value>& operands,
                             std::vector<NamedAttr>& attrs,
                             std::vector<TensorType>& declared) const {
    const auto* dense = find_attr(attrs, "indices_of_shape_operands")->get_if<DenseAttr>();
    std::optional<Const> idx = dense && dense->array ? const_of(*dense->array) : std::nullopt;
    if (!idx || idx->v.size() != declared.size()) return false;
    for (std::size_t r = 0; r < declared.size(); ++r) {
      int64_t i = idx->v[r];
      if (i < 0 || i >= static_cast<int64_t>(operands.size())) return false;
      std::optional<Dims> dims = result_dims(op, operands[static_cast<std::size_t>(i)]);
      if (!dims || dims->size() != declared[r].dims.size()) return false;
      declared[r].dims = *dims;
    }
    std::vector<int64_t> gone = idx->v;
    std::sort(gone.begin(), gone.end());
    gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
    for (auto it = gone.rbegin(); it != gone.rend(); ++it) {
      operands.erase(operands.begin() + *it);
      for (NamedAttr& a : attrs)
        if (auto* l = a.name == "operand_layouts" ? std::get_if<LayoutsAttr>(&a.value.variant())
                                                  : nullptr;
            l && *it < static_cast<int64_t>(l->layouts.size()))
          l->layouts.erase(l->layouts.begin() + *it);
    }
    std::erase_if(attrs, [](const NamedAttr& a) { return a.name == "indices_of_shape_operands"; });
    return true;
  }

  std::vector<Value> emit_op(const Op& op, std::unordered_map<Value, Value>& map) {
    if (++emitted_ > max_ops_)
      throw Error(
          fmt::format("refine_shapes: more than {} ops after inlining the calls of @{} "
                      "(RefineOptions::max_ops)",
                      max_ops_, f_.name()));
    std::vector<Value> operands = mapped(op.operands(), map);
    const std::string& n0 = op.name();
    if (n0 == "func.call") return inline_call(op, operands, "callee");
    // A composite is its decomposition (what XLA compiles for composites it does not know); the
    // decomposition function is not kept, so it is inlined like a call.
    if (n0 == "stablehlo.composite") return inline_call(op, operands, "decomposition");
    if (n0 == "stablehlo.custom_call") {
      const Attribute* t = op.attr("call_target_name");
      const auto* target = t ? t->get_if<StringAttr>() : nullptr;
      // JAX writes @shape_assertion; XLA's older pass looked for @stablehlo.shape_assertion.
      if (target &&
          (target->value == "shape_assertion" || target->value == "stablehlo.shape_assertion")) {
        check_assertion(op, operands);
        return {};
      }
    }
    if (n0 == "stablehlo.case" && operands.size() == 1) {
      // A case on a known index (a multi-platform export's bound platform index): the chosen
      // branch in place, as JAX's refinement folds it, so the other platforms' code (cuSOLVER
      // calls of a CUDA branch) is never refined. The spec: an index outside [0, N) runs the
      // last branch.
      const Const* c = known(operands[0]);
      const auto n = static_cast<int64_t>(op.regions().size());
      if (c && c->v.size() == 1 && n > 0) {
        int64_t i = c->v[0] < 0 || c->v[0] >= n ? n - 1 : c->v[0];
        std::string term;
        return emit_block(*op.regions()[static_cast<size_t>(i)], map, &term);
      }
    }
    if (n0 == "stablehlo.get_dimension_size" && operands.size() == 1) {
      const Attribute* a = op.attr("dimension");
      const auto* d = a ? a->get_if<IntAttr>() : nullptr;
      const TensorType& t = operands[0].type();
      if (d && d->value >= 0 && d->value < t.rank() && t.dims[static_cast<size_t>(d->value)] >= 0) {
        TensorType r = infer_get_dimension_size(t, d->value);
        return {
            emit_constant(Const{r.dtype, {}, {t.dims[static_cast<size_t>(d->value)]}}, op.loc())};
      }
    }

    std::string name = n0;
    std::vector<NamedAttr> attrs = op.attrs();
    std::vector<TensorType> declared = detail::types_of(op.results());
    bool was_dynamic_op = false;
    const Func* region_fn = nullptr;
    if (name.starts_with("stablehlo."))
      was_dynamic_op = make_static(op, name, operands, attrs, declared, region_fn);

    // Regions: while's block arguments follow its (refined) operands; the others keep theirs
    // (scalars of reduce, sort, scatter, ...; none for if/case).
    std::vector<std::unique_ptr<Block>> regions;
    if (region_fn) regions.push_back(region_from(op, *region_fn));
    for (const auto& r : op.regions()) {
      std::vector<TensorType> arg_types = detail::types_of(r->args());
      if (name == "stablehlo.while") arg_types = detail::types_of(operands);
      regions.push_back(f_.build_block(arg_types, [&](const std::vector<Value>& args) {
        if (args.size() != r->args().size())
          throw Error(fmt::format("refine_shapes: '{}' region takes {} arguments, has {}", name,
                                  args.size(), r->args().size()));
        for (size_t i = 0; i < args.size(); ++i) map[r->arg(i)] = args[i];
        std::string term;
        std::vector<Value> rets = emit_block(*r, map, &term);
        f_.append(OpState{term, rets, {}, {}, {}, r->ops().back()->loc()});
      }));
    }

    std::vector<TensorType> results = declared;
    if (has_rule(name)) {
      try {
        results = detail::infer_op_results(
            {name, &attrs, &regions, detail::types_of(operands), declared});
      } catch (const std::exception& e) {
        rethrow(op, e);
      }
    }
    // The file's static types must agree with our rules (a dynamic op's declared result was
    // already replaced by the constant shape and is checked by its static form's rule).
    if (results.size() != op.results().size())
      throw Error(fmt::format("refine_shapes: op '{}'{}: {} results inferred, the file has {}",
                              op.name(), where(op), results.size(), op.results().size()));
    for (size_t i = 0; i < results.size(); ++i) {
      const TensorType& file = op.result(i).type();
      bool ok =
          file.dtype == results[i].dtype && detail::dims_compatible(file.dims, results[i].dims);
      if (!ok || (!was_dynamic_op && file.is_static() && file != results[i])) {
        std::string s = name.substr(name.find('.') + 1);
        std::string_view c;
        if (results.size() == 1 && is_elementwise(s, static_cast<int>(operands.size())))
          c = detail::elementwise_result_constraint(s, file.dims != results[i].dims);
        throw ShapeError(s, std::string(c),
                         fmt::format("refined result type {} disagrees with the file's {}{}",
                                     results[i].to_string(), file.to_string(), where(op)));
      }
    }

    // Fold small integer shape computations whose operands are all constants.
    if (name.starts_with("stablehlo.") && regions.empty() && results.size() == 1) {
      std::string_view s = std::string_view(name).substr(10);
      if (s == "constant") {
        const Attribute* v = find_attr(attrs, "value");
        const auto* d = v ? v->get_if<DenseAttr>() : nullptr;
        if (d) {
          Value out = f_.append(OpState{name, {}, results, attrs, {}, op.loc()})[0];
          if (auto c = const_of(*d->array)) consts_.emplace(out, std::move(*c));
          return {out};
        }
      }
      std::vector<const Const*> in;
      for (const Value& v : operands)
        if (const Const* c = known(v)) in.push_back(c);
      if (!operands.empty() && in.size() == operands.size())
        if (auto c = fold(s, attrs, in, results[0])) return {emit_constant(*c, op.loc())};
    }
    std::optional<std::pair<Value, Value>> sum;
    if (name == "stablehlo.add" && operands.size() == 2) sum.emplace(operands[0], operands[1]);
    std::vector<Value> out = f_.append(OpState{name, std::move(operands), std::move(results),
                                               std::move(attrs), std::move(regions), op.loc()});
    if (sum) sums_.emplace(out[0], *sum);
    return out;
  }

  const Module& src_;
  Func& f_;
  std::unordered_map<Value, Const> consts_;
  /// The operands of each stablehlo.add emitted (not folded): real_dynamic_slice's limit =
  /// start + C.
  std::unordered_map<Value, std::pair<Value, Value>> sums_;
  std::vector<const Func*> stack_;
  size_t max_ops_, emitted_ = 0;
};

/// The first op (in `b` or its regions) with a dynamic result or region argument type, or
/// nullptr.
const Op* first_dynamic(const Block& b) {
  for (const auto& op : b.ops()) {
    for (const Value& v : op->results())
      if (!v.type().is_static()) return op.get();
    for (const auto& r : op->regions()) {
      for (const Value& a : r->args())
        if (!a.type().is_static()) return op.get();
      if (const Op* o = first_dynamic(*r)) return o;
    }
  }
  return nullptr;
}

}  // namespace

bool has_dynamic_shapes(const Func& f) {
  for (const auto& t : f.arg_types())
    if (!t.is_static()) return true;
  for (const auto& t : f.result_types())
    if (!t.is_static()) return true;
  return first_dynamic(f.body()) != nullptr;
}

void refine_shapes(Module& module, std::span<const TensorType> arg_types,
                   const RefineOptions& options) {
  const Func* entry = module.find(options.entry);
  if (!entry)
    throw Error(fmt::format("refine_shapes: the module has no function @{}", options.entry));
  if (!entry->returned())
    throw Error(fmt::format("refine_shapes: @{} has no func.return", options.entry));
  if (arg_types.size() != entry->arg_types().size())
    throw Error(fmt::format("refine_shapes: @{} takes {} arguments {}, {} argument types given",
                            entry->name(), entry->arg_types().size(),
                            types_to_string(entry->arg_types()), arg_types.size()));
  for (size_t i = 0; i < arg_types.size(); ++i) {
    const TensorType &want = entry->arg_types()[i], &got = arg_types[i];
    if (!got.is_static() || want.dtype != got.dtype ||
        !detail::dims_compatible(want.dims, got.dims))
      throw Error(
          fmt::format("refine_shapes: argument {} of @{} has type {}; {} does not refine it "
                      "(same element type and rank, every static dimension kept, no '?')",
                      i, entry->name(), want.to_string(), got.to_string()));
  }

  Module out;
  out.set_name(module.name());
  for (const auto& a : module.attrs()) out.set_attr(a);
  Func& f = out.add_func(entry->name(), std::vector<TensorType>(arg_types.begin(), arg_types.end()),
                         entry->visibility());
  for (size_t i = 0; i < arg_types.size(); ++i)
    for (const auto& a : entry->arg_attrs(i)) f.set_arg_attr(i, a);
  for (const auto& a : entry->attrs()) f.set_attr(a);

  Refiner r(module, f, options.max_ops);
  std::unordered_map<Value, Value> map;
  for (size_t i = 0; i < arg_types.size(); ++i) map[entry->arg(i)] = f.arg(i);
  std::vector<Value> results = r.emit_block(entry->body(), map);
  f.ret_at(results, entry->body().ops().back()->loc());
  for (size_t i = 0; i < results.size(); ++i)
    for (const auto& a : entry->result_attrs(i)) f.set_result_attr(i, a);

  if (const Op* op = first_dynamic(f.body()))
    throw Error(fmt::format(
        "refine_shapes: op '{}'{} still has a dynamic result type {} after refinement: its shape "
        "is not computed from the argument shapes alone",
        op->name(), where(*op), types_to_string(detail::types_of(op->results()))));
  if (options.verify) {
    VerifyOptions vo;
    vo.allow_unknown_ops = true;
    verify(out, vo);
  }
  module = std::move(out);
}

}  // namespace hhlo
