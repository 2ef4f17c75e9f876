// The pretty form most StableHLO ops print, `stablehlo.op %a, %b [, key = value]* [{attrs}] :
// types` (elementwise ops, broadcast_in_dim, pad, dot_general, ...), with its few variants
// (compare, convolution, top_k, slice); each `key = value` is read by the op's declaration of that
// keyword (op_attributes.cc).
#include <fmt/format.h>

#include "../op_attributes.h"
#include "parser_internal.h"

namespace hhlo::parse {
namespace {

using detail::AttrDecl;

// `format = e5m10` (reduce_precision): exponent (`name`) and mantissa bits.
void kw_format(Parser& p, OpState& st, const std::string& name) {
  const Token& t = p.tok();
  if (!p.is(Tok::bare_id) || t.text.size() < 4 || t.text[0] != 'e') p.fail("a format eNmM");
  std::string_view f = t.text;
  size_t m = f.find('m');
  if (m == std::string_view::npos) p.fail("a format eNmM");
  auto num = [&](std::string_view d) -> int64_t {
    if (d.empty() || d.size() > 6) p.fail("a format eNmM");
    int64_t v = 0;
    for (char c : d) {
      if (c < '0' || c > '9') p.fail("a format eNmM");
      v = v * 10 + (c - '0');
    }
    return v;
  };
  int64_t e = num(f.substr(1, m - 1)), mb = num(f.substr(m + 1));
  p.advance();
  st.attrs.push_back({name, i32_attr(e)});
  st.attrs.push_back({"mantissa_bits", i32_attr(mb)});
}

// `algorithm = <...>`: dot_general's algorithm, kept as its text.
void kw_dot_algorithm(Parser& p, OpState& st, const std::string& name) {
  size_t a = p.tok().pos;
  if (!p.is(Tok::less)) p.fail("'<' opening the dot algorithm");
  p.reset_to(p.scan_balanced(a));
  st.attrs.push_back({name, OpaqueAttr{"#stablehlo.dot_algorithm" + p.text_from(a)}});
}

// `batching_dims = [0] x [0]`, `contracting_dims = [2] x [1]`: dot_general's dimension numbers
// (`name`).
void kw_dot_dims(Parser& p, OpState& st, const std::string& name, std::string_view key) {
  auto l = p.parse_int_list();
  p.expect_id("x");
  auto r = p.parse_int_list();
  DotDimensionNumbers* d = nullptr;
  for (auto& a : st.attrs)
    if (a.name == name) d = const_cast<DotDimensionNumbers*>(a.value.get_if<DotDimensionNumbers>());
  if (!d) {
    st.attrs.push_back({name, DotDimensionNumbers{}});
    d = const_cast<DotDimensionNumbers*>(st.attrs.back().value.get_if<DotDimensionNumbers>());
  }
  (key == "batching_dims" ? d->lhs_batching_dimensions : d->lhs_contracting_dimensions) = l;
  (key == "batching_dims" ? d->rhs_batching_dimensions : d->rhs_contracting_dimensions) = r;
}

// `precision = [DEFAULT, HIGH]`
void kw_precision(Parser& p, OpState& st, const std::string& name) {
  p.expect(Tok::lbracket, "'['");
  ArrayAttr a;
  if (!p.is(Tok::rbracket)) {
    do a.values.push_back(p.parse_enum_word("precision"));
    while (p.consume(Tok::comma));
  }
  p.expect(Tok::rbracket, "']'");
  st.attrs.push_back({name, std::move(a)});
}

// window `pad = [[0, 1], [1, 0]]`: an Nx2 i64 dense attribute.
void window_pad(Parser& p, OpState& st, const std::string& name) {
  p.expect(Tok::lbracket, "'['");
  std::vector<int64_t> flat;
  if (!p.is(Tok::rbracket)) {
    do {
      auto pair = p.parse_int_list();
      if (pair.size() != 2) p.fail("a [low, high] padding pair");
      flat.insert(flat.end(), pair.begin(), pair.end());
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::rbracket, "']'");
  auto npairs = static_cast<int64_t>(flat.size() / 2);
  st.attrs.push_back({name, dense_attr(Array::from<int64_t>({npairs, 2}, flat))});
}

// window `reverse = [false, true]` (or 0/1)
void window_reverse(Parser& p, OpState& st, const std::string& name) {
  p.expect(Tok::lbracket, "'['");
  BoolArrayAttr b;
  if (!p.is(Tok::rbracket)) {
    do {
      if (p.is_id("true") || p.is_id("false")) {
        b.values.push_back(p.is_id("true"));
        p.advance();
      } else {
        b.values.push_back(p.parse_int() != 0);
      }
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::rbracket, "']'");
  st.attrs.push_back({name, std::move(b)});
}

void read_value(Parser& p, OpState& st, std::string_view op, const AttrDecl& row,
                std::string_view key);

/// The `window = {..}` fields of `op`'s declarations (`stride, pad, ...`), for the message.
std::string window_fields(std::string_view op) {
  std::vector<std::string_view> fields;
  for (const AttrDecl& d : detail::declared_attrs(op))
    if (d.keyword.starts_with("window.")) fields.push_back(d.keyword.substr(7));
  std::string out;
  for (size_t k = 0; k < fields.size(); ++k)
    out += fmt::format("{}{}", k == 0 ? "" : k + 1 == fields.size() ? " or " : ", ", fields[k]);
  return out;
}

// convolution's `window = {stride = [..], pad = [[..], ..], lhs_dilate = [..], rhs_dilate = [..],
// reverse = [..]}`: each field `f` read by the op's row of keyword `window.f`.
void kw_window(Parser& p, OpState& st, std::string_view op) {
  p.expect(Tok::lbrace, "'{'");
  while (!p.is(Tok::rbrace)) {
    if (!p.is(Tok::bare_id)) p.fail("a window field");
    std::string_view w = p.tok().text;
    p.advance();
    p.expect(Tok::equal, "'='");
    std::string key = "window." + std::string(w);
    const AttrDecl* row = detail::declared_attr_keyword(op, key);
    if (!row) p.fail(window_fields(op));
    read_value(p, st, op, *row, key);
    if (!p.consume(Tok::comma)) break;
  }
  p.expect(Tok::rbrace, "'}' closing the window");
}

[[noreturn]] void unknown_keyword(Parser& p, std::string_view op, std::string_view key) {
  p.fail_at(p.tok().pos, fmt::format("a keyword of stablehlo.{}", op), fmt::format("'{}'", key));
}

// `true` or `false`
void read_bool(Parser& p, OpState& st, std::string_view name) {
  if (!p.is_id("true") && !p.is_id("false")) p.fail("true or false");
  st.attrs.push_back({std::string(name), BoolAttr{p.is_id("true")}});
  p.advance();
}

/// Reads the value after `key =` into the attribute of `row` (a declaration of `op`), as its
/// AttrText or else its kind says.
void read_value(Parser& p, OpState& st, std::string_view op, const AttrDecl& row,
                std::string_view key) {
  using detail::AttrKind;
  using detail::AttrText;
  std::string name(row.name);
  switch (row.text) {
    case AttrText::pad_pairs:
      return window_pad(p, st, name);
    case AttrText::dims_pair:
      return kw_dot_dims(p, st, name, key);
    case AttrText::bits_format:
      return kw_format(p, st, name);
    case AttrText::dot_algorithm:
      return kw_dot_algorithm(p, st, name);
    case AttrText::by_kind:
      break;
  }
  switch (row.kind) {
    case AttrKind::i64_array:
      return st.attrs.push_back({name, i64_array(p.parse_int_list())});
    case AttrKind::integer:
      return st.attrs.push_back({name, i64_attr(p.parse_int())});
    case AttrKind::enumeration:
      return st.attrs.push_back({name, p.parse_enum_word(name)});
    case AttrKind::boolean:
      return read_bool(p, st, name);
    case AttrKind::bool_array:
      return window_reverse(p, st, name);
    case AttrKind::precision_list:
      return kw_precision(p, st, name);
    case AttrKind::dims_struct:
      return st.attrs.push_back({name, p.parse_conv_layouts()});
    default:
      unknown_keyword(p, op, key);  // a declaration without a text form
  }
}

// `key = value` at the current bare word: read by `op`'s declaration of keyword `key`
// (op_attributes.cc); `window = {..}` by those of its fields.
void keyword_value(Parser& p, OpState& st, std::string_view op) {
  std::string_view key = p.tok().text;
  p.advance();
  if (!p.consume(Tok::equal)) p.fail(fmt::format("'=' after {}", key));
  if (key == "window" && !window_fields(op).empty()) return kw_window(p, st, op);
  const AttrDecl* row = detail::declared_attr_keyword(op, key);
  if (!row) unknown_keyword(p, op, key);
  read_value(p, st, op, *row, key);
}

// compare's trailing `, FLOAT`: a comparison type, no '='.
void compare_type_word(Parser& p, OpState& st, std::string_view) {
  st.attrs.push_back({"compare_type", p.parse_enum_word("comparison_type")});
}

/// The keywords after the operands, each `, word ...` read by `read`; where `direct`, the first
/// may come without ',' (iota has no operands; convolution's follow its `(...)`).
void keywords(Parser& p, OpState& st, std::string_view op, bool direct,
              void (*read)(Parser&, OpState&, std::string_view) = keyword_value) {
  for (bool first = true;; first = false) {
    if (!(first && direct && p.is(Tok::bare_id))) {
      if (!p.is(Tok::comma) || p.peek().kind != Tok::bare_id) break;
      p.advance();
    }
    if (!p.is(Tok::bare_id)) p.fail("a keyword");
    read(p, st, op);
  }
}

// `[0:4:2, 1:3]` after slice's operand.
void slice_ranges(Parser& p, OpState& st) {
  p.expect(Tok::lbracket, "'[' with the slice ranges");
  std::vector<int64_t> a, b, c;
  if (!p.is(Tok::rbracket)) {
    do {
      a.push_back(p.parse_int());
      p.expect(Tok::colon, "':'");
      b.push_back(p.parse_int());
      c.push_back(p.consume(Tok::colon) ? p.parse_int() : 1);
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::rbracket, "']'");
  st.attrs.push_back({"start_indices", i64_array(a)});
  st.attrs.push_back({"limit_indices", i64_array(b)});
  st.attrs.push_back({"strides", i64_array(c)});
}

/// `[{attrs}] : types` closing the form, then the op is appended. Results: the outs of `(ins) ->
/// outs` (the ins checked against the operands), else the one type of `: T` (the last type for
/// select, every type for optimization_barrier).
void finish(Parser& p, OpState& st, std::string_view op, size_t pos) {
  if (p.is(Tok::lbrace)) p.parse_attr_dict(st.attrs);
  if (!p.consume(Tok::colon)) p.fail(fmt::format("':' and the types of stablehlo.{}", op));
  TypeSig sig = p.parse_type_sig();
  if (sig.functional) {
    if (sig.ins.size() == st.operands.size())
      for (size_t i = 0; i < sig.ins.size(); ++i)
        if (sig.ins[i] != st.operands[i].type())
          p.fail_at(pos, fmt::format("operand {} of type {}", i, st.operands[i].type().to_string()),
                    sig.ins[i].to_string());
    st.result_types = sig.outs;
  } else if (op == "optimization_barrier") {
    st.result_types = sig.ins;
  } else if (op == "select" || sig.ins.size() == 1) {
    st.result_types.push_back(std::move(sig.ins.back()));
  } else {
    p.fail_at(pos, fmt::format("the function type of stablehlo.{}", op), "a type list");
  }
  p.fill_defaults(st);
  p.append(std::move(st), pos);
}

}  // namespace

void form_operands(Parser& p, OpState& st, std::string_view op, size_t pos) {
  st.operands = p.parse_value_list();
  keywords(p, st, op, st.operands.empty());
  finish(p, st, op, pos);
}

void form_compare(Parser& p, OpState& st, std::string_view op, size_t pos) {
  st.attrs.push_back({"comparison_direction", p.parse_enum_word("comparison_direction")});
  p.expect(Tok::comma, "','");
  st.operands = p.parse_value_list();
  keywords(p, st, op, st.operands.empty(), compare_type_word);
  finish(p, st, op, pos);
}

void form_convolution(Parser& p, OpState& st, std::string_view op, size_t pos) {
  p.expect(Tok::lparen, "'('");
  st.operands = p.parse_value_list();
  p.expect(Tok::rparen, "')' closing the convolution operands");
  keywords(p, st, op, true);
  finish(p, st, op, pos);
}

void form_top_k(Parser& p, OpState& st, std::string_view op, size_t pos) {
  p.expect(Tok::lparen, "'('");
  st.operands = p.parse_value_list();
  keywords(p, st, op, st.operands.empty());
  p.expect(Tok::rparen, "')'");
  finish(p, st, op, pos);
}

void form_slice(Parser& p, OpState& st, std::string_view op, size_t pos) {
  st.operands = p.parse_value_list();
  keywords(p, st, op, st.operands.empty());
  slice_ranges(p, st);
  finish(p, st, op, pos);
}

}  // namespace hhlo::parse
