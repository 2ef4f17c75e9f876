// MLIR's builtin attributes, printed and read: integers and floats with their type, bools, unit,
// strings, symbol references, lists `[..]`, dictionaries `{..}`, and text kept as written.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "../attribute_text.h"
#include "../text/parser_internal.h"
#include "hhlo/core/gspmd_sharding.h"
#include "syntax.h"

namespace hhlo::detail {

std::string print_attr(const IntAttr& a) {
  if (a.type == DType::pred) return a.value ? "true" : "false";
  if (a.type == DType::ui64)
    return fmt::format("{} : {}", static_cast<uint64_t>(a.value), mlir_name(a.type));
  return fmt::format("{} : {}", a.value, mlir_name(a.type));
}
std::string print_attr(const FloatAttr& a) {
  return format_float(a.value, a.type) + " : " + std::string(mlir_name(a.type));
}
std::string print_attr(const BoolAttr& a) { return a.value ? "true" : "false"; }
std::string print_attr(const UnitAttr&) { return "unit"; }
std::string print_attr(const StringAttr& a) { return escape_string(a.value); }
std::string print_attr(const SymbolRefAttr& a) { return symbol_ref(a.name); }
std::string print_attr(const OpaqueAttr& a) { return a.text; }
std::string print_attr(const ArrayAttr& a) {
  std::string s = "[";
  for (size_t i = 0; i < a.values.size(); ++i) s += (i ? ", " : "") + to_string(a.values[i]);
  return s + "]";
}
std::string print_attr(const DictAttr& a) {
  auto e = a.entries;
  std::sort(e.begin(), e.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string s = "{";
  for (size_t i = 0; i < e.size(); ++i)
    s += (i ? ", " : "") + e[i].first + " = " + to_string(e[i].second);
  return s + "}";
}

namespace {

// A float literal `num` (decimal, or hex bits) of float type `type`, negated when `neg`.
Attribute float_attr(Parser& p, const parse::Token& num, bool neg, DType type) {
  if (num.text.starts_with("0x")) {
    uint64_t bits;
    if (!parse::parse_uint(num.text, bits)) p.fail_at(num.pos, "a hex bit pattern", "a bad one");
    double v = float_from_bits(type, bits);
    if (bits >> (bit_width(type) - 1) >> 1)
      p.fail_at(num.pos, "a bit pattern of the type's width", "a wider one");
    return FloatAttr{neg ? -v : v, type};
  }
  std::string t(num.text);
  double v = type == DType::f64 ? std::strtod(t.c_str(), nullptr)
                                : static_cast<double>(std::strtof(t.c_str(), nullptr));
  if (type == DType::f16) v = static_cast<float>(f16_t(static_cast<float>(v)));
  if (type == DType::bf16) v = static_cast<float>(bf16_t(static_cast<float>(v)));
  return FloatAttr{neg ? -v : v, type};
}

}  // namespace

Attribute parse_number_attr(Parser& p, size_t start) {
  using parse::Tok;
  bool neg = p.consume(Tok::minus);
  parse::Token num = p.tok();
  if (!p.is(Tok::integer) && !p.is(Tok::float_lit)) p.fail("a number after '-'");
  p.advance();
  std::optional<DType> type;
  if (p.consume(Tok::colon)) {
    if (!p.is(Tok::bare_id)) p.fail("the number's type");
    type = parse::dtype_named(p.tok().text);
    p.advance();
    if (!type) return OpaqueAttr{p.text_from(start)};  // `0 : index`, `1 : si32`, ...
  }
  if (!type) type = num.kind == Tok::integer ? DType::i64 : DType::f64;
  if (is_complex(*type)) p.fail_at(num.pos, "a real number type", "complex");
  if (is_float(*type)) return float_attr(p, num, neg, *type);
  if (num.kind != Tok::integer) p.fail_at(num.pos, "an integer for an integer type", "a float");
  parse::IntLit lit{neg, 0};
  int64_t v;
  if (!parse::parse_uint(num.text, lit.mag) || !parse::int_in_range(lit, *type, v))
    p.fail_at(num.pos, fmt::format("an integer in range of {}", mlir_name(*type)),
              "'" + std::string(num.text) + "'");
  return IntAttr{v, *type};
}

Attribute parse_string_attr(Parser& p, size_t start, std::string_view name) {
  bool ok;
  std::string s = parse::unescape(p.tok().text, ok);
  if (!ok) p.fail("a valid string escape");
  p.advance();
  if (p.is(parse::Tok::colon)) {  // typed string attribute: keep as written
    p.advance();
    p.parse_attribute();
    return OpaqueAttr{p.text_from(start)};
  }
  if (name == "mhlo.sharding") {
    // GSPMD sharding text: read (hhlo/core/gspmd_sharding.h) so that a malformed one is an
    // error here, at its column; kept as the string, which prints back as it was written.
    try {
      parse_gspmd_sharding(s);
    } catch (const ParseError& e) {
      p.fail_at(start + e.column(), "a GSPMD sharding: " + e.expected(), e.found());
    }
  }
  return StringAttr{std::move(s)};
}

Attribute parse_symbol_attr(Parser& p, size_t start) {
  using parse::Tok;
  std::string n(p.tok().text.substr(1));
  if (!n.empty() && n[0] == '"') {
    bool ok;
    n = parse::unescape(n, ok);
    if (!ok) p.fail("a valid string escape");
  }
  p.advance();
  std::string_view src = p.lex_.src();
  if (p.is(Tok::colon) && p.lex_.pos() < src.size() && src[p.lex_.pos()] == ':') {
    while (p.is(Tok::colon)) {  // nested reference @a::@b
      p.advance();
      p.expect(Tok::colon, "'::'");
      p.expect(Tok::symbol, "a symbol after '::'");
    }
    return OpaqueAttr{p.text_from(start)};
  }
  return SymbolRefAttr{std::move(n)};
}

Attribute parse_list_attr(Parser& p, size_t start, std::string_view name) {
  using parse::Tok;
  if (name == "operand_layouts" || name == "result_layouts") {
    if (auto l = parse_layouts(p)) return std::move(*l);
    p.reset_to(start);
  }
  p.advance();
  ArrayAttr a;
  if (p.consume(Tok::rbracket)) return a;
  do a.values.push_back(p.parse_attribute());
  while (p.consume(Tok::comma));
  p.expect(Tok::rbracket, "']' closing the array");
  return a;
}

Attribute parse_dict_attr(Parser& p) {
  std::vector<NamedAttr> entries;
  p.parse_attr_dict(entries);
  DictAttr d;
  for (auto& e : entries) d.entries.emplace_back(std::move(e.name), std::move(e.value));
  return d;
}

}  // namespace hhlo::detail
