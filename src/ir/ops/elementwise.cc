// The elementwise unary, binary and ternary (fma) ops: one table (name, arity, accepted element
// types, result element type rule), one shape rule per arity, one builder per arity, the
// descriptors made from the table.
#include <algorithm>
#include <array>
#include <unordered_map>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

// Accepted element type classes (bit set).
enum : unsigned { kPred = 1, kSInt = 2, kUInt = 4, kFloat = 8, kComplex = 16 };
constexpr unsigned kInt = kSInt | kUInt;
constexpr unsigned kAny = kPred | kInt | kFloat | kComplex;
constexpr unsigned kFC = kFloat | kComplex;

enum class Result : uint8_t { same, part, pred, complex };

struct Entry {
  std::string_view name;  // "stablehlo.abs"
  int arity;
  unsigned accepts;
  Result result;
};

constexpr std::array kTable = {
    Entry{"stablehlo.abs", 1, kSInt | kFC, Result::part},
    Entry{"stablehlo.cbrt", 1, kFC, Result::same},
    Entry{"stablehlo.ceil", 1, kFloat, Result::same},
    Entry{"stablehlo.cosine", 1, kFC, Result::same},
    Entry{"stablehlo.count_leading_zeros", 1, kInt, Result::same},
    Entry{"stablehlo.exp2", 1, kFC, Result::same},
    Entry{"stablehlo.exponential", 1, kFC, Result::same},
    Entry{"stablehlo.exponential_minus_one", 1, kFC, Result::same},
    Entry{"stablehlo.floor", 1, kFloat, Result::same},
    Entry{"stablehlo.imag", 1, kFC, Result::part},
    Entry{"stablehlo.is_finite", 1, kFloat, Result::pred},
    Entry{"stablehlo.log", 1, kFC, Result::same},
    Entry{"stablehlo.log2", 1, kFC, Result::same},
    Entry{"stablehlo.log_plus_one", 1, kFC, Result::same},
    Entry{"stablehlo.logistic", 1, kFC, Result::same},
    Entry{"stablehlo.negate", 1, kInt | kFC, Result::same},
    Entry{"stablehlo.not", 1, kPred | kInt, Result::same},
    Entry{"stablehlo.popcnt", 1, kInt, Result::same},
    Entry{"stablehlo.real", 1, kFC, Result::part},
    Entry{"stablehlo.round_nearest_afz", 1, kFloat, Result::same},
    Entry{"stablehlo.round_nearest_even", 1, kFloat, Result::same},
    Entry{"stablehlo.rsqrt", 1, kFC, Result::same},
    Entry{"stablehlo.sign", 1, kSInt | kFC, Result::same},
    Entry{"stablehlo.sine", 1, kFC, Result::same},
    Entry{"stablehlo.sqrt", 1, kFC, Result::same},
    Entry{"stablehlo.tan", 1, kFC, Result::same},
    Entry{"stablehlo.tanh", 1, kFC, Result::same},
    Entry{"stablehlo.add", 2, kAny, Result::same},
    Entry{"stablehlo.subtract", 2, kInt | kFC, Result::same},
    Entry{"stablehlo.multiply", 2, kAny, Result::same},
    Entry{"stablehlo.divide", 2, kInt | kFC, Result::same},
    Entry{"stablehlo.remainder", 2, kInt | kFloat, Result::same},
    Entry{"stablehlo.power", 2, kInt | kFC, Result::same},
    Entry{"stablehlo.maximum", 2, kAny, Result::same},
    Entry{"stablehlo.minimum", 2, kAny, Result::same},
    Entry{"stablehlo.and", 2, kPred | kInt, Result::same},
    Entry{"stablehlo.or", 2, kPred | kInt, Result::same},
    Entry{"stablehlo.xor", 2, kPred | kInt, Result::same},
    Entry{"stablehlo.atan2", 2, kFC, Result::same},
    Entry{"stablehlo.shift_left", 2, kInt, Result::same},
    Entry{"stablehlo.shift_right_arithmetic", 2, kInt, Result::same},
    Entry{"stablehlo.shift_right_logical", 2, kInt, Result::same},
    Entry{"stablehlo.complex", 2, kFloat, Result::complex},
    Entry{"stablehlo.fma", 3, kFC, Result::same},
};

