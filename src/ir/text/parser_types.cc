// Types of the StableHLO text parser: `tensor<2x?xf32>`, type lists and op type signatures.
#include <cctype>
#include <charconv>

#include "parser_internal.h"

namespace hhlo::parse {

std::optional<DType> dtype_named(std::string_view n) {
  // By length first: a type is parsed per value, and most are f32 / i32 / i64.
  switch (n.size()) {
    case 2:
      if (n == "i1") return DType::pred;
      if (n == "i8") return DType::i8;
      break;
    case 3:
      if (n == "f32") return DType::f32;
      if (n == "i32") return DType::i32;
      if (n == "i64") return DType::i64;
      if (n == "f16") return DType::f16;
      if (n == "f64") return DType::f64;
      if (n == "i16") return DType::i16;
      if (n == "ui8") return DType::ui8;
      break;
    case 4:
      if (n == "bf16") return DType::bf16;
      if (n == "ui16") return DType::ui16;
      if (n == "ui32") return DType::ui32;
      if (n == "ui64") return DType::ui64;
      break;
    case 12:
      if (n == "complex<f32>") return DType::c64;
      if (n == "complex<f64>") return DType::c128;
      break;
    default:
      break;
  }
  if (n.size() >= 2 && n.size() <= 13)  // i2, i4, ui2, ui4, f4E2M1FN ... f8E4M3B11FNUZ
    for (DType t : kNarrowDTypes)
      if (mlir_name(t) == n) return t;
  return std::nullopt;
}

bool Parser::at_type() const { return is_id("tensor") || is(Tok::bang_id); }

/// What stands at `i` in `s`, for an error: "end of input", "the end of the line" or the
/// character in quotes.
static std::string found_at(std::string_view s, size_t i) {
  if (i >= s.size()) return "end of input";
  if (s[i] == '\n' || s[i] == '\r') return "the end of the line";
  return "'" + std::string(1, s[i]) + "'";
}

TensorType Parser::parse_tensor_type() {
  if (is(Tok::bang_id)) {
    if (tok_.text == mlir_name(DType::token)) {
      advance();
      return TensorType{DType::token, {}};
    }
    const size_t* it = find_alias(tok_.text);
    if (!it) fail("a tensor type (tensor<...>); other types are not supported");
    if (--alias_budget_ < 0) fail("fewer alias expansions");
    size_t after = lex_.pos();
    Depth d(*this);
    reset_to(*it);
    TensorType t = parse_tensor_type();
    reset_to(after);
    return t;
  }
  if (is_id("tuple"))
    fail(
        "a tensor type (a tuple type is read only as the type of stablehlo.tuple and "
        "get_tuple_element inside a function body)");
  if (!is_id("tensor")) fail("a tensor type (tensor<...>)");
  std::string_view s = lex_.src();
  size_t p = tok_.pos + 6, start = tok_.pos;
  if (p >= s.size() || s[p] != '<') fail_at(p, "'<' after 'tensor'", found_at(s, p));
  ++p;
  TensorType t;
  auto digit = [&](size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
  int64_t dims[64];  // gathered here, then one exact-size vector (it goes into the module)
  size_t rank = 0;
  while (p < s.size() && (digit(p) || s[p] == '?')) {
    int64_t d = kDynamic;
    if (s[p] == '?') {
      ++p;
    } else {
      auto [end, ec] = std::from_chars(s.data() + p, s.data() + s.size(), d);
      if (ec != std::errc() || d < 0 || d > (int64_t{1} << 48))
        fail_at(p, "a dimension size", "an out-of-range number");
      p = static_cast<size_t>(end - s.data());
    }
    if (p >= s.size() || s[p] != 'x') fail_at(p, "'x' after a dimension", found_at(s, p));
    ++p;
    if (rank >= 64) fail_at(p, "at most 64 dimensions", "more");
    dims[rank++] = d;
  }
  t.dims.assign(dims, dims + rank);
  int64_t n = 1;
  for (int64_t d : t.dims)
    if (d != kDynamic && __builtin_mul_overflow(n, d, &n))
      fail_at(start, "a smaller tensor (element count overflows 64 bits)", "more");
  if (n > (int64_t{1} << 56)) fail_at(start, "a smaller tensor", "more than 2^56 elements");
  size_t e = p;
  if (s.substr(p, 8) == "complex<") {
    e = s.find('>', p);
    if (e == std::string_view::npos) fail_at(p, "'>' closing complex<", "end of input");
    ++e;
  } else {
    auto word = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    };
    while (e < s.size() && word(s[e])) ++e;
  }
  std::string_view elem = s.substr(p, e - p);
  auto dt = dtype_named(elem);
  if (!dt) {
    std::string what = elem.empty() ? "nothing" : "'" + std::string(elem.substr(0, 30)) + "'";
    fail_at(p,
            "an element type (i1, i2, i4, i8..i64, ui2, ui4, ui8..ui64, f4E2M1FN, f6E2M3FN, "
            "f6E3M2FN, f8E3M4, "
            "f8E4M3, f8E4M3FN, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f16, "
            "bf16, f32, f64, complex<f32|f64>)",
            what);
  }
  t.dtype = *dt;
  if (e >= s.size() || s[e] != '>') {
    if (e < s.size() && s[e] == ',')
      fail_at(e, "'>' (tensor encodings such as bounds are not supported)", "','");
    fail_at(e, "'>' closing the tensor type", found_at(s, e));
  }
  reset_to(e + 1);
  return t;
}

std::vector<TensorType> Parser::parse_paren_types() {
  expect(Tok::lparen, "'('");
  std::vector<TensorType> out;
  if (consume(Tok::rparen)) return out;
  out.reserve(4);
  do out.push_back(parse_tensor_type());
  while (consume(Tok::comma));
  expect(Tok::rparen, "')'");
  return out;
}

std::vector<TensorType> Parser::parse_result_types(std::vector<std::vector<NamedAttr>>* attrs) {
  std::vector<TensorType> out;
  if (!is(Tok::lparen)) {
    out.push_back(parse_tensor_type());
    if (attrs) attrs->emplace_back();
    return out;
  }
  advance();
  if (consume(Tok::rparen)) return out;
  do {
    out.push_back(parse_tensor_type());
    std::vector<NamedAttr> a;
    if (is(Tok::lbrace)) parse_attr_dict(a);
    if (attrs) attrs->push_back(std::move(a));
    parse_opt_loc();
  } while (consume(Tok::comma));
  expect(Tok::rparen, "')'");
  return out;
}

TypeSig Parser::parse_type_sig() {
  TypeSig sig;
  if (is(Tok::lparen)) {
    sig.ins = parse_paren_types();
    expect(Tok::arrow, "'->' after the operand types");
    sig.outs = parse_result_types(nullptr);
    sig.functional = true;
    return sig;
  }
  do sig.ins.push_back(parse_tensor_type());
  while (consume(Tok::comma));
  if (consume(Tok::arrow)) {
    sig.outs = parse_result_types(nullptr);
    sig.functional = true;
  }
  return sig;
}

}  // namespace hhlo::parse
