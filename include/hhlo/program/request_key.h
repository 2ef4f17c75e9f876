// Keys derived from every field of an options struct, by one generic writer: a new field of
// hhlo::load's options (or of any struct it holds) is part of every key without a line of key
// code (Boost.PFR reads the fields of an aggregate in order). Used for the load key, the
// records of the program stage and Session's in-memory executables.
#pragma once

#include <boost/pfr/core.hpp>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "hhlo/core/key_fields.h"
#include "hhlo/core/sha256.h"

namespace hhlo {

namespace key_detail {

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
template <typename T>
struct is_variant : std::false_type {};
template <typename... T>
struct is_variant<std::variant<T...>> : std::true_type {};
template <typename T>
struct is_pair : std::false_type {};
template <typename A, typename B>
struct is_pair<std::pair<A, B>> : std::true_type {};
template <typename T>
concept Range = requires(const T& t) {
  t.begin();
  t.end();
  t.size();
};
template <typename T>
concept Printable = requires(const T& t) {
  { t.to_string() } -> std::convertible_to<std::string>;
};

}  // namespace key_detail

/// Writes `value` into `sink`, unambiguously: booleans, integers, enums (their value), floating
/// point (exactly, in hex), strings, optionals, variants (index, then the value), pairs, ranges
/// (vector, map: the count, then each element), types with a `to_string()` (TensorType), and
/// aggregates field by field (boost::pfr::for_each_field), recursively. A type none of these fit
/// does not compile.
template <KeySink S, typename T>
void write_key(S& sink, const T& value) {
  using namespace key_detail;
  if constexpr (std::is_same_v<T, bool>) {
    write_token(sink, 'b', value ? "1" : "0");
  } else if constexpr (std::is_enum_v<T>) {
    write_token(sink, 'e', std::to_string(static_cast<long long>(value)));
  } else if constexpr (std::is_integral_v<T>) {
    write_token(sink, 'i', std::to_string(value));
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    int n = std::snprintf(buf, sizeof buf, "%a", static_cast<double>(value));
    write_token(sink, 'f', std::string_view(buf, n > 0 ? static_cast<std::size_t>(n) : 0));
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    write_token(sink, 's', std::string_view(value));
  } else if constexpr (is_optional<T>::value) {
    write_token(sink, 'o', value ? "1" : "0");
    if (value) write_key(sink, *value);
  } else if constexpr (is_variant<T>::value) {
    write_token(sink, 'v', std::to_string(value.index()));
    std::visit([&](const auto& v) { write_key(sink, v); }, value);
  } else if constexpr (is_pair<T>::value) {
    write_key(sink, value.first);
    write_key(sink, value.second);
  } else if constexpr (Printable<T>) {
    write_token(sink, 't', value.to_string());
  } else if constexpr (Range<T>) {
    write_token(sink, 'r', std::to_string(value.size()));
    for (const auto& e : value) write_key(sink, e);
  } else {
    static_assert(std::is_aggregate_v<T>, "write_key: a field of a type it cannot write");
    write_token(sink, 'a', std::to_string(boost::pfr::tuple_size_v<T>));
    boost::pfr::for_each_field(value, [&](const auto& field) { write_key(sink, field); });
  }
}

/// The 64-hex-digit SHA-256 key of `tag` (what the key is of, with its layout version), the
/// program's `bytes` and every field of `options` (write_key). Throws hhlo::Error only if
/// libcrypto fails.
template <typename T>
std::string key_of(std::string_view tag, std::string_view bytes, const T& options) {
  Sha256 h;
  write_token(h, 'k', tag);
  write_key(h, options);
  write_token(h, 'p', bytes);
  return h.hex();
}

}  // namespace hhlo
