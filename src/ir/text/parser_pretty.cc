// Pretty op forms of the StableHLO text parser: what the upstream StableHLO printer emits
// (`stablehlo.add %a, %b : tensor<..>`, `stablehlo.reduce(%x init: %y) applies ...`,
// `stablehlo.while(%iterArg = %a) : ... cond {...} do {...}`, ...), turned into the same
// attributes the generic form carries. One function per form, found by the op's name in one
// table (forms()); the `%a, %b [, key = value]*` family is in parser_keywords.cc.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "../op_attributes.h"
#include "hhlo/ir/infer.h"
#include "parser_internal.h"

namespace hhlo::parse {
namespace {

// `[{attrs}] : (ins) -> outs`: the outs become the results; `colon` and `expected` are the
// messages when the ':' or the function type is missing.
void function_type_results(Parser& p, OpState& st, size_t pos, std::string_view colon,
                           std::string_view expected) {
  if (p.is(Tok::lbrace)) p.parse_attr_dict(st.attrs);
  p.expect(Tok::colon, colon);
  TypeSig sig = p.parse_type_sig();
  if (!sig.functional) p.fail_at(pos, expected, "types only");
  st.result_types = sig.outs;
}

// `return %a, %b : T, U` (func.return; stablehlo.return inside regions)
void form_return(Parser& p, OpState& st, std::string_view, size_t pos) {
  if (st.name != "stablehlo.return") st.name = "func.return";
  st.operands = p.parse_value_list();
  if (p.is(Tok::lbrace)) p.parse_attr_dict(st.attrs);
  if (!st.operands.empty()) {
    p.expect(Tok::colon, "':' and the returned types");
    TypeSig sig = p.parse_type_sig();
    if (sig.functional || sig.ins.size() != st.operands.size())
      p.fail_at(pos, fmt::format("{} returned types", st.operands.size()),
                fmt::format("{}", sig.ins.size()));
    for (size_t i = 0; i < sig.ins.size(); ++i)
      if (sig.ins[i] != st.operands[i].type())
        p.fail_at(pos,
                  fmt::format("returned types matching the values (value {} is {})", i,
                              st.operands[i].type().to_string()),
                  sig.ins[i].to_string());
  }
  p.append(std::move(st), pos);
}

// `call @f(%a) : (T) -> R` (func.call)
void form_call(Parser& p, OpState& st, std::string_view, size_t pos) {
  st.name = "func.call";
  if (!p.is(Tok::symbol)) p.fail("the callee @name");
  st.attrs.push_back({"callee", p.parse_attribute()});
  p.expect(Tok::lparen, "'(' opening the call arguments");
  st.operands = p.parse_value_list();
  p.expect(Tok::rparen, "')' closing the call arguments");
  if (p.is(Tok::lbrace)) p.parse_attr_dict(st.attrs);
  p.expect(Tok::colon, "':' and the call's function type");
  TypeSig sig = p.parse_type_sig();
  if (!sig.functional || sig.ins.size() != st.operands.size())
    p.fail_at(pos, "the call's function type (args) -> results", "something else");
  st.result_types = sig.outs;
  p.append(std::move(st), pos);
}

// `constant [{attrs}] dense<...> : tensor<...>` (stablehlo.constant and arith.constant alike)
void form_constant(Parser& p, OpState& st, std::string_view, size_t pos) {
  if (p.is(Tok::lbrace)) p.parse_attr_dict(st.attrs);
  size_t vpos = p.tok().pos;
  Attribute v = p.parse_attribute("value");
  const DenseAttr* d = v.get_if<DenseAttr>();
  if (!d) p.fail_at(vpos, "a dense<...> : tensor<...> constant", "another attribute");
  st.result_types = {d->array->type()};
  st.attrs.push_back({"value", std::move(v)});
  p.append(std::move(st), pos);
}

// `custom_call @target(%a) {...} : (T) -> R`
void form_custom_call(Parser& p, OpState& st, std::string_view, size_t pos) {
  if (!p.is(Tok::symbol)) p.fail("the call target @name");
  Attribute target = p.parse_attribute();
  const SymbolRefAttr* ref = target.get_if<SymbolRefAttr>();
  st.attrs.push_back({"call_target_name", StringAttr{ref ? ref->name : to_string(target)}});
  p.expect(Tok::lparen, "'(' opening the custom_call operands");
  st.operands = p.parse_value_list();
  p.expect(Tok::rparen, "')' closing the custom_call operands");
  function_type_results(p, st, pos, "':' and the custom_call's function type",
                        "the custom_call's function type (args) -> results");
  p.append(std::move(st), pos);
}

// `composite "name" %a {...} : (T) -> R`
void form_composite(Parser& p, OpState& st, std::string_view, size_t pos) {
  if (!p.is(Tok::string)) p.fail("the composite's \"name\"");
  st.attrs.push_back({"name", p.parse_attribute()});
  st.operands = p.parse_value_list();
  function_type_results(p, st, pos, "':' and the composite's function type",
                        "the composite's function type");
  p.append(std::move(st), pos);
}

// reduce's `applies stablehlo.add`: a body of that one op over scalars of the init's type.
void reduce_applies_body(Parser& p, OpState& st, const std::string& body_op, Value init,
                         size_t body_pos) {
  TensorType sc{init.dtype(), {}};
  auto saved = std::move(p.defs_);
  st.regions.push_back(p.f_->build_block({sc, sc}, [&](const std::vector<Value>& a) {
    Location l = st.loc;
    std::vector<Value> r;
    try {
      r = p.f_->append({body_op, {a[0], a[1]}, {sc}, {}, {}, l});
    } catch (const Error& e) {
      p.fail_at(body_pos, "a reduction op", e.what());
    }
    p.note_pos(p.f_->insertion_block().ops().back().get(), body_pos);
    p.f_->append({"stablehlo.return", r, {}, {}, {}, l});
    p.note_pos(p.f_->insertion_block().ops().back().get(), body_pos);
  }));
  p.defs_ = std::move(saved);
}

// reduce's `reducer(%a: T, %b: T) (%c: U, %d: U) {...}`: the body with its arguments, the first
// of each pair for the inputs, the second for the inits.
void reduce_reducer_body(Parser& p, OpState& st, size_t n) {
  p.expect_id("reducer");
  std::vector<std::string_view> names(2 * n);
  std::vector<TensorType> types(2 * n);
  for (size_t i = 0; i < n; ++i) {
    p.expect(Tok::lparen, "'(' opening a reducer argument pair");
    for (size_t k = 0; k < 2; ++k) {
      if (k) p.expect(Tok::comma, "','");
      if (!p.is(Tok::value_id)) p.fail("a reducer argument %name");
      names[i + k * n] = p.tok().text;
      p.advance();
      p.expect(Tok::colon, "':'");
      types[i + k * n] = p.parse_tensor_type();
      p.parse_opt_loc();
    }
    p.expect(Tok::rparen, "')'");
  }
  st.regions.push_back(p.parse_region(&names, &types));
}

// `reduce(%x init: %y), (...) applies stablehlo.add across dimensions = [1] : (..) -> ..`, or
// `... across dimensions = [1] : (..) -> .. reducer(...) (...) {...}`
void form_reduce(Parser& p, OpState& st, std::string_view, size_t pos) {
  std::vector<Value> inputs, inits;
  do {
    p.expect(Tok::lparen, "'(' opening '(%input init: %init)'");
    inputs.push_back(p.parse_value_use());
    p.expect_id("init");
    p.expect(Tok::colon, "':' after init");
    inits.push_back(p.parse_value_use());
    p.expect(Tok::rparen, "')'");
  } while (p.consume(Tok::comma));
  std::string body_op;
  size_t body_pos = p.tok().pos;
  if (p.consume_id("applies")) {
    if (!p.is(Tok::bare_id)) p.fail("the reduction op name");
    body_op = std::string(p.tok().text);
    p.advance();
  }
  p.expect_id("across");
  p.expect_id("dimensions");
  p.expect(Tok::equal, "'='");
  st.attrs.push_back({"dimensions", i64_array(p.parse_int_list())});
  function_type_results(p, st, pos, "':' and the reduce's function type",
                        "the reduce's function type (args) -> results");
  st.operands = inputs;
  st.operands.insert(st.operands.end(), inits.begin(), inits.end());
  if (!body_op.empty()) {
    if (inputs.size() != 1) p.fail_at(body_pos, "'applies' with a single input", "several");
    reduce_applies_body(p, st, body_op, inits[0], body_pos);
  } else {
    reduce_reducer_body(p, st, inputs.size());
  }
  p.append(std::move(st), pos);
}

// `while(%iterArg = %a, ...) : T, ... [attributes {...}] cond {...} do {...}`
void form_while(Parser& p, OpState& st, std::string_view, size_t pos) {
  p.expect(Tok::lparen, "'(' opening the while operands");
  std::vector<std::string_view> names;
  if (!p.is(Tok::rparen)) {
    do {
      if (!p.is(Tok::value_id)) p.fail("an iteration argument %name");
      names.emplace_back(p.tok().text);
      p.advance();
      p.expect(Tok::equal, "'='");
      st.operands.push_back(p.parse_value_use());
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::rparen, "')'");
  std::vector<TensorType> types;
  if (p.consume(Tok::colon)) {
    do types.push_back(p.parse_tensor_type());
    while (p.consume(Tok::comma));
  }
  if (types.size() != st.operands.size())
    p.fail_at(pos, fmt::format("{} while operand types", st.operands.size()),
              fmt::format("{}", types.size()));
  for (size_t i = 0; i < types.size(); ++i)
    if (types[i] != st.operands[i].type())
      p.fail_at(pos, "while types matching the operands", types[i].to_string());
  if (p.consume_id("attributes")) p.parse_attr_dict(st.attrs);
  p.expect_id("cond");
  st.regions.push_back(p.parse_region(&names, &types));
  p.expect_id("do");
  st.regions.push_back(p.parse_region(&names, &types));
  st.result_types = types;
  p.append(std::move(st), pos);
}

// chlo.scan's form (ChloOps.cpp, ScanOp::parse): `chlo.scan(%in, ...) inits(%init, ...)
// dimension=D [attributes {...}] {^bb0(...): ...} : (ins) -> outs`. The results are the outputs
// then one carry per init; the generic form's segment sizes are filled in from the counts.
void form_scan(Parser& p, OpState& st, std::string_view, size_t pos) {
  p.expect(Tok::lparen, "'(' opening the scan's inputs");
  std::vector<Value> inputs = p.is(Tok::rparen) ? std::vector<Value>{} : p.parse_value_list();
  p.expect(Tok::rparen, "')' closing the scan's inputs");
  p.expect_id("inits");
  p.expect(Tok::lparen, "'(' opening the scan's inits");
  std::vector<Value> inits = p.is(Tok::rparen) ? std::vector<Value>{} : p.parse_value_list();
  p.expect(Tok::rparen, "')' closing the scan's inits");
  p.expect_id("dimension");
  p.expect(Tok::equal, "'=' after dimension");
  st.attrs.push_back({"dimension", i64_attr(p.parse_int())});
  if (p.consume_id("attributes")) p.parse_attr_dict(st.attrs);
  st.regions.push_back(p.parse_region(nullptr, nullptr));
  p.expect(Tok::colon, "':' and the scan's function type");
  TypeSig sig = p.parse_type_sig();
  if (!sig.functional) p.fail_at(pos, "the scan's function type (ins) -> outs", "types only");
  if (sig.ins.size() != inputs.size() + inits.size())
    p.fail_at(pos, fmt::format("{} operand types (inputs and inits)", inputs.size() + inits.size()),
              fmt::format("{}", sig.ins.size()));
  if (sig.outs.size() < inits.size())
    p.fail_at(pos, fmt::format("at least {} result types (one carry per init)", inits.size()),
              fmt::format("{}", sig.outs.size()));
  st.operands = inputs;
  st.operands.insert(st.operands.end(), inits.begin(), inits.end());
  for (size_t i = 0; i < sig.ins.size(); ++i)
    if (sig.ins[i] != st.operands[i].type())
      p.fail_at(pos, "operand types matching the values", sig.ins[i].to_string());
  st.result_types = sig.outs;
  auto segments = [](size_t a, size_t b) {
    return OpaqueAttr{fmt::format("array<i32: {}, {}>", a, b)};
  };
  st.attrs.push_back({"operandSegmentSizes", segments(inputs.size(), inits.size())});
  st.attrs.push_back(
      {"resultSegmentSizes", segments(sig.outs.size() - inits.size(), inits.size())});
  p.append(std::move(st), pos);
}

// `sdy.return %a : T` (the types are not checked: manual_computation's body returns local types)
void form_sdy_return(Parser& p, OpState& st, std::string_view, size_t pos) {
  st.operands = p.parse_value_list();
  if (p.is(Tok::lbrace)) p.parse_attr_dict(st.attrs);
  if (!st.operands.empty()) {
    p.expect(Tok::colon, "':' and the returned types");
    p.parse_type_sig();
  }
  p.append(std::move(st), pos);
}

// The text of the balanced bracket at the current token, as `#kind<...>` would spell it, to be
// read into the typed form when it is one our printer writes, else kept opaque.
std::string bracketed(Parser& p, std::string_view what) {
  if (!p.is(Tok::less) && !p.is(Tok::lbracket) && !p.is(Tok::lbrace)) p.fail(what);
  size_t open = p.tok().pos, end = p.scan_balanced(open);
  std::string text(p.lex_.src().substr(open, end - open));
  p.reset_to(end);
  return text;
}

// `%1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>`
void form_sharding_constraint(Parser& p, OpState& st, std::string_view, size_t pos) {
  st.operands = {p.parse_value_use()};
  std::string t = bracketed(p, "a sharding <@mesh, [...]>");
  auto sh = scan_sharding(t);
  st.attrs.push_back(
      {"sharding", sh ? Attribute(*sh) : Attribute(OpaqueAttr{"#sdy.sharding" + t})});
  if (p.is(Tok::lbrace)) p.parse_attr_dict(st.attrs);
  p.expect(Tok::colon, "':' and the sharding_constraint's type");
  TypeSig sig = p.parse_type_sig();
  if (sig.functional || sig.ins.size() != 1) p.fail_at(pos, "one type", "a function type");
  st.result_types = sig.ins;
  p.append(std::move(st), pos);
}

// manual_computation's `in_shardings=[<..>] out_shardings=[<..>] manual_axes={"x"}`
void manual_computation_attrs(Parser& p, OpState& st) {
  for (const char* key : {"in_shardings", "out_shardings"}) {
    p.expect_id(key);
    p.expect(Tok::equal, "'='");
    std::string t = "<" + bracketed(p, "a list of shardings [<@mesh, [...]>, ...]") + ">";
    auto v = scan_sharding_per_value(t);
    st.attrs.push_back(
        {key, v ? Attribute(*v) : Attribute(OpaqueAttr{"#sdy.sharding_per_value" + t})});
  }
  p.expect_id("manual_axes");
  p.expect(Tok::equal, "'='");
  std::string axes = "<manual_axes" + bracketed(p, "manual axes {\"x\", ...}") + ">";
  auto ma = scan_manual_axes(axes);
  st.attrs.push_back({"manual_axes", ma ? Attribute(*ma) : Attribute(OpaqueAttr{"#sdy" + axes})});
}

// %0 = sdy.manual_computation(%x) in_shardings=[<..>] out_shardings=[<..>]
//      manual_axes={"x"} (%arg1: tensor<..>) {...} : (tensor<..>) -> tensor<..>
void form_manual_computation(Parser& p, OpState& st, std::string_view, size_t pos) {
  p.expect(Tok::lparen, "'(' opening the manual_computation operands");
  st.operands = p.parse_value_list();
  p.expect(Tok::rparen, "')' closing the manual_computation operands");
  manual_computation_attrs(p, st);
  std::vector<std::string_view> names;  // views into the text, as parse_region takes them
  std::vector<TensorType> types;
  p.expect(Tok::lparen, "'(' opening the body's arguments");
  if (!p.is(Tok::rparen)) {
    do {
      if (!p.is(Tok::value_id)) p.fail("a body argument %name");
      names.push_back(p.tok().text);
      p.advance();
      p.expect(Tok::colon, "':' and the body argument's type");
      types.push_back(p.parse_tensor_type());
      p.parse_opt_loc();  // JAX writes `(%arg1: tensor<..> loc("shard_map:"(..)))`; not kept
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::rparen, "')' closing the body's arguments");
  st.regions.push_back(p.parse_region(&names, &types));
  function_type_results(p, st, pos, "':' and the manual_computation's function type",
                        "the function type (args) -> results");
  p.append(std::move(st), pos);
}

/// Reads one pretty form, the op's name read: `st.name` holds that name, `op` is it without the
/// dialect (`top_k` for chlo.top_k), `pos` is where the op starts. Appends the op.
using Form = void (*)(Parser& p, OpState& st, std::string_view op, size_t pos);

constexpr std::pair<std::string_view, Form> kForms[] = {
    {"return", form_return},
    {"func.return", form_return},
    {"stablehlo.return", form_return},
    {"call", form_call},
    {"func.call", form_call},
    {"sdy.return", form_sdy_return},
    {"sdy.sharding_constraint", form_sharding_constraint},
    {"sdy.manual_computation", form_manual_computation},
    {"stablehlo.constant", form_constant},
    {"arith.constant", form_constant},  // MLIR's ConstantOp form: [{attrs}] VALUE : TYPE
    {"stablehlo.custom_call", form_custom_call},
    {"stablehlo.reduce", form_reduce},
    {"stablehlo.while", form_while},
    {"stablehlo.composite", form_composite},
    {"stablehlo.compare", form_compare},
    {"stablehlo.convolution", form_convolution},
    {"stablehlo.top_k", form_top_k},
    {"chlo.top_k", form_top_k},
    {"chlo.scan", form_scan},
    {"stablehlo.slice", form_slice},
};

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using FormTable = std::unordered_map<std::string, Form, NameHash, std::equal_to<>>;

/// Op name -> its pretty form: kForms, then the ops declared with OpForm::operands
/// (op_attributes.cc) as `stablehlo.<name>` with form_operands.
const FormTable& forms() {
  static const FormTable table = [] {
    FormTable t;
    for (const auto& [name, form] : kForms) t.emplace(name, form);
    for (const detail::OpDecl& o : detail::op_declarations())
      if (o.form == detail::OpForm::operands)
        t.emplace("stablehlo." + std::string(o.op), form_operands);
    return t;
  }();
  return table;
}

}  // namespace

bool Parser::parse_pretty_op(std::string_view name, size_t pos) {
  const FormTable& table = forms();
  auto it = table.find(name);
  if (it == table.end()) return false;
  OpState st;
  st.name = name;
  std::string_view op = name.starts_with("stablehlo.") ? name.substr(10)
                        : name == "chlo.top_k"         ? std::string_view("top_k")
                                                       : name;
  it->second(*this, st, op, pos);
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
