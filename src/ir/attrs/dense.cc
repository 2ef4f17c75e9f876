// MLIR's dense elements, printed and read: `dense<...> : tensor<...>` as a splat, nested lists,
// complex pairs `(re, im)` or hex bytes `"0x..."` (i1 also as one bit or one byte per element); a
// tensor of index elements is kept as text.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>

#include "../attribute_text.h"
#include "../text/parser_internal.h"
#include "syntax.h"

namespace hhlo {
namespace {

// Element `i` of `a` as an MLIR literal.
std::string element_literal(const Array& a, int64_t i) {
  return visit_dtype(a.dtype(), [&](auto zero) -> std::string {
    using T = decltype(zero);
    T v;
    std::memcpy(&v, static_cast<const char*>(a.data()) + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, bool>)
      return v ? "true" : "false";
    else if constexpr (std::is_integral_v<T>)
      return fmt::format("{}", v);
    else if constexpr (kIsNarrowInt<T>)
      return fmt::format("{}", v.value());
    else if constexpr (kIsFloatStruct<T>)
      return fmt::format("0x{:0{}X}", v.bits, 2 * sizeof(T));
    else if constexpr (std::is_floating_point_v<T>)
      return detail::format_float(v, a.dtype());
    else
      return "(" + detail::format_float(v.real(), complex_part(a.dtype())) + ", " +
             detail::format_float(v.imag(), complex_part(a.dtype())) + ")";
  });
}

// The elements of `a` as nested lists, one bracket level per dimension.
std::string nested_lists(const Array& a) {
  std::string body;
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
  return body;
}

// `"0x0A0B..."`: the bytes of `a`.
std::string hex_bytes(const Array& a) {
  const auto* p = static_cast<const unsigned char*>(a.data());
  std::string body;
  body.reserve(a.byte_size() * 2 + 4);
  body = "\"0x";
  static constexpr char hex[] = "0123456789ABCDEF";
  for (size_t k = 0; k < a.byte_size(); ++k) {
    body += hex[p[k] >> 4];
    body += hex[p[k] & 15];
  }
  body += '"';
  return body;
}

}  // namespace

std::string detail::print_attr(const DenseAttr& d) {
  const Array& a = *d.array;
  int64_t n = a.num_elements();
  size_t es = byte_size(a.dtype());
  const auto* p = static_cast<const unsigned char*>(a.data());
  std::string body;
  if (n != 0) {
    bool splat = true;
    for (int64_t i = 1; splat && i < n; ++i) splat = std::memcmp(p, p + i * es, es) == 0;
    if (splat)
      body = element_literal(a, 0);
    else if (a.dtype() == DType::pred || (is_integer(a.dtype()) && n <= 16))
      body = nested_lists(a);
    else
      body = hex_bytes(a);
  }
  return "dense<" + body + "> : " + a.type().to_string();
}

namespace parse {
namespace {

// One literal of a dense body: a number (with sign), a bool word, or a complex pair.
struct Elem {
  Token a, b;
  bool neg_a = false, neg_b = false, complex = false;
};

/// The body of `dense<...>` as read: hex bytes, or the literals with the shape of their nesting.
struct DenseBody {
  std::string bytes;
  bool hex = false, nested = false;
  std::vector<Elem> elems;
  std::vector<int64_t> shape;
  int leaf_depth = -1;  // the nesting depth of the literals
};

// `"0x0A0B..."`
void read_hex(Parser& p, DenseBody& body) {
  std::string_view t = p.tok().text;
  if (!t.starts_with("\"0x")) p.fail("a hex string \"0x...\"");
  std::string_view h = t.substr(3, t.size() - 4);
  if (h.size() % 2) p.fail("an even number of hex digits");
  body.bytes.resize(h.size() / 2);
  for (size_t i = 0; i < body.bytes.size(); ++i) {
    unsigned v = 0;
    auto [end, ec] = std::from_chars(h.data() + 2 * i, h.data() + 2 * i + 2, v, 16);
    if (ec != std::errc() || end != h.data() + 2 * i + 2) p.fail("hex digits");
    body.bytes[i] = static_cast<char>(v);
  }
  body.hex = true;
  p.advance();
}

// A number with its sign, or a word (true, false, inf, nan), into `t`.
void read_number(Parser& p, Token& t, bool& neg) {
  neg = p.consume(Tok::minus);
  if (!p.is(Tok::integer) && !p.is(Tok::float_lit) && !p.is_id("true") && !p.is_id("false") &&
      !p.is_id("inf") && !p.is_id("nan"))
    p.fail("a literal");
  t = p.tok();
  p.advance();
}

// A literal or `(re, im)` at nesting depth `depth`.
void read_literal(Parser& p, DenseBody& body, size_t depth) {
  if (body.leaf_depth == -1) body.leaf_depth = static_cast<int>(depth);
  if (body.leaf_depth != static_cast<int>(depth)) p.fail("elements at one nesting depth");
  Elem e;
  if (p.consume(Tok::lparen)) {
    e.complex = true;
    read_number(p, e.a, e.neg_a);
    p.expect(Tok::comma, "',' in a complex literal");
    read_number(p, e.b, e.neg_b);
    p.expect(Tok::rparen, "')' closing a complex literal");
  } else {
    read_number(p, e.a, e.neg_a);
  }
  body.elems.push_back(e);
}

// `[..., ...]` (lists of equal length at each depth) or a literal, `depth` lists deep.
void read_nested(Parser& p, DenseBody& body, size_t depth) {
  Parser::Depth g(p);
  if (!p.is(Tok::lbracket)) return read_literal(p, body, depth);
  body.nested = true;
  p.advance();
  if (body.shape.size() <= depth) body.shape.resize(depth + 1, -1);
  int64_t count = 0;
  if (!p.is(Tok::rbracket)) {
    do {
      read_nested(p, body, depth + 1);
      ++count;
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::rbracket, "']' in the dense literal");
  if (body.shape[depth] == -1)
    body.shape[depth] = count;
  else if (body.shape[depth] != count)
    p.fail("nested lists of equal length");
}

// At `tensor` after `dense<...> :`: true, having moved past it, for a tensor of index elements.
bool skip_index_tensor(Parser& p, size_t type_pos) {
  size_t close = p.scan_balanced(type_pos + 6);
  std::string_view tt = p.lex_.src().substr(type_pos, close - type_pos);
  if (!tt.ends_with("index>")) return false;
  p.reset_to(close);
  return true;
}

/// The element count of a dense literal's type and its size in bytes: static, at most 2 GiB.
std::pair<int64_t, int64_t> dense_size(Parser& p, const TensorType& type, size_t type_pos) {
  if (!type.is_static())
    p.fail_at(type_pos, "a static tensor type for a dense literal", type.to_string());
  int64_t n = 1;
  for (int64_t d : type.dims)
    if (__builtin_mul_overflow(n, d, &n)) p.fail_at(type_pos, "a smaller tensor", type.to_string());
  int64_t total;
  if (__builtin_mul_overflow(n, static_cast<int64_t>(byte_size(type.dtype)), &total) ||
      total > (int64_t{1} << 31))
    p.fail_at(type_pos, "a dense literal of at most 2 GiB", type.to_string());
  return {n, total};
}

// The i1 hex forms other than a byte per element: one bit per element (LSB first), or one byte
// for a splat.
void fill_packed_pred(Parser& p, const std::string& bytes, size_t nb, size_t start, char* out) {
  if (bytes.size() == 1 &&
      (bytes[0] == 0 || static_cast<unsigned char>(bytes[0]) == 0xFF || bytes[0] == 1)) {
    std::memset(out, bytes[0] ? 1 : 0, nb);
  } else if (bytes.size() == (nb + 7) / 8) {
    for (size_t i = 0; i < nb; ++i) out[i] = (bytes[i / 8] >> (i % 8)) & 1;
  } else {
    p.fail_at(start, fmt::format("{} or {} bytes of i1 data", nb, (nb + 7) / 8),
              fmt::format("{}", bytes.size()));
  }
}

// The array of `type` (`n` elements, `total` bytes) from hex bytes: all of them, or one
// element's for a splat.
void fill_hex(Parser& p, const std::string& bytes, const TensorType& type, int64_t n, int64_t total,
              size_t start, char* out) {
  size_t nb = static_cast<size_t>(total), es = byte_size(type.dtype);
  bool pred = type.dtype == DType::pred;
  if (pred && bytes.size() != nb) return fill_packed_pred(p, bytes, nb, start, out);
  if (bytes.size() == nb) {
    if (nb) std::memcpy(out, bytes.data(), nb);
  } else if (bytes.size() == es) {
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(out + i * static_cast<int64_t>(es), bytes.data(), es);
  } else {
    p.fail_at(start, fmt::format("{} bytes of hex data for {}", nb, type.to_string()),
              fmt::format("{}", bytes.size()));
  }
  if (pred)
    for (size_t i = 0; i < nb; ++i) out[i] = out[i] != 0;
  if (is_narrow(type.dtype))  // the element's bits, the high bits of its byte zero
    for (size_t i = 0; i < nb; ++i)
      out[i] = static_cast<char>(out[i] & ((1u << bit_width(type.dtype)) - 1));
}

// The value of a real literal; for a hex bit pattern (of `part`'s width) 0 with `is_bits` set and
// the pattern in `bits`.
double real_value(Parser& p, const Token& t, bool neg, DType part, uint64_t& bits, bool& is_bits) {
  is_bits = false;
  if (t.kind == Tok::bare_id) {
    if (t.text == "inf") return neg ? -HUGE_VAL : HUGE_VAL;
    if (t.text == "nan") return std::numeric_limits<double>::quiet_NaN();
    p.fail_at(t.pos, "a number", "'" + std::string(t.text) + "'");
  }
  if (t.text.starts_with("0x")) {
    if (!parse_uint(t.text, bits) || (bits >> (bit_width(part) - 1) >> 1))
      p.fail_at(t.pos, "a hex bit pattern of the element width", "'" + std::string(t.text) + "'");
    is_bits = true;
    return 0;
  }
  std::string s(t.text);
  return neg ? -std::strtod(s.c_str(), nullptr) : std::strtod(s.c_str(), nullptr);
}

// A float literal as element type `part`: its value, and 1 when it was a hex bit pattern.
std::pair<double, uint64_t> float_of(Parser& p, const Token& t, bool neg, DType part) {
  uint64_t bits = 0;
  bool is_bits;
  double v = real_value(p, t, neg, part, bits, is_bits);
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
}

// An integer (or i1) literal into `dst`.
void write_integer(Parser& p, const Elem& e, DType dt, char* dst) {
  if (dt == DType::pred) {
    bool v;
    if (e.a.text == "true" || e.a.text == "1")
      v = true;
    else if (e.a.text == "false" || e.a.text == "0")
      v = false;
    else
      p.fail_at(e.a.pos, "true or false", "'" + std::string(e.a.text) + "'");
    *dst = v ? 1 : 0;
    return;
  }
  if (e.a.kind != Tok::integer) p.fail_at(e.a.pos, "an integer", "'" + std::string(e.a.text) + "'");
  IntLit lit{e.neg_a, 0};
  int64_t v;
  if (!parse_uint(e.a.text, lit.mag) || !int_in_range(lit, dt, v))
    p.fail_at(e.a.pos, fmt::format("an integer in range of {}", mlir_name(dt)),
              "'" + std::string(e.a.text) + "'");
  if (is_narrow(dt)) v &= (int64_t{1} << bit_width(dt)) - 1;  // two's complement low bits
  std::memcpy(dst, &v, byte_size(dt));                        // little-endian: the low bytes
}

// A float or complex literal into `dst`.
void write_float(Parser& p, const Elem& e, DType dt, char* dst) {
  if (dt == DType::f16 || dt == DType::bf16) {
    auto [v, isbits] = float_of(p, e.a, e.neg_a, dt);
    uint16_t b;
    if (isbits) {
      uint64_t raw = 0;
      parse_uint(e.a.text, raw);
      b = static_cast<uint16_t>(raw ^ (e.neg_a ? 0x8000u : 0u));
    } else {
      b = dt == DType::f16 ? f16_t(static_cast<float>(v)).bits : bf16_t(static_cast<float>(v)).bits;
    }
    std::memcpy(dst, &b, 2);
  } else if (is_narrow(dt)) {
    auto [v, isbits] = float_of(p, e.a, e.neg_a, dt);
    uint64_t raw = 0;
    if (isbits) parse_uint(e.a.text, raw);
    uint8_t sign = static_cast<uint8_t>(1u << (bit_width(dt) - 1));
    *dst =
        static_cast<char>(isbits ? raw ^ (e.neg_a ? sign : 0u) : detail::narrow_float_bits(dt, v));
  } else if (dt == DType::f32) {
    float f = static_cast<float>(float_of(p, e.a, e.neg_a, dt).first);
    std::memcpy(dst, &f, 4);
  } else if (dt == DType::f64) {
    double d = float_of(p, e.a, e.neg_a, dt).first;
    std::memcpy(dst, &d, 8);
  } else if (dt == DType::c64) {
    float v[2] = {static_cast<float>(float_of(p, e.a, e.neg_a, DType::f32).first),
                  static_cast<float>(float_of(p, e.b, e.neg_b, DType::f32).first)};
    std::memcpy(dst, v, 8);
  } else {
    double v[2] = {float_of(p, e.a, e.neg_a, DType::f64).first,
                   float_of(p, e.b, e.neg_b, DType::f64).first};
    std::memcpy(dst, v, 16);
  }
}

// The array of `type` (`n` elements) from the literals: one per element, or one for a splat.
void fill_elements(Parser& p, const DenseBody& body, const TensorType& type, int64_t n,
                   size_t start, char* out) {
  bool splat = !body.nested && body.elems.size() == 1;
  if (!splat) {
    if (body.shape != type.dims && !(body.elems.empty() && n == 0))
      p.fail_at(start,
                fmt::format("a literal of shape [{}] for {}", dims_to_string(type.dims),
                            type.to_string()),
                fmt::format("shape [{}]", dims_to_string(body.shape)));
    if (static_cast<int64_t>(body.elems.size()) != n)
      p.fail_at(start, fmt::format("{} elements", n), fmt::format("{}", body.elems.size()));
  }
  DType dt = type.dtype;
  auto es = static_cast<int64_t>(byte_size(dt));
  for (int64_t i = 0; i < (splat ? std::min<int64_t>(n, 1) : n); ++i) {
    const Elem& e = body.elems[static_cast<size_t>(i)];
    if (e.complex != is_complex(dt))
      p.fail_at(e.a.pos, is_complex(dt) ? "a complex literal (re, im)" : "a real literal",
                "another kind");
    if (dt == DType::pred || is_integer(dt))
      write_integer(p, e, dt, out + i * es);
    else
      write_float(p, e, dt, out + i * es);
  }
  if (splat)
    for (int64_t i = 1; i < n; ++i) std::memcpy(out + i * es, out, static_cast<size_t>(es));
}

}  // namespace

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
  DenseBody body;
  if (is(Tok::string)) {
    read_hex(*this, body);
  } else if (!is(Tok::greater)) {
    read_nested(*this, body, 0);
    if (body.leaf_depth >= 0 && static_cast<size_t>(body.leaf_depth) != body.shape.size())
      fail("elements at one nesting depth");
  }
  expect(Tok::greater, "'>' closing dense<...>");
  expect(Tok::colon, "':' and the type of the dense literal");
  size_t type_pos = tok_.pos;
  if (!is_id("tensor")) fail("a tensor type after dense<...>:");
  // index tensors have no dtype here: keep the text
  if (skip_index_tensor(*this, type_pos)) return OpaqueAttr{text_from(start)};
  TensorType type = parse_tensor_type();
  auto [n, total] = dense_size(*this, type, type_pos);
  Array arr(type);
  auto* out = static_cast<char*>(arr.data());
  if (body.hex)
    fill_hex(*this, body.bytes, type, n, total, start, out);
  else
    fill_elements(*this, body, type, n, start, out);
  return dense_attr(std::move(arr));
}

}  // namespace parse
}  // namespace hhlo