// "abs": the name without the dialect, as the shape rules and their messages spell it.
constexpr std::string_view short_name(const Entry& e) { return e.name.substr(10); }

unsigned class_of(DType t) {
  if (is_pred(t)) return kPred;
  if (is_signed_int(t)) return kSInt;
  if (is_unsigned_int(t)) return kUInt;
  if (is_float(t)) return kFloat;
  if (is_complex(t)) return kComplex;
  return 0;  // token: no elementwise op takes it
}

// The table entry of `op` at `arity`, or nullptr: one hash look-up (the verifier asks for every
// op of a parsed module).
const Entry* find_entry(std::string_view op, int arity) {
  static const std::unordered_map<std::string_view, std::array<const Entry*, 3>> index = [] {
    std::unordered_map<std::string_view, std::array<const Entry*, 3>> m;
    for (const Entry& e : kTable) m[short_name(e)][e.arity - 1] = &e;
    return m;
  }();
  if (arity < 1 || arity > 3) return nullptr;
  auto it = index.find(op);
  return it == index.end() ? nullptr : it->second[arity - 1];
}

const Entry& lookup(std::string_view op, int arity) {
  if (const Entry* e = find_entry(op, arity)) return *e;
  detail::fail(op, "", "not an elementwise op of arity {}", arity);
}

std::string accepted(unsigned a) {
  std::string s;
  auto add = [&](unsigned bit, const char* n) {
    if (a & bit) s += (s.empty() ? "" : ", ") + std::string(n);
  };
  add(kPred, "pred");
  add(kSInt, "signed integer");
  add(kUInt, "unsigned integer");
  add(kFloat, "float");
  add(kComplex, "complex");
  return s;
}

DType result_dtype(const Entry& e, DType t) {
  switch (e.result) {
    case Result::same:
      return t;
    case Result::part:
      return complex_part(t);
    case Result::pred:
      return DType::pred;
    case Result::complex:
      break;
  }
  return t == DType::f64 ? DType::c128 : DType::c64;
}

}  // namespace

std::string_view detail::elementwise_result_constraint(std::string_view op, bool shape_differs) {
  if (op == "abs" || op == "real" || op == "imag") return shape_differs ? "C1" : "C2";
  if (op == "complex") return shape_differs ? "C2" : "C3";
  if (op == "is_finite") return shape_differs ? "C1" : "Results";
  return "C1";
}

bool is_elementwise(std::string_view op, int arity) { return find_entry(op, arity) != nullptr; }

std::vector<std::string_view> elementwise_op_names(int arity) {
  std::vector<std::string_view> out;
  for (const Entry& e : kTable)
    if (e.arity == arity) out.push_back(short_name(e));
  return out;
}

TensorType infer_unary(std::string_view op, const TensorType& x) {
  const Entry& e = lookup(op, 1);
  if (!(class_of(x.dtype) & e.accepts))
    detail::fail(op, "C1", "operand {} has element type {}; {} accepts {}", x.to_string(),
                 mlir_name(x.dtype), op, accepted(e.accepts));
  return TensorType{result_dtype(e, x.dtype), x.dims};
}

