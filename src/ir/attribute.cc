// MLIR text of attributes; exact float and dense literal formatting.
#include "hhlo/ir/attribute.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>

#include "attribute_text.h"

namespace hhlo {

std::string_view enum_name(ComparisonDirection v) {
  constexpr std::string_view n[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  return n[static_cast<int>(v)];
}
std::string_view enum_name(ComparisonType v) {
  constexpr std::string_view n[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
  return n[static_cast<int>(v)];
}
std::string_view enum_name(Precision v) {
  constexpr std::string_view n[] = {"DEFAULT", "HIGH", "HIGHEST"};
  return n[static_cast<int>(v)];
}
std::string_view enum_name(RngDistribution v) {
  constexpr std::string_view n[] = {"UNIFORM", "NORMAL"};
  return n[static_cast<int>(v)];
}
std::string_view enum_name(RngAlgorithm v) {
  constexpr std::string_view n[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
  return n[static_cast<int>(v)];
}
std::string_view enum_name(FftType v) {
  constexpr std::string_view n[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  return n[static_cast<int>(v)];
}
std::string_view enum_name(Transpose v) {
  constexpr std::string_view n[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  return n[static_cast<int>(v)];
}

namespace detail {

std::string format_float(double v, DType t) {
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

// Element `i` of `a` as an MLIR literal.
static std::string element_literal(const Array& a, int64_t i) {
  return visit_dtype(a.dtype(), [&](auto zero) -> std::string {
    using T = decltype(zero);
    T v;
    std::memcpy(&v, static_cast<const char*>(a.data()) + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, bool>)
      return v ? "true" : "false";
    else if constexpr (std::is_integral_v<T>)
      return fmt::format("{}", v);
    else if constexpr (std::is_same_v<T, f16_t> || std::is_same_v<T, bf16_t>)
      return fmt::format("0x{:04X}", v.bits);
    else if constexpr (std::is_floating_point_v<T>)
      return format_float(v, a.dtype());
    else
      return "(" + format_float(v.real(), complex_part(a.dtype())) + ", " +
             format_float(v.imag(), complex_part(a.dtype())) + ")";
  });
}

std::string dense_literal(const Array& a) {
  int64_t n = a.num_elements();
  size_t es = byte_size(a.dtype());
  const auto* p = static_cast<const unsigned char*>(a.data());
  std::string body;
  if (n == 0) {
    body = "";
  } else {
    bool splat = true;
    for (int64_t i = 1; splat && i < n; ++i) splat = std::memcmp(p, p + i * es, es) == 0;
    if (splat) {
      body = element_literal(a, 0);
    } else if (a.dtype() == DType::pred || (is_integer(a.dtype()) && n <= 16)) {
      // nested list literal, one bracket level per dimension
      std::function<void(size_t, int64_t)> rec = [&](size_t d, int64_t off) {
        body += '[';
        int64_t stride = 1;
        for (size_t k = d + 1; k < a.dims().size(); ++k) stride *= a.dims()[k];
        for (int64_t j = 0; j < a.dims()[d]; ++j) {
          if (j) body += ", ";
          if (d + 1 == a.dims().size())
            body += element_literal(a, off + j);
          else
            rec(d + 1, off + j * stride);
        }
        body += ']';
      };
      rec(0, 0);
    } else {
      body.reserve(a.byte_size() * 2 + 4);
      body = "\"0x";
      static constexpr char hex[] = "0123456789ABCDEF";
      for (size_t k = 0; k < a.byte_size(); ++k) {
        body += hex[p[k] >> 4];
        body += hex[p[k] & 15];
      }
      body += '"';
    }
  }
  return "dense<" + body + "> : " + a.type().to_string();
}

std::string attr_dict(const std::vector<NamedAttr>& attrs) {
  std::string s = "{";
  for (size_t i = 0; i < attrs.size(); ++i)
    s += (i ? ", " : "") + attrs[i].name + " = " + to_string(attrs[i].value);
  return s + "}";
}

}  // namespace detail

namespace {

std::string list(const std::vector<int64_t>& v) {
  return "[" + fmt::format("{}", fmt::join(v, ", ")) + "]";
}

void field(std::string& out, const char* name, const std::vector<int64_t>& v) {
  if (v.empty()) return;
  if (out.back() != '<') out += ", ";
  out += fmt::format("{} = {}", name, list(v));
}

std::string conv_layout(int64_t rank, int64_t a, char ca, int64_t b, char cb,
                        const std::vector<int64_t>& spatial) {
  std::vector<std::string> s(static_cast<size_t>(std::max<int64_t>(rank, 0)), "?");
  auto put = [&](int64_t d, std::string v) {
    if (d >= 0 && d < rank) s[static_cast<size_t>(d)] = std::move(v);
  };
  put(a, std::string(1, ca));
  put(b, std::string(1, cb));
  for (size_t i = 0; i < spatial.size(); ++i) put(spatial[i], std::to_string(i));
  return "[" + fmt::format("{}", fmt::join(s, ", ")) + "]";
}

struct Printer {
  template <typename T>
  std::string operator()(const Boxed<T>& b) const {
    return (*this)(*b);
  }
  std::string operator()(const IntAttr& a) const {
    if (a.type == DType::pred) return a.value ? "true" : "false";
    if (a.type == DType::ui64)
      return fmt::format("{} : {}", static_cast<uint64_t>(a.value), mlir_name(a.type));
    return fmt::format("{} : {}", a.value, mlir_name(a.type));
  }
  std::string operator()(const FloatAttr& a) const {
    return detail::format_float(a.value, a.type) + " : " + std::string(mlir_name(a.type));
  }
  std::string operator()(const BoolAttr& a) const { return a.value ? "true" : "false"; }
  std::string operator()(const UnitAttr&) const { return "unit"; }
  std::string operator()(const ChannelHandle& c) const {
    return fmt::format("#stablehlo.channel_handle<handle = {}, type = {}>", c.handle, c.type);
  }
  std::string operator()(const StringAttr& a) const { return detail::escape_string(a.value); }
  std::string operator()(const I64ArrayAttr& a) const {
    return a.values.empty() ? "array<i64>"
                            : fmt::format("array<i64: {}>", fmt::join(a.values, ", "));
  }
  std::string operator()(const BoolArrayAttr& a) const {
    if (a.values.empty()) return "array<i1>";
    std::string s = "array<i1: ";
    for (size_t i = 0; i < a.values.size(); ++i)
      s += (i ? ", " : "") + std::string(a.values[i] ? "true" : "false");
    return s + ">";
  }
  std::string operator()(const DenseAttr& a) const { return detail::dense_literal(*a.array); }
  std::string operator()(const OpaqueAttr& a) const { return a.text; }
  std::string operator()(const ShardingAttr& a) const {
    return "#sdy.sharding<" + detail::symbol_ref(a.mesh) + ", " + a.sharding.to_string() + ">";
  }
  std::string operator()(const ShardingPerValueAttr& a) const {
    std::string s = "#sdy.sharding_per_value<[";
    for (size_t i = 0; i < a.shardings.size(); ++i)
      s += (i ? ", <" : "<") + detail::symbol_ref(a.shardings[i].mesh) + ", " +
           a.shardings[i].sharding.to_string() + ">";
    return s + "]>";
  }
  std::string operator()(const ManualAxesAttr& a) const {
    std::string s = "#sdy<manual_axes{";
    for (size_t i = 0; i < a.axes.size(); ++i)
      s += (i ? ", " : "") + detail::escape_string(a.axes[i]);
    return s + "}>";
  }
  std::string operator()(const SymbolRefAttr& a) const { return detail::symbol_ref(a.name); }
  std::string operator()(const LayoutsAttr& a) const {
    std::string s = "[";
    for (size_t i = 0; i < a.layouts.size(); ++i) {
      const auto& l = a.layouts[i];
      s += (i ? ", " : "");
      s += l.empty() ? "dense<>" : "dense<" + list(l) + ">";
      s += fmt::format(" : tensor<{}xindex>", l.size());
    }
    return s + "]";
  }
  std::string operator()(const ArrayAttr& a) const {
    std::string s = "[";
    for (size_t i = 0; i < a.values.size(); ++i) s += (i ? ", " : "") + to_string(a.values[i]);
    return s + "]";
  }
  std::string operator()(const DictAttr& a) const {
    auto e = a.entries;
    std::sort(e.begin(), e.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::string s = "{";
    for (size_t i = 0; i < e.size(); ++i)
      s += (i ? ", " : "") + e[i].first + " = " + to_string(e[i].second);
    return s + "}";
  }
  std::string operator()(ComparisonDirection v) const {
    return fmt::format("#stablehlo<comparison_direction {}>", enum_name(v));
  }
  std::string operator()(ComparisonType v) const {
    return fmt::format("#stablehlo<comparison_type {}>", enum_name(v));
  }
  std::string operator()(Precision v) const {
    return fmt::format("#stablehlo<precision {}>", enum_name(v));
  }
  std::string operator()(RngDistribution v) const {
    return fmt::format("#stablehlo<rng_distribution {}>", enum_name(v));
  }
  std::string operator()(RngAlgorithm v) const {
    return fmt::format("#stablehlo<rng_algorithm {}>", enum_name(v));
  }
  std::string operator()(FftType v) const {
    return fmt::format("#stablehlo<fft_type {}>", enum_name(v));
  }
  std::string operator()(Transpose v) const {
    return fmt::format("#stablehlo<transpose {}>", enum_name(v));
  }
  std::string operator()(const DotDimensionNumbers& d) const {
    std::string s = "#stablehlo.dot<";
    field(s, "lhs_batching_dimensions", d.lhs_batching_dimensions);
    field(s, "rhs_batching_dimensions", d.rhs_batching_dimensions);
    field(s, "lhs_contracting_dimensions", d.lhs_contracting_dimensions);
    field(s, "rhs_contracting_dimensions", d.rhs_contracting_dimensions);
    return s + ">";
  }
  std::string operator()(const ConvDimensionNumbers& d) const {
    auto rank = static_cast<int64_t>(d.input_spatial_dimensions.size()) + 2;
    return "#stablehlo.conv<" +
           conv_layout(rank, d.input_batch_dimension, 'b', d.input_feature_dimension, 'f',
                       d.input_spatial_dimensions) +
           "x" +
           conv_layout(rank, d.kernel_input_feature_dimension, 'i',
                       d.kernel_output_feature_dimension, 'o', d.kernel_spatial_dimensions) +
           "->" +
           conv_layout(rank, d.output_batch_dimension, 'b', d.output_feature_dimension, 'f',
                       d.output_spatial_dimensions) +
           ">";
  }
  std::string operator()(const GatherDimensionNumbers& d) const {
    std::string s = "#stablehlo.gather<";
    field(s, "offset_dims", d.offset_dims);
    field(s, "collapsed_slice_dims", d.collapsed_slice_dims);
    field(s, "operand_batching_dims", d.operand_batching_dims);
    field(s, "start_indices_batching_dims", d.start_indices_batching_dims);
    field(s, "start_index_map", d.start_index_map);
    if (s.back() != '<') s += ", ";
    return s + fmt::format("index_vector_dim = {}>", d.index_vector_dim);
  }
  std::string operator()(const ScatterDimensionNumbers& d) const {
    std::string s = "#stablehlo.scatter<";
    field(s, "update_window_dims", d.update_window_dims);
    field(s, "inserted_window_dims", d.inserted_window_dims);
    field(s, "input_batching_dims", d.input_batching_dims);
    field(s, "scatter_indices_batching_dims", d.scatter_indices_batching_dims);
    field(s, "scatter_dims_to_operand_dims", d.scatter_dims_to_operand_dims);
    if (s.back() != '<') s += ", ";
    return s + fmt::format("index_vector_dim = {}>", d.index_vector_dim);
  }
};

}  // namespace

std::string to_string(const Attribute& a) { return std::visit(Printer{}, a.variant()); }

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
