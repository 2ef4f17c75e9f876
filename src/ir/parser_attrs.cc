// Attributes of the StableHLO text parser: literals, arrays, dictionaries, `#stablehlo.*`
// structured attributes; anything without a typed form becomes an OpaqueAttr of its text.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>

#include "attribute_text.h"
#include "hhlo/core/gspmd_sharding.h"
#include "parser_internal.h"

namespace hhlo::parse {
namespace {

struct IntLit {
  bool neg = false;
  uint64_t mag = 0;
};

bool parse_uint(std::string_view t, uint64_t& out) {
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && t[1] == 'x') {
    t.remove_prefix(2);
    base = 16;
  }
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out, base);
  return ec == std::errc() && p == t.data() + t.size();
}

/// Signed range check of an integer literal for `t`; returns the value as stored (bit pattern
/// for ui64).
bool int_in_range(const IntLit& v, DType t, int64_t& out) {
  if (t == DType::pred) {
    if (v.neg || v.mag > 1) return false;
    out = static_cast<int64_t>(v.mag);
    return true;
  }
  int bits = bit_width(t);
  if (is_unsigned_int(t)) {
    if (v.neg && v.mag != 0) return false;
    if (bits < 64 && v.mag >> bits) return false;
    out = static_cast<int64_t>(v.mag);
    return true;
  }
  uint64_t lim = uint64_t{1} << (bits - 1);
  if (v.neg ? v.mag > lim : v.mag >= lim) return false;
  out = v.neg ? static_cast<int64_t>(0 - v.mag) : static_cast<int64_t>(v.mag);
  return true;
}

// One literal of a dense body: a number (with sign), a bool word, or a complex pair.
struct Elem {
  Token a, b;
  bool neg_a = false, neg_b = false, complex = false;
};

}  // namespace

int64_t Parser::parse_int() {
  size_t start = tok_.pos;
  bool neg = consume(Tok::minus);
  if (!is(Tok::integer)) fail("an integer");
  IntLit v{neg, 0};
  if (!parse_uint(tok_.text, v.mag)) fail("an integer that fits in 64 bits");
  int64_t out;
  if (!int_in_range(v, DType::i64, out)) fail_at(start, "an integer that fits in i64", "more");
  advance();
  return out;
}

std::vector<int64_t> Parser::parse_int_list() {
  expect(Tok::lbracket, "'['");
  std::vector<int64_t> out;
  if (consume(Tok::rbracket)) return out;
  do out.push_back(parse_int());
  while (consume(Tok::comma));
  expect(Tok::rbracket, "']'");
  return out;
}

