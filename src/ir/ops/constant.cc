// constant and iota: ops that create values from attributes only.
#include <cmath>
#include <complex>
#include <limits>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

template <typename T>
constexpr bool is_std_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Converts `s` to the element type `T` of `dtype`, or throws when it does not fit.
template <typename T>
T scalar_to(const Scalar& s, DType dtype) {
  auto out_of_range = [&](const std::string& shown) -> T {
    detail::fail("constant", "", "literal {} is out of range of element type {}", shown,
                 mlir_name(dtype));
  };
  auto shown = [&]() -> std::string {
    switch (s.kind) {
      case Scalar::Kind::int_:
        return std::to_string(s.i);
      case Scalar::Kind::uint_:
        return std::to_string(s.u);
      case Scalar::Kind::bool_:
        return s.i ? "true" : "false";
      case Scalar::Kind::float_:
        break;
    }
    return fmt::format("{}", s.f);
  };
  if constexpr (std::is_same_v<T, bool>) {
    if (s.kind == Scalar::Kind::bool_) return s.i != 0;
    if ((s.kind == Scalar::Kind::int_ && (s.i == 0 || s.i == 1)) ||
        (s.kind == Scalar::Kind::uint_ && s.u <= 1) ||
        (s.kind == Scalar::Kind::float_ && (s.f == 0 || s.f == 1)))
      return s.kind == Scalar::Kind::float_ ? s.f != 0 : (s.i != 0 || s.u != 0);
    return out_of_range(shown());
  } else if constexpr (is_std_int<T>) {
    using L = std::numeric_limits<T>;
    switch (s.kind) {
      case Scalar::Kind::bool_:
        return static_cast<T>(s.i);
      case Scalar::Kind::int_:
        if (s.i < 0 ? (std::is_unsigned_v<T> || s.i < static_cast<int64_t>(L::min()))
                    : static_cast<uint64_t>(s.i) > static_cast<uint64_t>(L::max()))
          return out_of_range(shown());
        return static_cast<T>(s.i);
      case Scalar::Kind::uint_:
        if (s.u > static_cast<uint64_t>(L::max())) return out_of_range(shown());
        return static_cast<T>(s.u);
      case Scalar::Kind::float_:
        if (!(s.f == std::trunc(s.f)) || s.f < static_cast<double>(L::min()) ||
            s.f >= std::ldexp(1.0, L::digits))
          return out_of_range(shown());
        return static_cast<T>(s.f);
    }
    return T{};
  } else if constexpr (kIsNarrowInt<T>) {
    bool ok = s.kind == Scalar::Kind::int_    ? s.i >= T::kMin && s.i <= T::kMax
              : s.kind == Scalar::Kind::uint_ ? s.u <= static_cast<uint64_t>(T::kMax)
              : s.kind == Scalar::Kind::float_
                  ? s.f == std::trunc(s.f) && s.f >= T::kMin && s.f <= T::kMax
                  : true;
    if (!ok) return out_of_range(shown());
    return s.kind == Scalar::Kind::float_  ? T(s.f)
           : s.kind == Scalar::Kind::uint_ ? T(s.u)
                                           : T(s.i);
  } else {
    double d = s.kind == Scalar::Kind::float_  ? s.f
               : s.kind == Scalar::Kind::uint_ ? static_cast<double>(s.u)
                                               : static_cast<double>(s.i);
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      return T(static_cast<typename T::value_type>(d), 0);
    else if constexpr (std::is_same_v<T, f16_t> || std::is_same_v<T, bf16_t>)
      return T(static_cast<float>(d));
    else if constexpr (kIsFloatStruct<T>)
      return T(d);
    else
      return static_cast<T>(d);
  }
}

}  // namespace

TensorType infer_iota(const TensorType& output, int64_t iota_dimension) {
  // (C1)
  if (iota_dimension < 0 || iota_dimension >= output.rank())
    detail::fail("iota", "C1", "iota_dimension {} outside [0, {}) for {}", iota_dimension,
                 output.rank(), output.to_string());
  if (is_pred(output.dtype))
    detail::fail("iota", "", "{} has element type i1; iota needs an integer, float or complex type",
                 output.to_string());
  return output;
}

Value constant(Func& f, const Array& value, Loc loc) {
  return f.append({"stablehlo.constant",
                   {},
                   {value.type()},
                   {{"value", dense_attr(value)}},
                   {},
                   Location::from(loc)})[0];
}

Value constant(Func& f, Scalar value, DType dtype, Dims dims, Loc loc) {
  Array a(dtype, dims);
  visit_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    T v = scalar_to<T>(value, dtype);
    T* p = static_cast<T*>(a.data());
    for (int64_t i = 0; i < a.num_elements(); ++i) p[i] = v;
  });
  return constant(f, a, loc);
}

Value iota(Func& f, const TensorType& type, int64_t iota_dimension, Loc loc) {
  TensorType t = infer_iota(type, iota_dimension);
  return f.append({"stablehlo.iota",
                   {},
                   {t},
                   {{"iota_dimension", i64_attr(iota_dimension)}},
                   {},
                   Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_constant_op(const detail::OpInfo& op) {
  op.need(0);
  return {op.get<DenseAttr>("value").array->type()};
}

std::vector<TensorType> infer_iota_op(const detail::OpInfo& op) {
  op.need(0);
  if (op.results.size() != 1) detail::fail_struct("needs one result");
  return {infer_iota(op.results[0], op.integer("iota_dimension"))};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.constant", infer_constant_op},
    {"stablehlo.iota", infer_iota_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::constant_ops() { return kOps; }

}  // namespace hhlo
