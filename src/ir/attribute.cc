// MLIR text of attributes (each kind's own in src/ir/attrs/); exact float formatting, strings,
// symbols, locations; replica groups.
#include "hhlo/ir/attribute.h"

#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "attribute_text.h"
#include "attrs/syntax.h"

namespace hhlo {

namespace detail {

uint8_t narrow_float_bits(DType t, double v) {
  return visit_dtype(t, [&](auto zero) -> uint8_t {
    using T = decltype(zero);
    if constexpr (kIsFloatStruct<T> && sizeof(T) == 1)
      return T(v).bits;
    else
      return 0;
  });
}

std::string format_float(double v, DType t) {
  if (is_narrow(t) && is_float(t)) return fmt::format("0x{:02X}", narrow_float_bits(t, v));
  if (std::isnan(v) || std::isinf(v) || t == DType::f16 || t == DType::bf16) {
    switch (t) {
      case DType::f16:
        return fmt::format("0x{:04X}", f16_t(static_cast<float>(v)).bits);
      case DType::bf16:
        return fmt::format("0x{:04X}", bf16_t(static_cast<float>(v)).bits);
      case DType::f64:
        return fmt::format("0x{:016X}", std::bit_cast<uint64_t>(v));
      default:
        return fmt::format("0x{:08X}", std::bit_cast<uint32_t>(static_cast<float>(v)));
    }
  }
  std::string s =
      t == DType::f64 ? fmt::format("{:.17g}", v) : fmt::format("{:.9g}", static_cast<float>(v));
  // shortest exact form: try fewer digits while the value round-trips
  for (int p = 1; p < (t == DType::f64 ? 17 : 9); ++p) {
    std::string c = fmt::format("{:.{}g}", v, p);
    double back = std::strtod(c.c_str(), nullptr);
    if (t == DType::f64 ? back == v : static_cast<float>(back) == static_cast<float>(v)) {
      s = c;
      break;
    }
  }
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  else if (s.find('.') == std::string::npos && s.find('e') != std::string::npos)
    s.insert(s.find('e'), ".0");
  return s;
}

std::string symbol_ref(std::string_view name) {
  bool bare =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name)
    bare =
        bare && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.');
  return "@" + (bare ? std::string(name) : escape_string(name));
}

double float_from_bits(DType t, uint64_t bits) {
  if (is_narrow(t) && is_float(t))
    return visit_dtype(t, [&](auto zero) -> double {
      using T = decltype(zero);
      if constexpr (kIsFloatStruct<T> && sizeof(T) == 1)
        return T::decode(static_cast<uint8_t>(bits));
      else
        return 0;
    });
  switch (t) {
    case DType::f16: {
      f16_t h;
      h.bits = static_cast<uint16_t>(bits);
      return static_cast<float>(h);
    }
    case DType::bf16: {
      bf16_t h;
      h.bits = static_cast<uint16_t>(bits);
      return static_cast<float>(h);
    }
    case DType::f32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    default:
      return std::bit_cast<double>(bits);
  }
}

std::string location_text(const Location& l) {
  if (!l.text.empty()) return l.text;
  if (l.file.empty()) return "unknown";
  return fmt::format("{}:{}:{}", escape_string(l.file), l.line, l.column);
}

Location capped_location(std::string text) {
  Location l;
  if (text.size() <= kMaxLocationText) l.text = std::move(text);
  return l;
}

std::string escape_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string attr_dict(const std::vector<NamedAttr>& attrs) {
  std::string s = "{";
  for (size_t i = 0; i < attrs.size(); ++i)
    s += (i ? ", " : "") + attrs[i].name + " = " + to_string(attrs[i].value);
  return s + "}";
}

}  // namespace detail

// Each kind prints itself (detail::print_attr, beside its reader under src/ir/attrs/).
std::string to_string(const Attribute& a) {
  return std::visit([](const auto& v) { return detail::print_attr(v); }, a.variant());
}

Attribute replica_groups_attr(const ReplicaGroups& g) {
  int64_t n = static_cast<int64_t>(g.groups.size());
  int64_t m = n ? static_cast<int64_t>(g.groups[0].size()) : 0;
  Array a(DType::i64, {n, m});
  auto* p = static_cast<int64_t*>(a.data());
  for (size_t i = 0; i < g.groups.size(); ++i) {
    if (static_cast<int64_t>(g.groups[i].size()) != m)
      throw Error(
          fmt::format("replica groups must all have one size: group 0 has {} ids, group {} "
                      "has {}",
                      m, i, g.groups[i].size()));
    for (int64_t id : g.groups[i]) *p++ = id;
  }
  return dense_attr(std::move(a));
}

std::optional<ReplicaGroups> replica_groups_of(const Attribute& a) {
  const DenseAttr* d = a.get_if<DenseAttr>();
  if (!d || d->array->dtype() != DType::i64 || d->array->rank() != 2) return std::nullopt;
  ReplicaGroups g;
  const Dims& dims = d->array->dims();
  auto v = d->array->values<int64_t>();
  for (int64_t i = 0; i < dims[0]; ++i)
    g.groups.emplace_back(v.begin() + i * dims[1], v.begin() + (i + 1) * dims[1]);
  return g;
}

}  // namespace hhlo