TensorType infer_binary(std::string_view op, const TensorType& lhs, const TensorType& rhs) {
  const Entry& e = lookup(op, 2);
  if (!detail::dims_compatible(lhs.dims, rhs.dims))
    detail::fail(op, "C1",
                 "operand shapes differ: lhs {}, rhs {}; broadcast explicitly with "
                 "broadcast_in_dim (or use hhlo::Tensor operators)",
                 lhs.to_string(), rhs.to_string());
  if (lhs.dtype != rhs.dtype)
    detail::fail(op, "C1", "element types differ: lhs {}, rhs {}; convert one operand first",
                 lhs.to_string(), rhs.to_string());
  if (!(class_of(lhs.dtype) & e.accepts) ||
      (e.result == Result::complex && lhs.dtype != DType::f32 && lhs.dtype != DType::f64))
    detail::fail(op, "C1", "operands {} have element type {}; {} accepts {}", lhs.to_string(),
                 mlir_name(lhs.dtype), op,
                 e.result == Result::complex ? std::string("f32, f64") : accepted(e.accepts));
  Dims dims = lhs.dims;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == kDynamic) dims[i] = rhs.dims[i];
  return TensorType{result_dtype(e, lhs.dtype), dims};
}

TensorType infer_fma(const TensorType& a, const TensorType& b, const TensorType& c) {
  const Entry& e = lookup("fma", 3);
  for (const TensorType* t : {&b, &c})
    if (!detail::dims_compatible(a.dims, t->dims) || a.dtype != t->dtype)
      detail::fail("fma", "C1", "operands differ in type: a {}, b {}, c {}; fma takes one type",
                   a.to_string(), b.to_string(), c.to_string());
  if (!(class_of(a.dtype) & e.accepts))
    detail::fail("fma", "C1", "operands {} have element type {}; fma accepts {}", a.to_string(),
                 mlir_name(a.dtype), accepted(e.accepts));
  Dims dims = a.dims;
  for (size_t i = 0; i < dims.size(); ++i)
    for (const TensorType* t : {&b, &c})
      if (dims[i] == kDynamic) dims[i] = t->dims[i];
  return TensorType{a.dtype, dims};
}

Value unary(std::string_view op, Value x, Loc loc) {
  Value ops[] = {x};
  Func& f = detail::func_of(op, ops);
  TensorType t = infer_unary(op, x.type());
  return f.append({"stablehlo." + std::string(op), {x}, {t}, {}, {}, Location::from(loc)})[0];
}

Value binary(std::string_view op, Value lhs, Value rhs, Loc loc) {
  Value ops[] = {lhs, rhs};
  Func& f = detail::func_of(op, ops);
  TensorType t = infer_binary(op, lhs.type(), rhs.type());
  return f.append(
      {"stablehlo." + std::string(op), {lhs, rhs}, {t}, {}, {}, Location::from(loc)})[0];
}

Value fma(Value a, Value b, Value c, Loc loc) {
  Value ops[] = {a, b, c};
  Func& f = detail::func_of("fma", ops);
  TensorType t = infer_fma(a.type(), b.type(), c.type());
  return f.append({"stablehlo.fma", {a, b, c}, {t}, {}, {}, Location::from(loc)})[0];
}

namespace {

// An elementwise op with another operand count has no rule: "unknown op", as for any name without
// a descriptor.
std::vector<TensorType> infer_unary_op(const detail::OpInfo& op) {
  if (op.operands.size() != 1) detail::fail_struct("unknown op");
  return {infer_unary(op.name.substr(10), op.operands[0])};
}

std::vector<TensorType> infer_binary_op(const detail::OpInfo& op) {
  if (op.operands.size() != 2) detail::fail_struct("unknown op");
  return {infer_binary(op.name.substr(10), op.operands[0], op.operands[1])};
}

std::vector<TensorType> infer_fma_op(const detail::OpInfo& op) {
  if (op.operands.size() != 3) detail::fail_struct("unknown op");
  return {infer_fma(op.operands[0], op.operands[1], op.operands[2])};
}

constexpr auto kOps = [] {
  std::array<detail::OpDescriptor, kTable.size()> a{};
  for (size_t i = 0; i < kTable.size(); ++i)
    a[i] = {kTable[i].name, kTable[i].arity == 1   ? infer_unary_op
                            : kTable[i].arity == 2 ? infer_binary_op
                                                   : infer_fma_op};
  return a;
}();

}  // namespace

std::span<const detail::OpDescriptor> detail::elementwise_ops() { return kOps; }

}  // namespace hhlo
