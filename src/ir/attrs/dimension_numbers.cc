// The structured dimension numbers, printed and read: `#stablehlo.dot<...>`,
// `#stablehlo.gather<...>`, `#stablehlo.scatter<...>` (one field table per kind gives the fields'
// names and order to both directions) and `#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>` (the
// layout form MLIR prints; `#stablehlo.conv<raw ...>` is read too).
#include <fmt/format.h>

#include <algorithm>

#include "../text/parser_internal.h"
#include "syntax.h"

namespace hhlo {
namespace {

using parse::Tok;

/// A list field of the dimension numbers D: its name in the text, and its member.
template <typename D>
struct ListField {
  std::string_view name;
  std::vector<int64_t> D::*member;
};
/// An integer field of D.
template <typename D>
struct IntField {
  std::string_view name;
  int64_t D::*member;
};

constexpr ListField<DotDimensionNumbers> kDotFields[] = {
    {"lhs_batching_dimensions", &DotDimensionNumbers::lhs_batching_dimensions},
    {"rhs_batching_dimensions", &DotDimensionNumbers::rhs_batching_dimensions},
    {"lhs_contracting_dimensions", &DotDimensionNumbers::lhs_contracting_dimensions},
    {"rhs_contracting_dimensions", &DotDimensionNumbers::rhs_contracting_dimensions}};
constexpr ListField<GatherDimensionNumbers> kGatherFields[] = {
    {"offset_dims", &GatherDimensionNumbers::offset_dims},
    {"collapsed_slice_dims", &GatherDimensionNumbers::collapsed_slice_dims},
    {"operand_batching_dims", &GatherDimensionNumbers::operand_batching_dims},
    {"start_indices_batching_dims", &GatherDimensionNumbers::start_indices_batching_dims},
    {"start_index_map", &GatherDimensionNumbers::start_index_map}};
constexpr ListField<ScatterDimensionNumbers> kScatterFields[] = {
    {"update_window_dims", &ScatterDimensionNumbers::update_window_dims},
    {"inserted_window_dims", &ScatterDimensionNumbers::inserted_window_dims},
    {"input_batching_dims", &ScatterDimensionNumbers::input_batching_dims},
    {"scatter_indices_batching_dims", &ScatterDimensionNumbers::scatter_indices_batching_dims},
    {"scatter_dims_to_operand_dims", &ScatterDimensionNumbers::scatter_dims_to_operand_dims}};
// conv<raw ...>'s fields
constexpr ListField<ConvDimensionNumbers> kConvListFields[] = {
    {"input_spatial_dimensions", &ConvDimensionNumbers::input_spatial_dimensions},
    {"kernel_spatial_dimensions", &ConvDimensionNumbers::kernel_spatial_dimensions},
    {"output_spatial_dimensions", &ConvDimensionNumbers::output_spatial_dimensions}};
constexpr IntField<ConvDimensionNumbers> kConvIntFields[] = {
    {"input_batch_dimension", &ConvDimensionNumbers::input_batch_dimension},
    {"input_feature_dimension", &ConvDimensionNumbers::input_feature_dimension},
    {"kernel_input_feature_dimension", &ConvDimensionNumbers::kernel_input_feature_dimension},
    {"kernel_output_feature_dimension", &ConvDimensionNumbers::kernel_output_feature_dimension},
    {"output_batch_dimension", &ConvDimensionNumbers::output_batch_dimension},
    {"output_feature_dimension", &ConvDimensionNumbers::output_feature_dimension}};

// `#stablehlo.kind<a = [..], b = [..]` with the non-empty list fields, the closing '>' left off.
template <typename D, size_t N>
std::string print_fields(std::string_view head, const D& d, const ListField<D> (&fields)[N]) {
  std::string s(head);
  for (const ListField<D>& f : fields) {
    const std::vector<int64_t>& v = d.*f.member;
    if (v.empty()) continue;
    if (s.back() != '<') s += ", ";
    s += fmt::format("{} = [{}]", f.name, fmt::join(v, ", "));
  }
  return s;
}

template <typename D, size_t N>
bool set_list(const ListField<D> (&fields)[N], std::string_view key, D& d, std::vector<int64_t> v) {
  for (const ListField<D>& f : fields)
    if (f.name == key) {
      d.*f.member = std::move(v);
      return true;
    }
  return false;
}

template <typename D, size_t N>
bool set_int(const IntField<D> (&fields)[N], std::string_view key, D& d, int64_t v) {
  for (const IntField<D>& f : fields)
    if (f.name == key) {
      d.*f.member = v;
      return true;
    }
  return false;
}

// `<key = value, ...>`, each field read by `field` (false: a field without a typed form).
template <typename D, typename Field>
std::optional<Attribute> read_fields(parse::Parser& p, std::string_view what, Field field) {
  D d;
  while (!p.is(Tok::greater)) {
    if (!p.is(Tok::bare_id)) p.fail(what);
    std::string_view key = p.tok().text;
    p.advance();
    p.expect(Tok::equal, "'='");
    if (!field(key, d)) return std::nullopt;
    if (!p.consume(Tok::comma)) break;
  }
  p.expect(Tok::greater, "'>'");
  return Attribute(std::move(d));
}

// dot / gather / scatter: the list fields of `fields`, and `index_vector_dim` where D has one.
template <typename D, size_t N>
std::optional<Attribute> read_dims(parse::Parser& p, const ListField<D> (&fields)[N],
                                   int64_t D::*index_vector_dim) {
  p.advance();
  p.expect(Tok::less, "'<'");
  return read_fields<D>(p, "a dimension-number field", [&](std::string_view key, D& d) {
    if (key == "index_vector_dim") {
      int64_t v = p.parse_int();
      if (index_vector_dim) d.*index_vector_dim = v;
      return index_vector_dim != nullptr;
    }
    return p.is(Tok::lbracket) && set_list(fields, key, d, p.parse_int_list());
  });
}

// One layout of `[b, f, 0, 1]`: positions of `a`, `b` and the spatial indices.
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

// A layout `[b, 0, 1, f]`: the positions of the letters `a` and `b` into `da` and `db`, of the
// spatial indices into `spatial`.
void read_conv_layout(parse::Parser& p, char a, char b, int64_t& da, int64_t& db,
                      std::vector<int64_t>& spatial) {
  size_t start = p.tok().pos;
  p.expect(Tok::lbracket, "'[' of a convolution layout");
  std::vector<int64_t> pos_of;  // spatial index -> position
  int64_t n = 0;
  bool seen_a = false, seen_b = false;
  if (!p.is(Tok::rbracket)) {
    do {
      const parse::Token& t = p.tok();
      if (p.is(Tok::integer)) {
        int64_t k = p.parse_int();
        if (k < 0 || k > 64) p.fail_at(start, "a spatial dimension index below 64", "more");
        if (pos_of.size() <= static_cast<size_t>(k)) pos_of.resize(static_cast<size_t>(k) + 1, -1);
        if (pos_of[static_cast<size_t>(k)] != -1)
          p.fail_at(start, "distinct spatial indices", "a repeat");
        pos_of[static_cast<size_t>(k)] = n;
      } else if (p.is(Tok::bare_id) && t.text.size() == 1 && (t.text[0] == a || t.text[0] == b)) {
        (t.text[0] == a ? (seen_a = true, da) : (seen_b = true, db)) = n;
        p.advance();
      } else {
        p.fail(fmt::format("'{}', '{}' or a spatial index", a, b));
      }
      if (++n > 66) p.fail("at most 66 layout entries");
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::rbracket, "']' closing a convolution layout");
  for (int64_t v : pos_of)
    if (v < 0) p.fail_at(start, "spatial indices 0..n-1 without gaps", "a gap");
  if (!seen_a || !seen_b)
    p.fail_at(start, fmt::format("both '{}' and '{}' in the layout", a, b), "one missing");
  spatial = pos_of;
}

}  // namespace

std::string detail::print_attr(const DotDimensionNumbers& d) {
  return print_fields("#stablehlo.dot<", d, kDotFields) + ">";
}
std::string detail::print_attr(const GatherDimensionNumbers& d) {
  std::string s = print_fields("#stablehlo.gather<", d, kGatherFields);
  if (s.back() != '<') s += ", ";
  return s + fmt::format("index_vector_dim = {}>", d.index_vector_dim);
}
std::string detail::print_attr(const ScatterDimensionNumbers& d) {
  std::string s = print_fields("#stablehlo.scatter<", d, kScatterFields);
  if (s.back() != '<') s += ", ";
  return s + fmt::format("index_vector_dim = {}>", d.index_vector_dim);
}
std::string detail::print_attr(const ConvDimensionNumbers& d) {
  auto rank = static_cast<int64_t>(d.input_spatial_dimensions.size()) + 2;
  return "#stablehlo.conv<" +
         conv_layout(rank, d.input_batch_dimension, 'b', d.input_feature_dimension, 'f',
                     d.input_spatial_dimensions) +
         "x" +
         conv_layout(rank, d.kernel_input_feature_dimension, 'i', d.kernel_output_feature_dimension,
                     'o', d.kernel_spatial_dimensions) +
         "->" +
         conv_layout(rank, d.output_batch_dimension, 'b', d.output_feature_dimension, 'f',
                     d.output_spatial_dimensions) +
         ">";
}

std::optional<Attribute> detail::parse_dot_dims(Parser& p) {
  return read_dims<DotDimensionNumbers>(p, kDotFields, nullptr);
}
std::optional<Attribute> detail::parse_gather_dims(Parser& p) {
  return read_dims(p, kGatherFields, &GatherDimensionNumbers::index_vector_dim);
}
std::optional<Attribute> detail::parse_scatter_dims(Parser& p) {
  return read_dims(p, kScatterFields, &ScatterDimensionNumbers::index_vector_dim);
}

std::optional<Attribute> detail::parse_conv_dims(Parser& p) {
  p.advance();
  p.expect(Tok::less, "'<'");
  if (!p.consume_id("raw")) {
    ConvDimensionNumbers d = p.parse_conv_layouts();
    p.expect(Tok::greater, "'>'");
    return d;
  }
  using D = ConvDimensionNumbers;
  return read_fields<D>(p, "a convolution dimension field", [&](std::string_view key, D& d) {
    if (p.is(Tok::lbracket)) return set_list(kConvListFields, key, d, p.parse_int_list());
    return set_int(kConvIntFields, key, d, p.parse_int());
  });
}

ConvDimensionNumbers parse::Parser::parse_conv_layouts() {
  ConvDimensionNumbers d;
  read_conv_layout(*this, 'b', 'f', d.input_batch_dimension, d.input_feature_dimension,
                   d.input_spatial_dimensions);
  expect_id("x");
  read_conv_layout(*this, 'i', 'o', d.kernel_input_feature_dimension,
                   d.kernel_output_feature_dimension, d.kernel_spatial_dimensions);
  expect(Tok::arrow, "'->' between the convolution layouts");
  read_conv_layout(*this, 'b', 'f', d.output_batch_dimension, d.output_feature_dimension,
                   d.output_spatial_dimensions);
  return d;
}

}  // namespace hhlo
