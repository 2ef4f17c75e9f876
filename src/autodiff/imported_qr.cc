// JAX's exported QR recognised at inlining (see imported_qr.h): geqrf + orgqr / ungqr become the
// composite hhlo.qr's R and Q, the Householder vectors between them a value without a derivative.
#include "imported_qr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "hhlo/ops/linalg.h"
#include "hhlo/ops/stop_gradient.h"

namespace hhlo::ad::detail {
namespace {

std::string target_of(const Op& op) {
  if (op.name() != "stablehlo.custom_call") return "";
  const Attribute* t = op.attr("call_target_name");
  const auto* s = t ? t->get_if<StringAttr>() : nullptr;
  return s ? s->value : "";
}

bool is_lapack(const std::string& target, std::initializer_list<const char*> routines) {
  if (target.size() < 12 || target.rfind("lapack_", 0) != 0) return false;
  for (const char* r : routines)
    if (target.substr(8) == fmt::format("{}_ffi", r)) return true;
  return false;
}

const std::vector<int64_t>& i64s(const Op& op, const char* name) {
  static const std::vector<int64_t> none;
  const Attribute* a = op.attr(name);
  const auto* v = a ? a->get_if<I64ArrayAttr>() : nullptr;
  return v ? v->values : none;
}

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  return std::all_of(v.begin(), v.end(), [x](int64_t e) { return e == x; });
}

/// `x` itself in value; its derivative NaN wherever `a`'s would be nonzero (see the header).
Value householder_vectors(Value x, Value a) {
  Module& module = x.func().module();
  std::string name =
      fmt::format("hhlo_householder_vectors_{}_{}", x.type().to_string(), a.type().to_string());
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  const Func* identity = module.find(name);
  if (!identity) {
    Func& g = module.add_func(name, {x.type(), a.type()}, Visibility::private_);
    g.ret({g.arg(0)});
    identity = &g;
  }
  return composite("hhlo.householder_vectors", {x, a}, *identity)[0];
}

/// The upper triangle (diagonal included) of the trailing matrices of `x`'s dims, as a predicate.
Value upper_mask(Value x) {
  TensorType it{DType::i32, x.dims()};
  Value row = iota(x.func(), it, x.rank() - 2), col = iota(x.func(), it, x.rank() - 1);
  return compare(row, col, ComparisonDirection::LE);
}

class JaxQr {
 public:
  std::optional<std::vector<Value>> operator()(const Op& op, const std::vector<Value>& operands) {
    std::string target = target_of(op);
    if (is_lapack(target, {"geqrf"})) return geqrf(op, operands);
    if (is_lapack(target, {"orgqr", "ungqr"})) return orgqr(op, operands);
    return std::nullopt;
  }

 private:
  struct Found {
    Value a, packed, taus;
  };

  std::optional<std::vector<Value>> geqrf(const Op& op, const std::vector<Value>& operands) {
    Value a = operands.at(0);
    if (a.rank() < 2 || op.results().size() != 2) return std::nullopt;
    OpState st;
    st.name = op.name();
    st.operands = {np::stop_gradient(a)};
    for (Value r : op.results()) st.result_types.push_back(r.type());
    st.attrs = op.attrs();
    st.loc = op.loc();
    std::vector<Value> raw = a.func().append(std::move(st));
    int64_t rank = a.rank(), m = a.dim(-2), n = a.dim(-1);
    Value r = np::linalg::qr_composite(a, false)[1];  // [..., min(m, n), n]
    if (m > n) {
      std::vector<int64_t> lo(static_cast<size_t>(rank), 0), hi(lo), in(lo);
      hi[static_cast<size_t>(rank - 2)] = m - n;
      r = pad(r, constant(a.func(), 0.0, r.dtype()), lo, hi, in);
    }
    Value packed = select(upper_mask(raw[0]), r, householder_vectors(raw[0], a));
    Value taus = householder_vectors(raw[1], a);
    found_[packed.id()] = found_[taus.id()] = Found{a, packed, taus};
    return std::vector<Value>{packed, taus};
  }

  /// The value `h` is a slice from the origin or a right / bottom zero-interior pad of, if any.
  static Value through_slices(Value h) {
    for (const Op* d = h.defining_op(); d; d = h.defining_op()) {
      if (d->name() == "stablehlo.slice" && all_equal(i64s(*d, "start_indices"), 0) &&
          all_equal(i64s(*d, "strides"), 1)) {
        h = d->operands()[0];
      } else if (d->name() == "stablehlo.pad" && all_equal(i64s(*d, "edge_padding_low"), 0) &&
                 all_equal(i64s(*d, "interior_padding"), 0)) {
        h = d->operands()[0];
      } else {
        break;
      }
    }
    return h;
  }

  std::optional<std::vector<Value>> orgqr(const Op& op, const std::vector<Value>& operands) {
    if (operands.size() != 2 || op.results().size() != 1) return std::nullopt;
    auto it = found_.find(through_slices(operands[0]).id());
    if (it == found_.end() || it->second.packed != through_slices(operands[0]) ||
        it->second.taus != operands[1])
      return std::nullopt;
    Value a = it->second.a;
    const TensorType& want = op.result(0).type();
    int64_t m = a.dim(-2), n = a.dim(-1);
    bool full = want.dims.back() == m && m > n;
    Value q = np::linalg::qr_composite(a, full)[0];
    if (q.type() != want) return std::nullopt;
    return std::vector<Value>{q};
  }

  std::unordered_map<uint32_t, Found> found_;
};

}  // namespace

InlineRewrite jax_qr_rewrite() {
  auto state = std::make_shared<JaxQr>();
  return
      [state](const Op& op, const std::vector<Value>& operands) { return (*state)(op, operands); };
}

}  // namespace hhlo::ad::detail
