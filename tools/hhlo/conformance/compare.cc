#include "conformance/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <type_traits>

namespace hhlo::conformance {
namespace {

template <typename T>
struct FloatTraits;
template <>
struct FloatTraits<f16_t> {
  using Bits = uint16_t;
  static constexpr int kSignBit = 15;
  static double value(f16_t x) { return static_cast<float>(x); }
};
template <>
struct FloatTraits<bf16_t> {
  using Bits = uint16_t;
  static constexpr int kSignBit = 15;
  static double value(bf16_t x) { return static_cast<float>(x); }
};
template <>
struct FloatTraits<float> {
  using Bits = uint32_t;
  static constexpr int kSignBit = 31;
  static double value(float x) { return x; }
};
template <>
struct FloatTraits<double> {
  using Bits = uint64_t;
  static constexpr int kSignBit = 63;
  static double value(double x) { return x; }
};
/// The narrow floats: the format's bits in the low bits of a byte (f8E8M0FNU has no sign).
template <DType D>
struct FloatTraits<narrow_float<D>> {
  using Bits = uint8_t;
  static constexpr int kSignBit = D == DType::f4E2M1FN                           ? 3
                                  : D == DType::f6E2M3FN || D == DType::f6E3M2FN ? 5
                                  : D == DType::f8E8M0FNU                        ? -1
                                                                                 : 7;
  static double value(narrow_float<D> x) { return static_cast<double>(x); }
};

template <typename T>
typename FloatTraits<T>::Bits bits_of(T x) {
  typename FloatTraits<T>::Bits b;
  static_assert(sizeof(b) == sizeof(x));
  std::memcpy(&b, &x, sizeof(b));
  return b;
}

/// Distance in units in the last place between two finite floats of the same format: the
/// difference of their positions on the ordered line of representable values (+0 and -0 coincide).
template <typename T>
unsigned __int128 ulp_distance(T a, T b) {
  using Bits = typename FloatTraits<T>::Bits;
  constexpr int kSignBit = FloatTraits<T>::kSignBit;
  constexpr Bits sign = kSignBit < 0 ? Bits(0) : Bits(uint64_t{1} << (kSignBit < 0 ? 0 : kSignBit));
  auto ordered = [](Bits x) -> __int128 {
    __int128 magnitude = static_cast<__int128>(x & Bits(~sign));
    return (x & sign) ? -magnitude : magnitude;
  };
  __int128 d = ordered(bits_of(a)) - ordered(bits_of(b));
  return static_cast<unsigned __int128>(d < 0 ? -d : d);
}

/// Outcome of one scalar comparison: ok, plus the distance to print when not.
struct Verdict {
  bool ok = true;
  std::string detail;
};

template <typename T>
Verdict compare_float(CheckKind kind, T a, T b) {
  double x = FloatTraits<T>::value(a), y = FloatTraits<T>::value(b);
  bool nan_x = std::isnan(x), nan_y = std::isnan(y);
  if (nan_x && nan_y) return {};
  switch (kind) {
    case CheckKind::eq:
      if (bits_of(a) == bits_of(b) || x == y) return {};
      return {false, ""};
    case CheckKind::close: {
      if (!std::isfinite(x) || !std::isfinite(y)) {
        if (bits_of(a) == bits_of(b)) return {};
        return {false, "non-finite values must match bit for bit"};
      }
      unsigned __int128 d = ulp_distance(a, b);
      if (d <= static_cast<unsigned>(kMaxUlp)) return {};
      std::string ds =
          d > (unsigned __int128)UINT64_MAX ? std::string(">2^64") : fmt::format("{}", (uint64_t)d);
      return {false, fmt::format("{} ULP apart, at most {} allowed", ds, kMaxUlp)};
    }
    case CheckKind::almost_eq: {
      if (x == y) return {};
      if (nan_x || nan_y) return {false, "NaN matches only NaN"};
      if (std::signbit(x) != std::signbit(y) && x != 0 && y != 0) return {false, "signs differ"};
      double d = std::fabs(x - y);
      if (d <= kAlmostEqTolerance) return {};
      return {false, fmt::format("|difference| {:g} > {:g}", d, kAlmostEqTolerance)};
    }
  }
  return {false, ""};
}

template <typename T>
std::string show(const T& v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else if constexpr (kIsFloatStruct<T>)
    return fmt::format("{}", static_cast<float>(v));
  else if constexpr (kIsNarrowInt<T>)
    return fmt::format("{}", v.value());
  else if constexpr (std::is_same_v<T, std::complex<float>> ||
                     std::is_same_v<T, std::complex<double>>)
    return fmt::format("({}, {})", v.real(), v.imag());
  else if constexpr (std::is_floating_point_v<T>)
    return fmt::format("{}", v);
  else
    return fmt::format("{}", +v);
}

template <typename T>
Verdict compare_element(CheckKind kind, const T& a, const T& b) {
  if constexpr (std::is_same_v<T, bool>) {
    return {a == b, ""};
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>>) {
    using P = typename T::value_type;
    Verdict re = compare_float<P>(kind, a.real(), b.real());
    Verdict im = compare_float<P>(kind, a.imag(), b.imag());
    if (re.ok && im.ok) return {};
    return {false, !re.ok ? "real part: " + re.detail : "imaginary part: " + im.detail};
  } else if constexpr (kIsFloatStruct<T> || std::is_floating_point_v<T>) {
    return compare_float<T>(kind, a, b);
  } else {
    return {a == b, ""};
  }
}

std::string multi_index(const Dims& dims, int64_t flat) {
  std::vector<int64_t> idx(dims.size());
  for (std::size_t d = dims.size(); d-- > 0;) {
    idx[d] = dims[d] ? flat % dims[d] : 0;
    flat = dims[d] ? flat / dims[d] : 0;
  }
  std::string s;
  for (std::size_t d = 0; d < idx.size(); ++d) s += fmt::format("{}{}", d ? ", " : "", idx[d]);
  return "[" + s + "]";
}

}  // namespace

std::optional<CheckKind> check_kind(std::string_view target) {
  if (target == "check.expect_eq") return CheckKind::eq;
  if (target == "check.expect_close") return CheckKind::close;
  if (target == "check.expect_almost_eq") return CheckKind::almost_eq;
  return std::nullopt;
}

std::string_view check_target(CheckKind kind) {
  switch (kind) {
    case CheckKind::eq:
      return "check.expect_eq";
    case CheckKind::close:
      return "check.expect_close";
    case CheckKind::almost_eq:
      return "check.expect_almost_eq";
  }
  return "check.unknown";
}

std::optional<std::string> compare(CheckKind kind, const TensorType& type, const void* actual,
                                   const void* expected) {
  int64_t n = type.num_elements();
  return visit_dtype(type.dtype, [&](auto tag) -> std::optional<std::string> {
    using T = decltype(tag);
    using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
    const auto* a = static_cast<const Stored*>(actual);
    const auto* b = static_cast<const Stored*>(expected);
    int64_t bad = 0, first = -1;
    Verdict first_verdict;
    double worst_abs = 0, worst_rel = 0;  // over the differing finite elements (floats, complex)
    for (int64_t i = 0; i < n; ++i) {
      Verdict v;
      if constexpr (std::is_same_v<T, bool>)
        v = compare_element<bool>(kind, a[i] != 0, b[i] != 0);
      else
        v = compare_element<T>(kind, a[i], b[i]);
      if (v.ok) continue;
      if constexpr (std::is_same_v<T, std::complex<float>> ||
                    std::is_same_v<T, std::complex<double>>) {
        double d = std::abs(std::complex<double>(a[i]) - std::complex<double>(b[i]));
        double m = std::abs(std::complex<double>(b[i]));
        if (std::isfinite(d)) {
          worst_abs = std::max(worst_abs, d);
          if (m > 0) worst_rel = std::max(worst_rel, d / m);
        }
      } else if constexpr (kIsFloatStruct<T> || std::is_floating_point_v<T>) {
        using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
        double x = static_cast<Wide>(a[i]), y = static_cast<Wide>(b[i]);
        double d = std::abs(x - y);
        if (std::isfinite(d)) {
          worst_abs = std::max(worst_abs, d);
          if (y != 0) worst_rel = std::max(worst_rel, d / std::abs(y));
        }
      }
      if (bad++ == 0) {
        first = i;
        first_verdict = std::move(v);
      }
    }
    if (bad == 0) return std::nullopt;
    std::string av, bv;
    if constexpr (std::is_same_v<T, bool>) {
      av = show<bool>(a[first] != 0);
      bv = show<bool>(b[first] != 0);
    } else {
      av = show<T>(a[first]);
      bv = show<T>(b[first]);
    }
    std::string worst;
    if (worst_abs > 0)
      worst = fmt::format("; worst |difference| {:.3g} (relative {:.2g})", worst_abs, worst_rel);
    return fmt::format(
        "{}: {} of {} elements of {} differ; first at {}: actual {}, expected {}{}{}",
        check_target(kind), bad, n, type.to_string(), multi_index(type.dims, first), av, bv,
        first_verdict.detail.empty() ? "" : " (" + first_verdict.detail + ")", worst);
  });
}

}  // namespace hhlo::conformance
