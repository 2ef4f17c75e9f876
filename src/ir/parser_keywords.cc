// The pretty form most StableHLO ops print, `stablehlo.op %a, %b [, key = value]* [{attrs}] :
// types` (elementwise ops, broadcast_in_dim, pad, dot_general, ...), with its few variants
// (compare, convolution, top_k, slice); each `key = value` is read by its row of kKeywords.
#include <fmt/format.h>

#include "parser_internal.h"

namespace hhlo::parse {
namespace {

void push_array(Parser& p, OpState& st, const char* attr) {
  st.attrs.push_back({attr, i64_array(p.parse_int_list())});
}
void push_i64(Parser& p, OpState& st, const char* attr) {
  st.attrs.push_back({attr, i64_attr(p.parse_int())});
}

// `format = e5m10` (reduce_precision): exponent and mantissa bits.
void kw_format(Parser& p, OpState& st, std::string_view) {
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
  st.attrs.push_back({"exponent_bits", i32_attr(e)});
  st.attrs.push_back({"mantissa_bits", i32_attr(mb)});
}

// `algorithm = <...>`: dot_general's algorithm, kept as its text (rng_bit_generator's is an enum).
void kw_algorithm(Parser& p, OpState& st, std::string_view op) {
  if (op == "rng_bit_generator") {
    st.attrs.push_back({"rng_algorithm", p.parse_enum_word("rng_algorithm")});
    return;
  }
  size_t a = p.tok().pos;
  if (!p.is(Tok::less)) p.fail("'<' opening the dot algorithm");
  p.reset_to(p.scan_balanced(a));
  st.attrs.push_back({"algorithm", OpaqueAttr{"#stablehlo.dot_algorithm" + p.text_from(a)}});
}

// `batching_dims = [0] x [0]`, `contracting_dims = [2] x [1]`: dot_general's dimension numbers.
void kw_dot_dims(Parser& p, OpState& st, std::string_view key) {
  auto l = p.parse_int_list();
  p.expect_id("x");
  auto r = p.parse_int_list();
  DotDimensionNumbers* d = nullptr;
  for (auto& a : st.attrs)
    if (a.name == "dot_dimension_numbers")
      d = const_cast<DotDimensionNumbers*>(a.value.get_if<DotDimensionNumbers>());
  if (!d) {
    st.attrs.push_back({"dot_dimension_numbers", DotDimensionNumbers{}});
    d = const_cast<DotDimensionNumbers*>(st.attrs.back().value.get_if<DotDimensionNumbers>());
  }
  (key == "batching_dims" ? d->lhs_batching_dimensions : d->lhs_contracting_dimensions) = l;
  (key == "batching_dims" ? d->rhs_batching_dimensions : d->rhs_contracting_dimensions) = r;
}

// `precision = [DEFAULT, HIGH]`
void kw_precision(Parser& p, OpState& st, std::string_view) {
  p.expect(Tok::lbracket, "'['");
  ArrayAttr a;
  if (!p.is(Tok::rbracket)) {
    do a.values.push_back(p.parse_enum_word("precision"));
    while (p.consume(Tok::comma));
  }
  p.expect(Tok::rbracket, "']'");
  st.attrs.push_back({"precision_config", std::move(a)});
}

// window `pad = [[0, 1], [1, 0]]`: an Nx2 i64 dense attribute.
void window_pad(Parser& p, OpState& st) {
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
  st.attrs.push_back({"padding", dense_attr(Array::from<int64_t>({npairs, 2}, flat))});
}

// window `reverse = [false, true]` (or 0/1)
void window_reverse(Parser& p, OpState& st) {
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
  st.attrs.push_back({"window_reversal", std::move(b)});
}

// convolution's `window = {stride = [..], pad = [[..], ..], lhs_dilate = [..], rhs_dilate = [..],
// reverse = [..]}`
void kw_window(Parser& p, OpState& st, std::string_view) {
  p.expect(Tok::lbrace, "'{'");
  while (!p.is(Tok::rbrace)) {
    if (!p.is(Tok::bare_id)) p.fail("a window field");
    std::string_view w = p.tok().text;
    p.advance();
    p.expect(Tok::equal, "'='");
    if (w == "stride")
      push_array(p, st, "window_strides");
    else if (w == "lhs_dilate")
      push_array(p, st, "lhs_dilation");
    else if (w == "rhs_dilate")
      push_array(p, st, "rhs_dilation");
    else if (w == "pad")
      window_pad(p, st);
    else if (w == "reverse")
      window_reverse(p, st);
    else
      p.fail("stride, pad, lhs_dilate, rhs_dilate or reverse");
    if (!p.consume(Tok::comma)) break;
  }
  p.expect(Tok::rbrace, "'}' closing the window");
}

[[noreturn]] void unknown_keyword(Parser& p, std::string_view op, std::string_view key) {
  p.fail_at(p.tok().pos, fmt::format("a keyword of stablehlo.{}", op), fmt::format("'{}'", key));
}

/// One `key = value` of the operand form: the key, and the reader of the value into attributes
/// (given the op's name without dialect, for the keys whose attribute depends on the op).
struct Keyword {
  std::string_view key;
  void (*read)(Parser& p, OpState& st, std::string_view op);
};

using O = OpState;
using V = std::string_view;
constexpr Keyword kKeywords[] = {
    {"dims",
     [](Parser& p, O& st, V op) {
       push_array(p, st,
                  op == "transpose" ? "permutation"
                  : op == "reverse" ? "dimensions"
                                    : "broadcast_dimensions");
     }},
    {"dim",
     [](Parser& p, O& st, V op) {
       push_i64(p, st, op == "iota" || op == "dynamic_iota" ? "iota_dimension" : "dimension");
     }},
    {"sizes", [](Parser& p, O& st, V) { push_array(p, st, "slice_sizes"); }},
    {"low", [](Parser& p, O& st, V) { push_array(p, st, "edge_padding_low"); }},
    {"high", [](Parser& p, O& st, V) { push_array(p, st, "edge_padding_high"); }},
    {"interior", [](Parser& p, O& st, V) { push_array(p, st, "interior_padding"); }},
    {"known_expanding_dimensions",
     [](Parser& p, O& st, V) { push_array(p, st, "known_expanding_dimensions"); }},
    {"known_nonexpanding_dimensions",
     [](Parser& p, O& st, V) { push_array(p, st, "known_nonexpanding_dimensions"); }},
    {"format", kw_format},
    {"type",
     [](Parser& p, O& st, V op) {
       if (op != "fft") unknown_keyword(p, op, "type");
       st.attrs.push_back({"fft_type", p.parse_enum_word("fft_type")});
     }},
    {"length", [](Parser& p, O& st, V) { push_array(p, st, "fft_length"); }},
    {"algorithm", kw_algorithm},
    {"distribution",
     [](Parser& p, O& st, V) {
       st.attrs.push_back({"rng_distribution", p.parse_enum_word("rng_distribution")});
     }},
    {"lower",
     [](Parser& p, O& st, V) {
       if (!p.is_id("true") && !p.is_id("false")) p.fail("true or false");
       st.attrs.push_back({"lower", BoolAttr{p.is_id("true")}});
       p.advance();
     }},
    {"batching_dims", [](Parser& p, O& st, V) { kw_dot_dims(p, st, "batching_dims"); }},
    {"contracting_dims", [](Parser& p, O& st, V) { kw_dot_dims(p, st, "contracting_dims"); }},
    {"precision", kw_precision},
    {"k", [](Parser& p, O& st, V) { push_i64(p, st, "k"); }},
    {"dim_numbers",
     [](Parser& p, O& st, V) {
       st.attrs.push_back({"dimension_numbers", p.parse_conv_layouts()});
     }},
    {"window", kw_window},
};

// `key = value` at the current bare word.
void keyword_value(Parser& p, OpState& st, std::string_view op) {
  std::string_view key = p.tok().text;
  p.advance();
  if (!p.consume(Tok::equal)) p.fail(fmt::format("'=' after {}", key));
  for (const Keyword& k : kKeywords)
    if (k.key == key) return k.read(p, st, op);
  unknown_keyword(p, op, key);
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
