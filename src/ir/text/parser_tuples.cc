// Tuple values of the StableHLO text parser (spec "Types": TupleType; ops `tuple` and
// `get_tuple_element`). Our IR holds tensors only, so a tuple never becomes an op: the parser
// binds a `stablehlo.tuple`'s result name to its elements, and a `get_tuple_element` of it to the
// element itself, which is what the spec computes (get_tuple_element(tuple(a, b), 1) = b). A
// tuple used anywhere else (a function's argument or result, another op's operand) is refused
// naming it.
#include <fmt/format.h>

#include "parser_internal.h"

namespace hhlo::parse {

std::string TupleTypeTree::to_string() const {
  if (!tuple) return tensor.to_string();
  std::string s = "tuple<";
  for (size_t i = 0; i < elements.size(); ++i) s += (i ? ", " : "") + elements[i].to_string();
  return s + ">";
}

TupleTypeTree TupleValue::type() const {
  TupleTypeTree t{.tuple = true};
  for (const Element& e : elements)
    t.elements.push_back(e.tuple ? e.tuple->type() : TupleTypeTree{.tensor = e.value.type()});
  return t;
}

std::shared_ptr<const TupleValue> Parser::find_tuple(std::string_view name) const {
  const NameMap::Binding* b = names_.find(name);
  if (!b || b->count != 0) return nullptr;
  auto it = tuples_.find(std::string(name));
  return it == tuples_.end() ? nullptr : it->second;
}

TupleTypeTree Parser::parse_tuple_type_tree() {
  Depth d(*this);
  if (!is_id("tuple")) return TupleTypeTree{.tensor = parse_tensor_type()};
  advance();
  expect(Tok::less, "'<' after 'tuple'");
  TupleTypeTree t{.tuple = true};
  if (!is(Tok::greater)) {
    do t.elements.push_back(parse_tuple_type_tree());
    while (consume(Tok::comma));
  }
  expect(Tok::greater, "'>' closing the tuple type");
  return t;
}

TupleValue::Element Parser::parse_tuple_operand() {
  if (is(Tok::value_id))
    if (auto t = find_tuple(tok_.text)) {
      advance();
      return {.tuple = t};
    }
  return {.value = parse_value_use()};
}

namespace {

/// `(T) -> R` or `T -> R` of a generic or pretty op with one operand and one result.
std::pair<TupleTypeTree, TupleTypeTree> unary_signature(Parser& p) {
  bool paren = p.consume(Tok::lparen);
  TupleTypeTree in = p.parse_tuple_type_tree();
  if (paren) p.expect(Tok::rparen, "')' closing the operand type");
  p.expect(Tok::arrow, "'->' and the result type");
  return {in, p.parse_tuple_type_tree()};
}

}  // namespace

void Parser::parse_tuple_op(std::string_view name, size_t pos, bool generic) {
  bool gte = name == "stablehlo.get_tuple_element";
  if (defs_.size() > 1 || (!defs_.empty() && defs_[0].second != 1))
    fail_at(pos, fmt::format("one result name for {}", name), "several");
  if (generic) expect(Tok::lparen, "'(' opening the operand list");
  std::vector<TupleValue::Element> operands;
  if (!is(Tok::rparen) && !is(Tok::colon) && !is(Tok::lbrace)) {
    do operands.push_back(parse_tuple_operand());
    while (consume(Tok::comma));
  }
  if (generic) expect(Tok::rparen, "')' closing the operand list");
  int64_t index = 0;
  std::vector<NamedAttr> attrs;
  if (gte && !generic) {
    expect(Tok::lbracket, "'[' and the element index");
    index = parse_int();
    expect(Tok::rbracket, "']' closing the element index");
  }
  if (generic && consume(Tok::less)) {
    parse_attr_dict(attrs);
    expect(Tok::greater, "'>' closing the properties");
  }
  if (is(Tok::lbrace)) parse_attr_dict(attrs);
  for (const NamedAttr& a : attrs)
    if (gte && std::string_view(a.name) == "index") {
      const IntAttr* i = a.value.get_if<IntAttr>();
      if (!i) fail_at(pos, "an integer index", "another attribute");
      index = i->value;
    }
  expect(Tok::colon, fmt::format("':' and the type of {}", name));
  std::string_view result = defs_.empty() ? std::string_view() : defs_[0].first;

  if (gte) {
    if (operands.size() != 1 || !operands[0].tuple)
      fail_at(pos, "get_tuple_element of one tuple value (stablehlo.tuple's result)",
              operands.size() == 1 ? "a tensor" : fmt::format("{} operands", operands.size()));
    const TupleValue& t = *operands[0].tuple;
    auto [in, out] = unary_signature(*this);
    if (in != t.type())
      fail_at(pos, fmt::format("the operand type {}", t.type().to_string()), in.to_string());
    if (index < 0 || index >= static_cast<int64_t>(t.elements.size()))
      fail_at(pos, fmt::format("an index below {} (C1)", t.elements.size()), std::to_string(index));
    const TupleValue::Element& e = t.elements[static_cast<size_t>(index)];
    TupleTypeTree et = e.tuple ? e.tuple->type() : TupleTypeTree{.tensor = e.value.type()};
    if (out != et)
      fail_at(pos, fmt::format("the element type {} (C2)", et.to_string()), out.to_string());
    parse_opt_loc();
    if (result.empty()) return;
    if (e.tuple) {
      define(result, Value(), 0, pos);
      tuples_[std::string(result)] = e.tuple;
    } else {
      define(result, e.value, 1, pos);
    }
    return;
  }

  auto t = std::make_shared<TupleValue>();
  t->elements = std::move(operands);
  TupleTypeTree declared;
  if (generic) {
    expect(Tok::lparen, "'(' and the operand types");
    if (!is(Tok::rparen)) {
      do parse_tuple_type_tree();  // checked through the result type below
      while (consume(Tok::comma));
    }
    expect(Tok::rparen, "')' closing the operand types");
    expect(Tok::arrow, "'->' and the tuple type");
  }
  declared = parse_tuple_type_tree();
  if (declared != t->type())
    fail_at(pos, fmt::format("the tuple type {} (C1)", t->type().to_string()),
            declared.to_string());
  parse_opt_loc();
  if (result.empty()) return;
  define(result, Value(), 0, pos);
  tuples_[std::string(result)] = std::move(t);
}

}  // namespace hhlo::parse
