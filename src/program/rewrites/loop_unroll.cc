// The opt-in unrolling of counted loops (hhlo/program/loop_unroll.h): @main copied, each top-level
// while loop of known trip count rebuilt with its body repeated k times.
#include "hhlo/program/loop_unroll.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/inline.h"
#include "main_copy.h"

namespace hhlo {
namespace {

/// An integer constant, exact: as int64 for the signed types, as uint64 for the unsigned ones
/// (never through a double, which rounds past 2^53).
struct IntConstant {
  bool is_unsigned = false;
  int64_t s = 0;
  uint64_t u = 0;
  bool operator==(int64_t v) const { return is_unsigned ? v >= 0 && u == uint64_t(v) : s == v; }
};

/// The integer a `stablehlo.constant` scalar `v` holds, when it is one.
std::optional<IntConstant> constant_int(Value v) {
  const Op* op = v.defining_op();
  if (!op || op->name() != "stablehlo.constant" || v.rank() != 0 || !is_integer(v.dtype()))
    return std::nullopt;
  const Attribute* a = op->attr("value");
  const DenseAttr* d = a ? a->get_if<DenseAttr>() : nullptr;
  if (!d || d->array->num_elements() != 1) return std::nullopt;
  const Array& x = *d->array;
  auto sig = [](int64_t s) { return IntConstant{false, s, 0}; };
  auto uns = [](uint64_t u) { return IntConstant{true, 0, u}; };
  switch (x.dtype()) {
    case DType::i8:
      return sig(x.values<int8_t>()[0]);
    case DType::i16:
      return sig(x.values<int16_t>()[0]);
    case DType::i32:
      return sig(x.values<int32_t>()[0]);
    case DType::i64:
      return sig(x.values<int64_t>()[0]);
    case DType::ui8:
      return uns(x.values<uint8_t>()[0]);
    case DType::ui16:
      return uns(x.values<uint16_t>()[0]);
    case DType::ui32:
      return uns(x.values<uint32_t>()[0]);
    case DType::ui64:
      return uns(x.values<uint64_t>()[0]);
    default:
      return std::nullopt;
  }
}

/// The number of integers in [start, n) of one type, exactly, or nullopt when it is past
/// INT64_MAX (0 when n <= start).
std::optional<int64_t> count_between(const IntConstant& start, const IntConstant& n) {
  if (start.is_unsigned != n.is_unsigned) return std::nullopt;
  if (n.is_unsigned) {
    if (n.u <= start.u) return 0;
    uint64_t d = n.u - start.u;
    if (d > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  if (n.s <= start.s) return 0;
  int64_t d = 0;
  if (__builtin_sub_overflow(n.s, start.s, &d)) return std::nullopt;
  return d;
}

/// The ids of every value `b` and its nested regions define (arguments and results).
void defined_in(const Block& b, std::unordered_set<uint32_t>& ids) {
  for (Value a : b.args()) ids.insert(a.id());
  for (const auto& op : b.ops()) {
    for (Value r : op->results()) ids.insert(r.id());
    for (const auto& region : op->regions()) defined_in(*region, ids);
  }
}

/// Whether every operand of an op in `b` (at any depth) is defined in `b` or is a constant
/// (which inline_region copies in).
bool self_contained(const Block& b) {
  std::unordered_set<uint32_t> ids;
  defined_in(b, ids);
  auto uses_only = [&ids](const Block& blk, const auto& self) -> bool {
    for (const auto& op : blk.ops()) {
      for (Value v : op->operands()) {
        const Op* def = v.defining_op();
        if (!ids.count(v.id()) && !(def && def->name() == "stablehlo.constant")) return false;
      }
      for (const auto& region : op->regions())
        if (!self(*region, self)) return false;
    }
    return true;
  };
  return uses_only(b, uses_only);
}

/// The value `b`'s terminator returns at `i`.
std::optional<Value> returned(const Block& b, size_t i) {
  if (b.ops().empty() || b.ops().back()->name() != "stablehlo.return") return std::nullopt;
  const Op& ret = *b.ops().back();
  if (i >= ret.operands().size()) return std::nullopt;
  return ret.operands()[i];
}

/// The operand index of the counter when `cond` is only `compare LT, arg_i, constant n`, with n
/// (the constant inside the region or outside it).
std::optional<std::pair<size_t, IntConstant>> counter_in_condition(const Block& cond) {
  for (const auto& op : cond.ops())
    if (op->name() != "stablehlo.constant" && op->name() != "stablehlo.compare" &&
        op->name() != "stablehlo.return")
      return std::nullopt;
  if (cond.ops().size() > 3) return std::nullopt;
  std::optional<Value> flag = returned(cond, 0);
  const Op* cmp = flag ? flag->defining_op() : nullptr;
  if (!cmp || cmp->name() != "stablehlo.compare") return std::nullopt;
  const Attribute* dir = cmp->attr("comparison_direction");
  const auto* d = dir ? dir->get_if<ComparisonDirection>() : nullptr;
  if (!d || *d != ComparisonDirection::LT) return std::nullopt;
  Value lhs = cmp->operands()[0];
  std::optional<IntConstant> n = constant_int(cmp->operands()[1]);
  if (lhs.defining_op() || !n) return std::nullopt;  // lhs must be an argument of the region
  for (size_t i = 0; i < cond.args().size(); ++i)
    if (cond.arg(i) == lhs) return std::pair{i, *n};
  return std::nullopt;
}

/// Whether `body` returns `arg_i + 1` at i.
bool counts_up_by_one(const Block& body, size_t i) {
  std::optional<Value> next = returned(body, i);
  const Op* add = next ? next->defining_op() : nullptr;
  if (!add || add->name() != "stablehlo.add") return false;
  Value a = add->operands()[0], b = add->operands()[1];
  Value arg = body.arg(i);
  return (a == arg && constant_int(b) == 1) || (b == arg && constant_int(a) == 1);
}

/// The trip count of while loop `op`, or why it cannot be read.
std::variant<int64_t, std::string> trip_count(const Op& op) {
  const Block& cond = *op.regions()[0];
  const Block& body = *op.regions()[1];
  if (!self_contained(cond) || !self_contained(body))
    return std::string("a region uses a value from outside it that is not a constant");
  auto counter = counter_in_condition(cond);
  if (!counter) return std::string("the condition is not `counter < constant`");
  auto [i, n] = *counter;
  if (!counts_up_by_one(body, i)) return std::string("the counter does not step by 1");
  std::optional<IntConstant> start = constant_int(op.operands()[i]);
  if (!start) return std::string("the counter does not start at a constant");
  // Integer bounds are integers: counted exactly (a 64-bit counter from above 2^53 was counted
  // through doubles, and the unrolled loop ran the wrong number of iterations).
  std::optional<int64_t> trips = count_between(*start, n);
  if (!trips) return std::string("its trip count cannot be counted exactly in 64 bits");
  if (*trips < 2) return std::string("fewer than 2 iterations");
  return *trips;
}

/// The largest divisor of `trips` in [2, factor], or 1.
int64_t unroll_by(int64_t trips, int factor) {
  for (int64_t k = std::min<int64_t>(factor, trips); k >= 2; --k)
    if (trips % k == 0) return k;
  return 1;
}

}  // namespace

LoopUnroll unroll_loops(const Module& module, int factor) {
  if (factor < 2)
    throw Error(fmt::format("unroll_loops: factor {}; give 2 or more iterations per body", factor));
  LoopUnroll r;
  auto keep = [&r](std::string why) {
    if (r.kept++ == 0) r.first_kept_reason = std::move(why);
    return std::nullopt;
  };
  InlineRewrite unroll =
      [&](const Op& op, const std::vector<Value>& operands) -> std::optional<std::vector<Value>> {
    if (op.name() != "stablehlo.while") return std::nullopt;
    std::variant<int64_t, std::string> trips = trip_count(op);
    if (const std::string* why = std::get_if<std::string>(&trips)) return keep(*why);
    int64_t k = unroll_by(std::get<int64_t>(trips), factor);
    if (k < 2)
      return keep(fmt::format("no divisor of its {} iterations up to {}", std::get<int64_t>(trips),
                              factor));
    Func& f = operands.at(0).func();
    const Block& cond = *op.regions()[0];
    const Block& body = *op.regions()[1];
    std::vector<TensorType> types;
    for (Value v : operands) types.push_back(v.type());
    OpState st{.name = "stablehlo.while",
               .operands = operands,
               .result_types = types,
               .attrs = op.attrs(),
               .regions = {},
               .loc = op.loc()};
    st.regions.push_back(f.build_region(
        "stablehlo.while", types,
        [&](const std::vector<Value>& a) { return inline_region(f, module, cond, a); },
        cond.ops().back()->loc()));
    st.regions.push_back(f.build_region(
        "stablehlo.while", types,
        [&](const std::vector<Value>& a) {
          std::vector<Value> v = a;
          for (int64_t j = 0; j < k; ++j) v = inline_region(f, module, body, v);
          return v;
        },
        body.ops().back()->loc()));
    ++r.unrolled;
    return f.append(std::move(st));
  };
  r.module = detail::copy_main(module, unroll, "unroll_loops");
  return r;
}

}  // namespace hhlo