void Parser::parse_attr_dict(std::vector<NamedAttr>& out) {
  Depth d(*this);
  expect(Tok::lbrace, "'{'");
  if (consume(Tok::rbrace)) return;
  do {
    std::string key;
    if (is(Tok::bare_id)) {
      key = std::string(tok_.text);
    } else if (is(Tok::string)) {
      bool ok;
      std::string k = unescape(tok_.text, ok);
      if (!ok) fail("a valid string escape");
      bool bare = !k.empty() && (std::isalpha(static_cast<unsigned char>(k[0])) || k[0] == '_');
      for (char c : k)
        bare = bare &&
               (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$');
      key = bare ? k : std::string(tok_.text);
    } else {
      fail("an attribute name");
    }
    advance();
    if (consume(Tok::equal))
      out.push_back({key, parse_attribute(key)});
    else
      out.push_back({key, UnitAttr{}});
  } while (consume(Tok::comma));
  expect(Tok::rbrace, "'}' closing the attribute dictionary");
}

Attribute Parser::parse_enum_word(std::string_view kind) {
  if (!is(Tok::bare_id)) fail(fmt::format("a {} value", kind));
  std::string_view w = tok_.text;
  auto pick = [&](auto first, int count) -> Attribute {
    using E = decltype(first);
    for (int i = 0; i < count; ++i)
      if (enum_name(static_cast<E>(i)) == w) {
        advance();
        return static_cast<E>(i);
      }
    fail(fmt::format("a {} value", kind));
  };
  if (kind == "comparison_direction") return pick(ComparisonDirection{}, 6);
  if (kind == "comparison_type") return pick(ComparisonType{}, 5);
  if (kind == "precision") return pick(Precision{}, 3);
  if (kind == "rng_distribution") return pick(RngDistribution{}, 2);
  if (kind == "rng_algorithm") return pick(RngAlgorithm{}, 3);
  if (kind == "fft_type") return pick(FftType{}, 4);
  if (kind == "transpose") return pick(Transpose{}, 3);
  fail("a known StableHLO enum kind");
}

ConvDimensionNumbers Parser::parse_conv_layouts() {
  ConvDimensionNumbers d;
  auto layout = [&](char a, char b, int64_t& da, int64_t& db, std::vector<int64_t>& spatial) {
    size_t start = tok_.pos;
    expect(Tok::lbracket, "'[' of a convolution layout");
    std::vector<int64_t> pos_of;  // spatial index -> position
    int64_t p = 0;
    bool seen_a = false, seen_b = false;
    if (!is(Tok::rbracket)) {
      do {
        if (is(Tok::integer)) {
          int64_t k = parse_int();
          if (k < 0 || k > 64) fail_at(start, "a spatial dimension index below 64", "more");
          if (pos_of.size() <= static_cast<size_t>(k))
            pos_of.resize(static_cast<size_t>(k) + 1, -1);
          if (pos_of[static_cast<size_t>(k)] != -1)
            fail_at(start, "distinct spatial indices", "a repeat");
          pos_of[static_cast<size_t>(k)] = p;
        } else if (is(Tok::bare_id) && tok_.text.size() == 1 &&
                   (tok_.text[0] == a || tok_.text[0] == b)) {
          (tok_.text[0] == a ? (seen_a = true, da) : (seen_b = true, db)) = p;
          advance();
        } else {
          fail(fmt::format("'{}', '{}' or a spatial index", a, b));
        }
        if (++p > 66) fail("at most 66 layout entries");
      } while (consume(Tok::comma));
    }
    expect(Tok::rbracket, "']' closing a convolution layout");
    for (int64_t v : pos_of)
      if (v < 0) fail_at(start, "spatial indices 0..n-1 without gaps", "a gap");
    if (!seen_a || !seen_b)
      fail_at(start, fmt::format("both '{}' and '{}' in the layout", a, b), "one missing");
    spatial = pos_of;
  };
  layout('b', 'f', d.input_batch_dimension, d.input_feature_dimension, d.input_spatial_dimensions);
  expect_id("x");
  layout('i', 'o', d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
         d.kernel_spatial_dimensions);
  expect(Tok::arrow, "'->' between the convolution layouts");
  layout('b', 'f', d.output_batch_dimension, d.output_feature_dimension,
         d.output_spatial_dimensions);
  return d;
}

namespace {

template <typename T>
bool set_field(std::string_view key, std::string_view want, T& field, T value) {
  if (key != want) return false;
  field = std::move(value);
  return true;
}

}  // namespace

Attribute Parser::parse_attribute(std::string_view name) {
  Depth guard(*this);
  size_t start = tok_.pos;
  auto opaque_balanced = [&](size_t open) -> Attribute {
    reset_to(scan_balanced(open));
    return OpaqueAttr{text_from(start)};
  };
  switch (tok_.kind) {
    case Tok::lbracket: {
      if (name == "operand_layouts" || name == "result_layouts") {
        // [dense<[1, 0]> : tensor<2xindex>, ...]
        LayoutsAttr l;
        bool ok = true;
        advance();
        if (!is(Tok::rbracket)) {
          do {
            if (!is_id("dense")) {
              ok = false;
              break;
            }
            advance();
            expect(Tok::less, "'<'");
            std::vector<int64_t> v;
            if (is(Tok::lbracket))
              v = parse_int_list();
            else if (is(Tok::integer))
              v.push_back(parse_int());  // a splat: `dense<0> : tensor<1xindex>` (rank 1)
            expect(Tok::greater, "'>'");
            expect(Tok::colon, "':'");
            size_t tp = tok_.pos;
            if (!is_id("tensor")) fail("tensor<Nxindex>");
            reset_to(scan_balanced(tp + 6));
            if (text_from(tp) != fmt::format("tensor<{}xindex>", v.size())) {
              ok = false;
              break;
            }
            l.layouts.push_back(std::move(v));
          } while (consume(Tok::comma));
        }
        if (ok && consume(Tok::rbracket)) return l;
        reset_to(start);
      }
      advance();
      ArrayAttr a;
      if (consume(Tok::rbracket)) return a;
      do a.values.push_back(parse_attribute());
      while (consume(Tok::comma));
      expect(Tok::rbracket, "']' closing the array");
      return a;
    }
    case Tok::lbrace: {
      std::vector<NamedAttr> entries;
      parse_attr_dict(entries);
      DictAttr d;
      for (auto& e : entries) d.entries.emplace_back(std::move(e.name), std::move(e.value));
      return d;
    }
    case Tok::string: {
      bool ok;
      std::string s = unescape(tok_.text, ok);
      if (!ok) fail("a valid string escape");
      advance();
      if (is(Tok::colon)) {  // typed string attribute: keep as written
        advance();
        parse_attribute();
        return OpaqueAttr{text_from(start)};
      }
      if (name == "mhlo.sharding") {
        // GSPMD sharding text: read (hhlo/core/gspmd_sharding.h) so that a malformed one is an
        // error here, at its column; kept as the string, which prints back as it was written.
        try {
          parse_gspmd_sharding(s);
        } catch (const ParseError& e) {
          fail_at(start + e.column(), "a GSPMD sharding: " + e.expected(), e.found());
        }
      }
      return StringAttr{std::move(s)};
    }
    case Tok::minus:
    case Tok::integer:
    case Tok::float_lit: {
      bool neg = consume(Tok::minus);
      Token num = tok_;
      if (!is(Tok::integer) && !is(Tok::float_lit)) fail("a number after '-'");
      advance();
      std::optional<DType> type;
      if (consume(Tok::colon)) {
        if (!is(Tok::bare_id)) fail("the number's type");
        type = dtype_named(tok_.text);
        advance();
        if (!type) return OpaqueAttr{text_from(start)};  // `0 : index`, `1 : si32`, ...
      }
      bool hex = num.text.starts_with("0x");
      if (!type) type = num.kind == Tok::integer ? DType::i64 : DType::f64;
      if (is_complex(*type)) fail_at(num.pos, "a real number type", "complex");
      if (is_float(*type)) {
        if (hex) {
          uint64_t bits;
          if (!parse_uint(num.text, bits)) fail_at(num.pos, "a hex bit pattern", "a bad one");
          double v = detail::float_from_bits(*type, bits);
          if (bits >> (bit_width(*type) - 1) >> 1)
            fail_at(num.pos, "a bit pattern of the type's width", "a wider one");
          return FloatAttr{neg ? -v : v, *type};
        }
        std::string t(num.text);
        double v = *type == DType::f64 ? std::strtod(t.c_str(), nullptr)
                                       : static_cast<double>(std::strtof(t.c_str(), nullptr));
        if (*type == DType::f16) v = static_cast<float>(f16_t(static_cast<float>(v)));
        if (*type == DType::bf16) v = static_cast<float>(bf16_t(static_cast<float>(v)));
        return FloatAttr{neg ? -v : v, *type};
      }
      if (num.kind != Tok::integer) fail_at(num.pos, "an integer for an integer type", "a float");
      IntLit lit{neg, 0};
      int64_t v;
      if (!parse_uint(num.text, lit.mag) || !int_in_range(lit, *type, v))
        fail_at(num.pos, fmt::format("an integer in range of {}", mlir_name(*type)),
                "'" + std::string(num.text) + "'");
      return IntAttr{v, *type};
    }
    case Tok::symbol: {
      std::string n(tok_.text.substr(1));
      if (!n.empty() && n[0] == '"') {
        bool ok;
        n = unescape(n, ok);
        if (!ok) fail("a valid string escape");
      }
      advance();
      if (is(Tok::colon) && lex_.pos() < lex_.src().size() && lex_.src()[lex_.pos()] == ':') {
        while (is(Tok::colon)) {  // nested reference @a::@b
          advance();
          expect(Tok::colon, "'::'");
          expect(Tok::symbol, "a symbol after '::'");
        }
        return OpaqueAttr{text_from(start)};
      }
      return SymbolRefAttr{std::move(n)};
    }
    case Tok::hash_id: {
      std::string id(tok_.text);
      size_t after = lex_.pos();
      bool angle = after < lex_.src().size() && lex_.src()[after] == '<';
      if (!angle) {
        const size_t* it = find_alias(id);
        if (!it) {
          advance();
          return OpaqueAttr{id};
        }
        if (--alias_budget_ < 0) fail("fewer attribute alias expansions");
        reset_to(*it);
        Attribute a = parse_attribute(name);
        reset_to(after);
        return a;
      }
      if (id == "#stablehlo") {
        advance();
        expect(Tok::less, "'<'");
        if (!is(Tok::bare_id)) fail("an enum kind");
        std::string kind(tok_.text);
        static const std::string_view kinds[] = {
            "comparison_direction", "comparison_type", "precision", "rng_distribution",
            "rng_algorithm",        "fft_type",        "transpose"};
        bool known = false;
        for (auto k : kinds) known |= k == kind;
        if (!known) return opaque_balanced(after);
        advance();
        Attribute a = parse_enum_word(kind);
        expect(Tok::greater, "'>'");
        return a;
      }
      if (id == "#stablehlo.channel_handle") {
        advance();
        expect(Tok::less, "'<'");
        ChannelHandle c;
        bool seen_handle = false, seen_type = false;
        while (!is(Tok::greater)) {
          if (!is(Tok::bare_id)) fail("a channel_handle field");
          std::string key(tok_.text);
          advance();
          expect(Tok::equal, "'='");
          int64_t v = parse_int();
          if (key == "handle" && !seen_handle) {
            c.handle = v;
            seen_handle = true;
          } else if (key == "type" && !seen_type) {
            c.type = v;
            seen_type = true;
          } else {
            return opaque_balanced(after);
          }
          if (!consume(Tok::comma)) break;
        }
        expect(Tok::greater, "'>'");
        if (!seen_handle || !seen_type) return opaque_balanced(after);
        return c;
      }
      if (id == "#stablehlo.dot" || id == "#stablehlo.gather" || id == "#stablehlo.scatter") {
        advance();
        expect(Tok::less, "'<'");
        DotDimensionNumbers dot;
        GatherDimensionNumbers g;
        ScatterDimensionNumbers sc;
        while (!is(Tok::greater)) {
          if (!is(Tok::bare_id)) fail("a dimension-number field");
          std::string key(tok_.text);
          advance();
          expect(Tok::equal, "'='");
          bool ok = false;
          if (key == "index_vector_dim") {
            int64_t v = parse_int();
            ok = id == "#stablehlo.gather"
                     ? set_field(key, key, g.index_vector_dim, v)
                     : id == "#stablehlo.scatter" && set_field(key, key, sc.index_vector_dim, v);
          } else if (is(Tok::lbracket)) {
            auto v = parse_int_list();
            if (id == "#stablehlo.dot")
              ok =
                  set_field(key, "lhs_batching_dimensions", dot.lhs_batching_dimensions, v) ||
                  set_field(key, "rhs_batching_dimensions", dot.rhs_batching_dimensions, v) ||
                  set_field(key, "lhs_contracting_dimensions", dot.lhs_contracting_dimensions, v) ||
                  set_field(key, "rhs_contracting_dimensions", dot.rhs_contracting_dimensions, v);
            else if (id == "#stablehlo.gather")
              ok =
                  set_field(key, "offset_dims", g.offset_dims, v) ||
                  set_field(key, "collapsed_slice_dims", g.collapsed_slice_dims, v) ||
                  set_field(key, "operand_batching_dims", g.operand_batching_dims, v) ||
                  set_field(key, "start_indices_batching_dims", g.start_indices_batching_dims, v) ||
                  set_field(key, "start_index_map", g.start_index_map, v);
            else
              ok = set_field(key, "update_window_dims", sc.update_window_dims, v) ||
                   set_field(key, "inserted_window_dims", sc.inserted_window_dims, v) ||
                   set_field(key, "input_batching_dims", sc.input_batching_dims, v) ||
                   set_field(key, "scatter_indices_batching_dims", sc.scatter_indices_batching_dims,
                             v) ||
                   set_field(key, "scatter_dims_to_operand_dims", sc.scatter_dims_to_operand_dims,
                             v);
          }
          if (!ok) return opaque_balanced(after);  // a field we have no typed form for
          if (!consume(Tok::comma)) break;
        }
        expect(Tok::greater, "'>'");
        if (id == "#stablehlo.dot") return dot;
        if (id == "#stablehlo.gather") return g;
        return sc;
      }
      if (id == "#stablehlo.conv") {
        advance();
        expect(Tok::less, "'<'");
        if (!is_id("raw")) {
          ConvDimensionNumbers d = parse_conv_layouts();
          expect(Tok::greater, "'>'");
          return d;
        }
        advance();
        ConvDimensionNumbers d;
        while (!is(Tok::greater)) {
          if (!is(Tok::bare_id)) fail("a convolution dimension field");
          std::string key(tok_.text);
          advance();
          expect(Tok::equal, "'='");
          bool ok;
          if (is(Tok::lbracket)) {
            auto v = parse_int_list();
            ok = set_field(key, "input_spatial_dimensions", d.input_spatial_dimensions, v) ||
                 set_field(key, "kernel_spatial_dimensions", d.kernel_spatial_dimensions, v) ||
                 set_field(key, "output_spatial_dimensions", d.output_spatial_dimensions, v);
          } else {
            int64_t v = parse_int();
            ok = set_field(key, "input_batch_dimension", d.input_batch_dimension, v) ||
                 set_field(key, "input_feature_dimension", d.input_feature_dimension, v) ||
                 set_field(key, "kernel_input_feature_dimension", d.kernel_input_feature_dimension,
                           v) ||
                 set_field(key, "kernel_output_feature_dimension",
                           d.kernel_output_feature_dimension, v) ||
                 set_field(key, "output_batch_dimension", d.output_batch_dimension, v) ||
                 set_field(key, "output_feature_dimension", d.output_feature_dimension, v);
          }
          if (!ok) return opaque_balanced(after);
          if (!consume(Tok::comma)) break;
        }
        expect(Tok::greater, "'>'");
        return d;
      }
      if (id == "#sdy.sharding" || id == "#sdy.sharding_per_value" || id == "#sdy") {
        size_t end = scan_balanced(after);
        std::string_view body = lex_.src().substr(after, end - after);
        std::optional<Attribute> typed;
        if (id == "#sdy.sharding") {
          if (auto a = scan_sharding(body)) typed = *a;
        } else if (id == "#sdy.sharding_per_value") {
          if (auto a = scan_sharding_per_value(body)) typed = *a;
        } else if (auto a = scan_manual_axes(body)) {
          typed = *a;
        }
        if (typed) {
          reset_to(end);
          return *typed;
        }
      }
      return opaque_balanced(after);  // other #sdy forms, #stablehlo.channel_handle<...>, ...
    }
    case Tok::bare_id: {
      std::string_view w = tok_.text;
      if (w == "true" || w == "false") {
        advance();
        return BoolAttr{w == "true"};
      }
      if (w == "dense") return parse_dense_shared();
      size_t after = lex_.pos();
      bool angle = after < lex_.src().size() && lex_.src()[after] == '<';
      if (w == "array" && angle) {
        advance();
        expect(Tok::less, "'<'");
        if (is_id("i64") || is_id("i1")) {
          bool i1 = is_id("i1");
          advance();
          I64ArrayAttr ia;
          BoolArrayAttr ba;
          if (consume(Tok::colon)) {
            do {
              if (i1) {
                if (!is_id("true") && !is_id("false")) fail("true or false");
                ba.values.push_back(is_id("true"));
                advance();
              } else {
                ia.values.push_back(parse_int());
              }
            } while (consume(Tok::comma));
          }
          expect(Tok::greater, "'>' closing array<...>");
          if (i1) return ba;
          return ia;
        }
        return opaque_balanced(after);
      }
      if (w == "loc" && after < lex_.src().size() && lex_.src()[after] == '(')
        return opaque_balanced(after);
      if (angle)
        return opaque_balanced(after);  // affine_map<...>, tensor<...>, dense_resource<...>
      advance();
      if (w == "unit") return UnitAttr{};
      return OpaqueAttr{std::string(w)};  // i32 (a type attribute), none, ...
    }
    case Tok::lparen:
      return opaque_balanced(start);
    default:
      fail("an attribute value");
  }
}

Attribute Parser::parse_dense_shared() {
  constexpr size_t kMaxShared = 64;  // bytes of data: scalars and small vectors
  size_t start = tok_.pos;
  Attribute a = parse_dense();
  const DenseAttr* d = a.get_if<DenseAttr>();
  if (!d || d->array->byte_size() > kMaxShared) return a;
  auto [it, fresh] = dense_memo_.try_emplace(view_from(start), a);
  return fresh ? a : it->second;
}

Attribute Parser::parse_dense() {
  size_t start = tok_.pos;
  advance();  // dense
  expect(Tok::less, "'<' after dense");
  std::vector<Elem> elems;
  std::vector<int64_t> shape;
  bool hex = false, nested = false;
  std::string bytes;
  if (is(Tok::string)) {
    std::string_view t = tok_.text;
    if (!t.starts_with("\"0x")) fail("a hex string \"0x...\"");
    std::string_view h = t.substr(3, t.size() - 4);
    if (h.size() % 2) fail("an even number of hex digits");
    bytes.resize(h.size() / 2);
    for (size_t i = 0; i < bytes.size(); ++i) {
      unsigned v = 0;
      auto [p, ec] = std::from_chars(h.data() + 2 * i, h.data() + 2 * i + 2, v, 16);
      if (ec != std::errc() || p != h.data() + 2 * i + 2) fail("hex digits");
      bytes[i] = static_cast<char>(v);
    }
    hex = true;
    advance();
  } else if (!is(Tok::greater)) {
    int leaf_depth = -1;
    std::function<void(size_t)> rec = [&](size_t depth) {
      Depth g(*this);
      if (is(Tok::lbracket)) {
        nested = true;
        advance();
        if (shape.size() <= depth) shape.resize(depth + 1, -1);
        int64_t count = 0;
        if (!is(Tok::rbracket)) {
          do {
            rec(depth + 1);
            ++count;
          } while (consume(Tok::comma));
        }
        expect(Tok::rbracket, "']' in the dense literal");
        if (shape[depth] == -1)
          shape[depth] = count;
        else if (shape[depth] != count)
          fail("nested lists of equal length");
        return;
      }
      if (leaf_depth == -1) leaf_depth = static_cast<int>(depth);
      if (leaf_depth != static_cast<int>(depth)) fail("elements at one nesting depth");
      Elem e;
      auto number = [&](Token& t, bool& neg) {
        neg = consume(Tok::minus);
        if (!is(Tok::integer) && !is(Tok::float_lit) && !is_id("true") && !is_id("false") &&
            !is_id("inf") && !is_id("nan"))
          fail("a literal");
        t = tok_;
        advance();
      };
      if (consume(Tok::lparen)) {
        e.complex = true;
        number(e.a, e.neg_a);
        expect(Tok::comma, "',' in a complex literal");
        number(e.b, e.neg_b);
        expect(Tok::rparen, "')' closing a complex literal");
      } else {
        number(e.a, e.neg_a);
      }
      elems.push_back(e);
    };
    rec(0);
    if (leaf_depth >= 0 && static_cast<size_t>(leaf_depth) != shape.size())
      fail("elements at one nesting depth");
  }
  expect(Tok::greater, "'>' closing dense<...>");
  expect(Tok::colon, "':' and the type of the dense literal");
  size_t type_pos = tok_.pos;
  if (!is_id("tensor")) fail("a tensor type after dense<...>:");
  {
    size_t close = scan_balanced(type_pos + 6);
    std::string_view tt = lex_.src().substr(type_pos, close - type_pos);
    if (tt.ends_with("index>")) {  // index tensors have no dtype here: keep the text
      reset_to(close);
      return OpaqueAttr{text_from(start)};
    }
  }
  TensorType type = parse_tensor_type();
  if (!type.is_static())
    fail_at(type_pos, "a static tensor type for a dense literal", type.to_string());
  int64_t n = 1;
  for (int64_t d : type.dims)
    if (__builtin_mul_overflow(n, d, &n)) fail_at(type_pos, "a smaller tensor", type.to_string());
  size_t es = byte_size(type.dtype);
  int64_t total;
  if (__builtin_mul_overflow(n, static_cast<int64_t>(es), &total) || total > (int64_t{1} << 31))
    fail_at(type_pos, "a dense literal of at most 2 GiB", type.to_string());
  Array arr(type);
  auto* out = static_cast<char*>(arr.data());
  if (hex) {
    size_t nb = static_cast<size_t>(total);
    if (type.dtype == DType::pred && bytes.size() != nb) {
      // one bit per element (LSB first), or one byte for a splat
      if (bytes.size() == 1 &&
          (bytes[0] == 0 || static_cast<unsigned char>(bytes[0]) == 0xFF || bytes[0] == 1)) {
        std::memset(out, bytes[0] ? 1 : 0, nb);
      } else if (bytes.size() == (nb + 7) / 8) {
        for (size_t i = 0; i < nb; ++i) out[i] = (bytes[i / 8] >> (i % 8)) & 1;
      } else {
        fail_at(start, fmt::format("{} or {} bytes of i1 data", nb, (nb + 7) / 8),
                fmt::format("{}", bytes.size()));
      }
    } else if (bytes.size() == nb) {
      if (nb) std::memcpy(out, bytes.data(), nb);
      if (type.dtype == DType::pred)
        for (size_t i = 0; i < nb; ++i) out[i] = out[i] != 0;
    } else if (bytes.size() == es) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(out + i * static_cast<int64_t>(es), bytes.data(), es);
      if (type.dtype == DType::pred)
        for (size_t i = 0; i < nb; ++i) out[i] = out[i] != 0;
    } else {
      fail_at(start, fmt::format("{} bytes of hex data for {}", nb, type.to_string()),
              fmt::format("{}", bytes.size()));
    }
    return dense_attr(std::move(arr));
  }
  bool splat = !nested && elems.size() == 1;
  if (!splat) {
    if (shape != type.dims && !(elems.empty() && n == 0))
      fail_at(start,
              fmt::format("a literal of shape [{}] for {}", dims_to_string(type.dims),
                          type.to_string()),
              fmt::format("shape [{}]", dims_to_string(shape)));
    if (static_cast<int64_t>(elems.size()) != n)
      fail_at(start, fmt::format("{} elements", n), fmt::format("{}", elems.size()));
  }
  DType dt = type.dtype;
  auto real_value = [&](const Token& t, bool neg, DType part, uint64_t& bits,
                        bool& is_bits) -> double {
    is_bits = false;
    if (t.kind == Tok::bare_id) {
      if (t.text == "inf") return neg ? -HUGE_VAL : HUGE_VAL;
      if (t.text == "nan") return std::numeric_limits<double>::quiet_NaN();
      fail_at(t.pos, "a number", "'" + std::string(t.text) + "'");
    }
    if (t.text.starts_with("0x")) {
      if (!parse_uint(t.text, bits) || (bits >> (bit_width(part) - 1) >> 1))
        fail_at(t.pos, "a hex bit pattern of the element width", "'" + std::string(t.text) + "'");
      is_bits = true;
      return 0;
    }
    std::string s(t.text);
    return neg ? -std::strtod(s.c_str(), nullptr) : std::strtod(s.c_str(), nullptr);
  };
  auto float_of = [&](const Token& t, bool neg, DType part) -> std::pair<double, uint64_t> {
    uint64_t bits = 0;
    bool is_bits;
    double v = real_value(t, neg, part, bits, is_bits);
    if (is_bits) {
      v = detail::float_from_bits(part, bits);
      if (neg) v = -v;
      return {v, 1};
    }
    if (part == DType::f32 && !t.text.starts_with("0x") && t.kind != Tok::bare_id) {
      std::string s(t.text);
      float f = std::strtof(s.c_str(), nullptr);
      return {neg ? -static_cast<double>(f) : static_cast<double>(f), 0};
    }
    return {v, 0};
  };
  for (int64_t i = 0; i < (splat ? std::min<int64_t>(n, 1) : n); ++i) {
    const Elem& e = elems[static_cast<size_t>(i)];
    char* dst = out + i * static_cast<int64_t>(es);
    if (e.complex != is_complex(dt))
      fail_at(e.a.pos, is_complex(dt) ? "a complex literal (re, im)" : "a real literal",
              "another kind");
    if (dt == DType::pred) {
      bool v;
      if (e.a.text == "true" || e.a.text == "1")
        v = true;
      else if (e.a.text == "false" || e.a.text == "0")
        v = false;
      else
        fail_at(e.a.pos, "true or false", "'" + std::string(e.a.text) + "'");
      *dst = v ? 1 : 0;
    } else if (is_integer(dt)) {
      if (e.a.kind != Tok::integer)
        fail_at(e.a.pos, "an integer", "'" + std::string(e.a.text) + "'");
      IntLit lit{e.neg_a, 0};
      int64_t v;
      if (!parse_uint(e.a.text, lit.mag) || !int_in_range(lit, dt, v))
        fail_at(e.a.pos, fmt::format("an integer in range of {}", mlir_name(dt)),
                "'" + std::string(e.a.text) + "'");
      std::memcpy(dst, &v, es);  // little-endian: the low bytes
    } else if (dt == DType::f16 || dt == DType::bf16) {
      auto [v, isbits] = float_of(e.a, e.neg_a, dt);
      uint16_t b;
      if (isbits) {
        uint64_t raw = 0;
        parse_uint(e.a.text, raw);
        b = static_cast<uint16_t>(raw ^ (e.neg_a ? 0x8000u : 0u));
      } else {
        b = dt == DType::f16 ? f16_t(static_cast<float>(v)).bits
                             : bf16_t(static_cast<float>(v)).bits;
      }
      std::memcpy(dst, &b, 2);
    } else if (dt == DType::f32) {
      float f = static_cast<float>(float_of(e.a, e.neg_a, dt).first);
      std::memcpy(dst, &f, 4);
    } else if (dt == DType::f64) {
      double d = float_of(e.a, e.neg_a, dt).first;
      std::memcpy(dst, &d, 8);
    } else if (dt == DType::c64) {
      float p[2] = {static_cast<float>(float_of(e.a, e.neg_a, DType::f32).first),
                    static_cast<float>(float_of(e.b, e.neg_b, DType::f32).first)};
      std::memcpy(dst, p, 8);
    } else {
      double p[2] = {float_of(e.a, e.neg_a, DType::f64).first,
                     float_of(e.b, e.neg_b, DType::f64).first};
      std::memcpy(dst, p, 16);
    }
  }
  if (splat)
    for (int64_t i = 1; i < n; ++i) std::memcpy(out + i * static_cast<int64_t>(es), out, es);
  return dense_attr(std::move(arr));
}

}  // namespace hhlo::parse
