// Pretty op forms of the StableHLO text parser: what the upstream StableHLO printer emits
// (`stablehlo.add %a, %b : tensor<..>`, `stablehlo.reduce(%x init: %y) applies ...`,
// `stablehlo.while(%iterArg = %a) : ... cond {...} do {...}`, ...), turned into the same
// attributes the generic form carries.
#include <fmt/format.h>

#include <unordered_set>

#include "hhlo/ir/infer.h"
#include "parser_internal.h"

namespace hhlo::parse {
namespace {}  // namespace

// Ops whose pretty form is: operands [, keyword = value]* [attr-dict] : type signature.
bool Parser::parse_pretty_op(std::string_view name, size_t pos) {
  OpState st;
  st.name = name;
  std::string_view s = name;
  if (name == "return" || name == "func.return" || name == "stablehlo.return") {
    st.name = name == "stablehlo.return" ? "stablehlo.return" : "func.return";
    st.operands = parse_value_list();
    if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
    if (!st.operands.empty()) {
      expect(Tok::colon, "':' and the returned types");
      TypeSig sig = parse_type_sig();
      if (sig.functional || sig.ins.size() != st.operands.size())
        fail_at(pos, fmt::format("{} returned types", st.operands.size()),
                fmt::format("{}", sig.ins.size()));
      for (size_t i = 0; i < sig.ins.size(); ++i)
        if (sig.ins[i] != st.operands[i].type())
          fail_at(pos, "returned types matching the values", sig.ins[i].to_string());
    }
    append(std::move(st), pos);
    return true;
  }
  if (name == "call" || name == "func.call") {
    st.name = "func.call";
    if (!is(Tok::symbol)) fail("the callee @name");
    st.attrs.push_back({"callee", parse_attribute()});
    expect(Tok::lparen, "'(' opening the call arguments");
    st.operands = parse_value_list();
    expect(Tok::rparen, "')' closing the call arguments");
    if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
    expect(Tok::colon, "':' and the call's function type");
    TypeSig sig = parse_type_sig();
    if (!sig.functional || sig.ins.size() != st.operands.size())
      fail_at(pos, "the call's function type (args) -> results", "something else");
    st.result_types = sig.outs;
    append(std::move(st), pos);
    return true;
  }
  if (name == "sdy.return") {
    st.operands = parse_value_list();
    if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
    if (!st.operands.empty()) {
      expect(Tok::colon, "':' and the returned types");
      parse_type_sig();
    }
    append(std::move(st), pos);
    return true;
  }
  if (name == "sdy.sharding_constraint" || name == "sdy.manual_computation") {
    // The text of a balanced bracket at the current token, as `#kind<...>` would spell it, read
    // into the typed form when it is one our printer writes, else kept opaque.
    auto bracketed = [&](std::string_view what) {
      if (!is(Tok::less) && !is(Tok::lbracket) && !is(Tok::lbrace)) fail(what);
      size_t open = tok_.pos, end = scan_balanced(open);
      std::string text(lex_.src().substr(open, end - open));
      reset_to(end);
      return text;
    };
    if (name == "sdy.sharding_constraint") {
      // %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
      st.operands = {parse_value_use()};
      std::string t = bracketed("a sharding <@mesh, [...]>");
      auto sh = scan_sharding(t);
      st.attrs.push_back(
          {"sharding", sh ? Attribute(*sh) : Attribute(OpaqueAttr{"#sdy.sharding" + t})});
      if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
      expect(Tok::colon, "':' and the sharding_constraint's type");
      TypeSig sig = parse_type_sig();
      if (sig.functional || sig.ins.size() != 1) fail_at(pos, "one type", "a function type");
      st.result_types = sig.ins;
      append(std::move(st), pos);
      return true;
    }
    // %0 = sdy.manual_computation(%x) in_shardings=[<..>] out_shardings=[<..>]
    //      manual_axes={"x"} (%arg1: tensor<..>) {...} : (tensor<..>) -> tensor<..>
    expect(Tok::lparen, "'(' opening the manual_computation operands");
    st.operands = parse_value_list();
    expect(Tok::rparen, "')' closing the manual_computation operands");
    for (const char* key : {"in_shardings", "out_shardings"}) {
      expect_id(key);
      expect(Tok::equal, "'='");
      std::string t = "<" + bracketed("a list of shardings [<@mesh, [...]>, ...]") + ">";
      auto v = scan_sharding_per_value(t);
      st.attrs.push_back(
          {key, v ? Attribute(*v) : Attribute(OpaqueAttr{"#sdy.sharding_per_value" + t})});
    }
    expect_id("manual_axes");
    expect(Tok::equal, "'='");
    std::string axes = "<manual_axes" + bracketed("manual axes {\"x\", ...}") + ">";
    auto ma = scan_manual_axes(axes);
    st.attrs.push_back({"manual_axes", ma ? Attribute(*ma) : Attribute(OpaqueAttr{"#sdy" + axes})});
    std::vector<std::string_view> names;  // views into the text, as parse_region takes them
    std::vector<TensorType> types;
    expect(Tok::lparen, "'(' opening the body's arguments");
    if (!is(Tok::rparen)) {
      do {
        if (!is(Tok::value_id)) fail("a body argument %name");
        names.push_back(tok_.text);
        advance();
        expect(Tok::colon, "':' and the body argument's type");
        types.push_back(parse_tensor_type());
        parse_opt_loc();  // JAX writes `(%arg1: tensor<..> loc("shard_map:"(..)))`; not kept
      } while (consume(Tok::comma));
    }
    expect(Tok::rparen, "')' closing the body's arguments");
    st.regions.push_back(parse_region(&names, &types));
    if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
    expect(Tok::colon, "':' and the manual_computation's function type");
    TypeSig sig = parse_type_sig();
    if (!sig.functional) fail_at(pos, "the function type (args) -> results", "types only");
    st.result_types = sig.outs;
    append(std::move(st), pos);
    return true;
  }
  if (!s.starts_with("stablehlo.") && name != "chlo.top_k") return false;
  std::string_view op = s.starts_with("stablehlo.") ? s.substr(10) : std::string_view("top_k");

  if (op == "constant") {
    if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
    size_t vpos = tok_.pos;
    Attribute v = parse_attribute("value");
    const DenseAttr* d = v.get_if<DenseAttr>();
    if (!d) fail_at(vpos, "a dense<...> : tensor<...> constant", "another attribute");
    st.result_types = {d->array->type()};
    st.attrs.push_back({"value", std::move(v)});
    append(std::move(st), pos);
    return true;
  }
  if (op == "custom_call") {
    if (!is(Tok::symbol)) fail("the call target @name");
    Attribute target = parse_attribute();
    st.attrs.push_back({"call_target_name", StringAttr{target.get_if<SymbolRefAttr>()
                                                           ? target.get_if<SymbolRefAttr>()->name
                                                           : to_string(target)}});
    expect(Tok::lparen, "'(' opening the custom_call operands");
    st.operands = parse_value_list();
    expect(Tok::rparen, "')' closing the custom_call operands");
    if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
    expect(Tok::colon, "':' and the custom_call's function type");
    TypeSig sig = parse_type_sig();
    if (!sig.functional)
      fail_at(pos, "the custom_call's function type (args) -> results", "types only");
    st.result_types = sig.outs;
    append(std::move(st), pos);
    return true;
  }
  if (op == "reduce") {
    std::vector<Value> inputs, inits;
    do {
      expect(Tok::lparen, "'(' opening '(%input init: %init)'");
      inputs.push_back(parse_value_use());
      expect_id("init");
      expect(Tok::colon, "':' after init");
      inits.push_back(parse_value_use());
      expect(Tok::rparen, "')'");
    } while (consume(Tok::comma));
    std::string body_op;
    size_t body_pos = tok_.pos;
    if (consume_id("applies")) {
      if (!is(Tok::bare_id)) fail("the reduction op name");
      body_op = std::string(tok_.text);
      advance();
    }
    expect_id("across");
    expect_id("dimensions");
    expect(Tok::equal, "'='");
    st.attrs.push_back({"dimensions", i64_array(parse_int_list())});
    if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
    expect(Tok::colon, "':' and the reduce's function type");
    TypeSig sig = parse_type_sig();
    if (!sig.functional) fail_at(pos, "the reduce's function type (args) -> results", "types only");
    st.result_types = sig.outs;
    st.operands = inputs;
    st.operands.insert(st.operands.end(), inits.begin(), inits.end());
    size_t n = inputs.size();
    if (!body_op.empty()) {
      if (n != 1) fail_at(body_pos, "'applies' with a single input", "several");
      TensorType sc{inits[0].dtype(), {}};
      auto saved = std::move(defs_);
      st.regions.push_back(f_->build_block({sc, sc}, [&](const std::vector<Value>& a) {
        Location l = st.loc;
        std::vector<Value> r;
        try {
          r = f_->append({body_op, {a[0], a[1]}, {sc}, {}, {}, l});
        } catch (const Error& e) {
          fail_at(body_pos, "a reduction op", e.what());
        }
        note_pos(f_->insertion_block().ops().back().get(), body_pos);
        f_->append({"stablehlo.return", r, {}, {}, {}, l});
        note_pos(f_->insertion_block().ops().back().get(), body_pos);
      }));
      defs_ = std::move(saved);
    } else {
      expect_id("reducer");
      std::vector<std::string_view> names(2 * n);
      std::vector<TensorType> types(2 * n);
      for (size_t i = 0; i < n; ++i) {
        expect(Tok::lparen, "'(' opening a reducer argument pair");
        for (size_t k = 0; k < 2; ++k) {
          if (k) expect(Tok::comma, "','");
          if (!is(Tok::value_id)) fail("a reducer argument %name");
          names[i + k * n] = tok_.text;
          advance();
          expect(Tok::colon, "':'");
          types[i + k * n] = parse_tensor_type();
          parse_opt_loc();
        }
        expect(Tok::rparen, "')'");
      }
      st.regions.push_back(parse_region(&names, &types));
    }
    append(std::move(st), pos);
    return true;
  }
  if (op == "while") {
    expect(Tok::lparen, "'(' opening the while operands");
    std::vector<std::string_view> names;
    if (!is(Tok::rparen)) {
      do {
        if (!is(Tok::value_id)) fail("an iteration argument %name");
        names.emplace_back(tok_.text);
        advance();
        expect(Tok::equal, "'='");
        st.operands.push_back(parse_value_use());
      } while (consume(Tok::comma));
    }
    expect(Tok::rparen, "')'");
    std::vector<TensorType> types;
    if (consume(Tok::colon)) {
      do types.push_back(parse_tensor_type());
      while (consume(Tok::comma));
    }
    if (types.size() != st.operands.size())
      fail_at(pos, fmt::format("{} while operand types", st.operands.size()),
              fmt::format("{}", types.size()));
    for (size_t i = 0; i < types.size(); ++i)
      if (types[i] != st.operands[i].type())
        fail_at(pos, "while types matching the operands", types[i].to_string());
    if (consume_id("attributes")) parse_attr_dict(st.attrs);
    expect_id("cond");
    st.regions.push_back(parse_region(&names, &types));
    expect_id("do");
    st.regions.push_back(parse_region(&names, &types));
    st.result_types = types;
    append(std::move(st), pos);
    return true;
  }
  if (op == "composite") {
    if (!is(Tok::string)) fail("the composite's \"name\"");
    st.attrs.push_back({"name", parse_attribute()});
    st.operands = parse_value_list();
    if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
    expect(Tok::colon, "':' and the composite's function type");
    TypeSig sig = parse_type_sig();
    if (!sig.functional) fail_at(pos, "the composite's function type", "types only");
    st.result_types = sig.outs;
    append(std::move(st), pos);
    return true;
  }
  bool paren = false;
  if (op == "top_k" || op == "convolution") {
    expect(Tok::lparen, "'('");
    paren = true;
  }
  if (op == "compare") {
    st.attrs.push_back({"comparison_direction", parse_enum_word("comparison_direction")});
    expect(Tok::comma, "','");
  }
  static const std::initializer_list<std::string_view> known = {"select",
                                                                "clamp",
                                                                "convert",
                                                                "bitcast_convert",
                                                                "reshape",
                                                                "optimization_barrier",
                                                                "dynamic_update_slice",
                                                                "dynamic_reshape",
                                                                "dynamic_pad",
                                                                "real_dynamic_slice",
                                                                "get_dimension_size",
                                                                "broadcast_in_dim",
                                                                "transpose",
                                                                "reverse",
                                                                "concatenate",
                                                                "dynamic_slice",
                                                                "pad",
                                                                "reduce_precision",
                                                                "fft",
                                                                "rng_bit_generator",
                                                                "rng",
                                                                "cholesky",
                                                                "dynamic_broadcast_in_dim",
                                                                "dynamic_iota",
                                                                "iota",
                                                                "dot_general",
                                                                "dot",
                                                                "compare",
                                                                "top_k",
                                                                "convolution",
                                                                "slice",
                                                                "uniform_quantize",
                                                                "uniform_dequantize",
                                                                "after_all",
                                                                "create_token",
                                                                "partition_id",
                                                                "replica_id"};
  static const std::unordered_set<std::string_view> known_set(known.begin(), known.end());
  if (!known_set.count(op) && !is_elementwise(op, 1) && !is_elementwise(op, 2)) return false;

  st.operands = parse_value_list();
  if (paren && op == "convolution") expect(Tok::rparen, "')' closing the convolution operands");
  auto keyword = [&](std::string_view key) {
    auto arr = [&](const char* attr) { st.attrs.push_back({attr, i64_array(parse_int_list())}); };
    auto i64 = [&](const char* attr) { st.attrs.push_back({attr, i64_attr(parse_int())}); };
    if (key == "dims") {
      arr(op == "transpose" ? "permutation"
          : op == "reverse" ? "dimensions"
                            : "broadcast_dimensions");
    } else if (key == "dim") {
      i64(op == "iota" || op == "dynamic_iota" ? "iota_dimension" : "dimension");
    } else if (key == "sizes") {
      arr("slice_sizes");
    } else if (key == "low") {
      arr("edge_padding_low");
    } else if (key == "high") {
      arr("edge_padding_high");
    } else if (key == "interior") {
      arr("interior_padding");
    } else if (key == "known_expanding_dimensions" || key == "known_nonexpanding_dimensions") {
      st.attrs.push_back({std::string(key), i64_array(parse_int_list())});
    } else if (key == "format") {
      // e5m10
      if (!is(Tok::bare_id) || tok_.text.size() < 4 || tok_.text[0] != 'e') fail("a format eNmM");
      std::string_view f = tok_.text;
      size_t m = f.find('m');
      if (m == std::string_view::npos) fail("a format eNmM");
      auto num = [&](std::string_view d) -> int64_t {
        if (d.empty() || d.size() > 6) fail("a format eNmM");
        int64_t v = 0;
        for (char c : d) {
          if (c < '0' || c > '9') fail("a format eNmM");
          v = v * 10 + (c - '0');
        }
        return v;
      };
      int64_t e = num(f.substr(1, m - 1)), mb = num(f.substr(m + 1));
      advance();
      st.attrs.push_back({"exponent_bits", i32_attr(e)});
      st.attrs.push_back({"mantissa_bits", i32_attr(mb)});
    } else if (key == "type" && op == "fft") {
      st.attrs.push_back({"fft_type", parse_enum_word("fft_type")});
    } else if (key == "length") {
      arr("fft_length");
    } else if (key == "algorithm" && op == "rng_bit_generator") {
      st.attrs.push_back({"rng_algorithm", parse_enum_word("rng_algorithm")});
    } else if (key == "algorithm") {
      size_t a = tok_.pos;
      if (!is(Tok::less)) fail("'<' opening the dot algorithm");
      reset_to(scan_balanced(a));
      st.attrs.push_back({"algorithm", OpaqueAttr{"#stablehlo.dot_algorithm" + text_from(a)}});
    } else if (key == "distribution") {
      st.attrs.push_back({"rng_distribution", parse_enum_word("rng_distribution")});
    } else if (key == "lower") {
      if (!is_id("true") && !is_id("false")) fail("true or false");
      st.attrs.push_back({"lower", BoolAttr{is_id("true")}});
      advance();
    } else if (key == "batching_dims" || key == "contracting_dims") {
      auto l = parse_int_list();
      expect_id("x");
      auto r = parse_int_list();
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
    } else if (key == "precision") {
      expect(Tok::lbracket, "'['");
      ArrayAttr a;
      if (!is(Tok::rbracket)) {
        do a.values.push_back(parse_enum_word("precision"));
        while (consume(Tok::comma));
      }
      expect(Tok::rbracket, "']'");
      st.attrs.push_back({"precision_config", std::move(a)});
    } else if (key == "k") {
      i64("k");
    } else if (key == "dim_numbers") {
      st.attrs.push_back({"dimension_numbers", parse_conv_layouts()});
    } else if (key == "window") {
      expect(Tok::lbrace, "'{'");
      while (!is(Tok::rbrace)) {
        if (!is(Tok::bare_id)) fail("a window field");
        std::string w(tok_.text);
        advance();
        expect(Tok::equal, "'='");
        if (w == "stride") {
          arr("window_strides");
        } else if (w == "lhs_dilate") {
          arr("lhs_dilation");
        } else if (w == "rhs_dilate") {
          arr("rhs_dilation");
        } else if (w == "pad") {
          expect(Tok::lbracket, "'['");
          std::vector<int64_t> flat;
          if (!is(Tok::rbracket)) {
            do {
              auto p = parse_int_list();
              if (p.size() != 2) fail("a [low, high] padding pair");
              flat.insert(flat.end(), p.begin(), p.end());
            } while (consume(Tok::comma));
          }
          expect(Tok::rbracket, "']'");
          auto npairs = static_cast<int64_t>(flat.size() / 2);
          st.attrs.push_back({"padding", dense_attr(Array::from<int64_t>({npairs, 2}, flat))});
        } else if (w == "reverse") {
          expect(Tok::lbracket, "'['");
          BoolArrayAttr b;
          if (!is(Tok::rbracket)) {
            do {
              if (is_id("true") || is_id("false")) {
                b.values.push_back(is_id("true"));
                advance();
              } else {
                b.values.push_back(parse_int() != 0);
              }
            } while (consume(Tok::comma));
          }
          expect(Tok::rbracket, "']'");
          st.attrs.push_back({"window_reversal", std::move(b)});
        } else {
          fail("stride, pad, lhs_dilate, rhs_dilate or reverse");
        }
        if (!consume(Tok::comma)) break;
      }
      expect(Tok::rbrace, "'}' closing the window");
    } else {
      fail_at(tok_.pos, fmt::format("a keyword of stablehlo.{}", op), fmt::format("'{}'", key));
    }
  };
  // keywords: `, key = value` after operands, or directly (iota, convolution)
  bool first = true;
  while (true) {
    bool direct = first && (st.operands.empty() || op == "convolution") && is(Tok::bare_id);
    if (!direct) {
      if (!is(Tok::comma)) break;
      size_t save = lex_.pos();
      Token next = lex_.next();
      lex_.reset(save);
      if (next.kind != Tok::bare_id) break;
      advance();
    }
    first = false;
    if (!is(Tok::bare_id)) fail("a keyword");
    std::string_view key = tok_.text;
    // `compare ..., FLOAT` / `slice`-less words
    if (op == "compare") {
      st.attrs.push_back({"compare_type", parse_enum_word("comparison_type")});
      continue;
    }
    advance();
    if (!consume(Tok::equal)) fail(fmt::format("'=' after {}", key));
    keyword(key);
  }
  if (paren && op == "top_k") expect(Tok::rparen, "')'");
  if (op == "slice") {  // [0:4:2, 1:3]
    expect(Tok::lbracket, "'[' with the slice ranges");
    std::vector<int64_t> a, b, c;
    if (!is(Tok::rbracket)) {
      do {
        a.push_back(parse_int());
        expect(Tok::colon, "':'");
        b.push_back(parse_int());
        c.push_back(consume(Tok::colon) ? parse_int() : 1);
      } while (consume(Tok::comma));
    }
    expect(Tok::rbracket, "']'");
    st.attrs.push_back({"start_indices", i64_array(a)});
    st.attrs.push_back({"limit_indices", i64_array(b)});
    st.attrs.push_back({"strides", i64_array(c)});
  }
  if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
  expect(Tok::colon, fmt::format("':' and the types of stablehlo.{}", op));
  TypeSig sig = parse_type_sig();
  if (sig.functional) {
    if (sig.ins.size() == st.operands.size())
      for (size_t i = 0; i < sig.ins.size(); ++i)
        if (sig.ins[i] != st.operands[i].type())
          fail_at(pos, fmt::format("operand {} of type {}", i, st.operands[i].type().to_string()),
                  sig.ins[i].to_string());
    st.result_types = sig.outs;
  } else if (op == "optimization_barrier") {
    st.result_types = sig.ins;
  } else if (op == "select" || sig.ins.size() == 1) {
    st.result_types.push_back(std::move(sig.ins.back()));
  } else {
    fail_at(pos, fmt::format("the function type of stablehlo.{}", op), "a type list");
  }
  if (name == "chlo.top_k") st.name = "chlo.top_k";
  fill_defaults(st);
  append(std::move(st), pos);
  return true;
}

// Ops of other dialects (chlo.*, ...) and StableHLO ops without a pretty parser here: operands,
// an optional attribute dictionary, then `: (ins) -> outs`, `: ins -> outs` or `: T` (same type).
void Parser::parse_unknown_pretty(std::string_view name, size_t pos) {
  OpState st;
  st.name = name;
  bool paren = consume(Tok::lparen);
  st.operands = parse_value_list();
  if (paren) expect(Tok::rparen, "')'");
  if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
  if (!is(Tok::colon))
    fail(
        fmt::format("':' and types (the pretty form of '{}' is not known here; the generic form "
                    "\"{}\"(...) always works)",
                    name, name));
  advance();
  TypeSig sig = parse_type_sig();
  size_t want = num_defs();
  if (sig.functional)
    st.result_types = sig.outs;
  else if (want == sig.ins.size())
    st.result_types = sig.ins;
  else if (want <= 1)
    st.result_types = want ? std::vector<TensorType>{sig.ins.back()} : std::vector<TensorType>{};
  else
    fail_at(pos, "a function type giving the results", "a type list");
  append(std::move(st), pos);
}

}  // namespace hhlo::parse
